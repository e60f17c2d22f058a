// The paths every input names (V4A headers, edit operations, Aider blocks, unified diffs) under one
// policy: what git would take as the same path is normalized (repeated '/' as one; for the inputs
// models write, `./src/x` as `src/x`), and what names a directory, leaves the repository or
// reaches the .git directory in any spelling git refuses on checkout is `path_rejected` with the
// reason. A unified diff keeps to `git apply`, which refuses '.' segments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStep, type Step } from '../../src/edits/step.js';
import { PatchtxError } from '../../src/index.js';
import path from 'node:path';
import { applyPatch, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, commitCount, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

type Form = 'v4a' | 'ops' | 'aider' | 'unified';

/** A step of each form that edits the file at `p`, as written. */
function stepNaming(form: Form, p: string): Step {
  switch (form) {
    case 'v4a':
      return v4a(`*** Update File: ${p}`, '@@', '-x', '+y');
    case 'ops':
      return { ops: [{ op: 'str_replace', path: p, old: 'x', new: 'y' }] };
    case 'aider':
      return `${p}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n`;
    case 'unified':
      return `diff --git a/${p} b/${p}\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-x\n+y\n`;
  }
}

/** The path the step's hunk names, or the error it is refused with. */
function outcome(form: Form, p: string): string | PatchtxError {
  try {
    return parseStep(stepNaming(form, p)).patch.hunks[0]!.path;
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
}

const FORMS: Form[] = ['v4a', 'ops', 'aider', 'unified'];

describe('paths: one policy for every input', () => {
  it.each(FORMS)("%s: a path naming a directory is refused, 'sub/a.txt/.' included", (form) => {
    for (const p of ['sub/a.txt/.', 'sub/a.txt/', 'sub/', './', 'sub/./']) {
      const e = outcome(form, p);
      expect(e, `${form} ${p}`).toBeInstanceOf(PatchtxError);
      expect((e as PatchtxError).kind, p).toBe('path_rejected');
      expect((e as PatchtxError).message, p).toMatch(/names a directory/);
    }
  });

  it.each(FORMS)('%s: the .git directory in any spelling git refuses on checkout', (form) => {
    for (const p of ['.git/config', '.GIT/config', 'sub/.Git/hooks/x', '.git /x', '.git./x', 'GIT~1/config', '.git::$INDEX_ALLOCATION/x', '.g\u200cit/x']) {
      const e = outcome(form, p);
      expect(e, `${form} ${p}`).toBeInstanceOf(PatchtxError);
      expect((e as PatchtxError).kind).toBe('path_rejected');
      expect((e as PatchtxError).message).toMatch(/names the \.git directory/);
    }
  });

  it.each(FORMS)("%s: '..' is refused", (form) => {
    const e = outcome(form, 'sub/../a.txt');
    expect((e as PatchtxError).kind).toBe('path_rejected');
    expect((e as PatchtxError).message).toMatch(/'\.\.' segment/);
  });

  it.each(FORMS)("%s: repeated '/' are one, as git apply takes them", (form) => {
    expect(outcome(form, 'sub//a.txt')).toBe('sub/a.txt');
  });

  it.each(['v4a', 'ops', 'aider'] as Form[])("%s: '.' segments before the last are dropped (models write ./src/x)", (form) => {
    expect(outcome(form, './a.txt')).toBe('a.txt');
    expect(outcome(form, 'sub/./a.txt')).toBe('sub/a.txt');
    expect(outcome(form, './sub//./a.txt')).toBe('sub/a.txt');
  });

  it("unified: a '.' segment is refused, as git apply refuses it", () => {
    for (const p of ['./a.txt', 'sub/./a.txt']) {
      const e = outcome('unified', p);
      expect((e as PatchtxError).kind, p).toBe('path_rejected');
      expect((e as PatchtxError).message, p).toMatch(/'\.' segment/);
    }
  });

  it('names that are no alias of .git are kept as they are', () => {
    for (const form of FORMS) for (const p of ['.git~1/x', 'git~2/x', '.gitignore', 'a b.txt']) expect(outcome(form, p), `${form} ${p}`).toBe(p);
  });

  it("patchtx apply refuses a V4A path 'src/math.js/.' (path_rejected), writing nothing", async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const count = commitCount(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: src/math.js/.', '@@', '-x', '+y')));
    expect(r.code).not.toBe(0);
    expect(r.json.error.kind).toBe('path_rejected');
    expect(r.json.error.message).toMatch(/'src\/math\.js\/\.' is rejected: it names a directory/);
    expect(commitCount(dir)).toBe(count);
    expectUntouched(dir, before);
  });

  it("apply_patch, whose paths are from its directory, refuses one ending with '..' (it names a directory, whatever it resolves to)", async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await applyPatch(path.join(dir, 'src'), v4a('*** Update File: math.js/x/..', '@@', '-  return a + b;', '+  return a - b;'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/names a directory \(it ends with '\.\.'\)/);
    expectUntouched(dir, before);
  });
});
