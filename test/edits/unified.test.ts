// Unified diffs as patches: diffs made by the real `git diff` (renames with -M, new and deleted
// files, a missing final newline, a mode change) and by `diff -u` are given to `git apply --check`
// and to patchtx on the same repository state; both must agree on whether each applies (including
// diffs that must not apply), and where it applies the tree patchtx commits must be the one
// `git apply` leaves in the working tree.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const numbered = (from: number, to: number, prefix = 'line'): string => Array.from({ length: to - from + 1 }, (_, i) => `${prefix} ${from + i}\n`).join('');

/** A checkout whose second commit holds the files the diffs are made against. */
function baseRepo(): string {
  const dir = makeRepo('empty');
  const put = (p: string, content: string): void => {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), content);
  };
  put('long.txt', numbered(1, 40));
  put('lib/keep.js', 'function keep() {\n\treturn 1;\n}\n\nfunction other() {\n\treturn 2;\n}\n');
  put('lib/old-name.js', 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n');
  put('gone.txt', 'to be deleted\nsecond line\n');
  put('tail.txt', 'no newline at the end');
  put('crlf.txt', 'one\r\ntwo\r\nthree\r\n');
  put('script.sh', '#!/bin/sh\necho hi\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

/** The diff `change` makes to a copy of `dir` (staged, as `git diff --cached ARGS` prints it). */
function gitDiffOf(dir: string, change: (copy: string) => void, ...args: string[]): string {
  const copy = path.join(tempDir(), 'copy');
  cpSync(dir, copy, { recursive: true });
  change(copy);
  git(copy, 'add', '-A');
  return git(copy, 'diff', '--cached', ...args);
}

/** `diff -u` of one file, with paths `a/NAME` and `b/NAME` as `diff -ru a b` prints them. */
function plainDiffOf(name: string, before: string, after: string): string {
  const d = tempDir();
  mkdirSync(path.join(d, 'a', path.dirname(name)), { recursive: true });
  mkdirSync(path.join(d, 'b', path.dirname(name)), { recursive: true });
  writeFileSync(path.join(d, 'a', name), before);
  writeFileSync(path.join(d, 'b', name), after);
  const r = spawnSync('diff', ['-u', `a/${name}`, `b/${name}`], { cwd: d, encoding: 'utf8' });
  expect(r.status).toBe(1); // 1: the files differ
  return r.stdout;
}

interface Outcome {
  applies: boolean;
  tree?: string;
  error?: string;
}

/** What `git apply` does with `diff` on a copy of `dir`: whether --check passes, and the tree then. */
function byGit(dir: string, diff: string): Outcome {
  const copy = path.join(tempDir(), 'git');
  cpSync(dir, copy, { recursive: true });
  const file = patchFile(diff);
  const check = gitTry(copy, 'apply', '--check', file);
  if (check.status !== 0) return { applies: false, error: check.stderr };
  git(copy, 'apply', file);
  git(copy, 'add', '-A');
  return { applies: true, tree: git(copy, 'write-tree').trim() };
}

/** What patchtx does with `diff` on a copy of `dir`: check, then apply; the tree of its commit. */
async function byPatchtx(dir: string, diff: string): Promise<Outcome> {
  const copy = path.join(tempDir(), 'patchtx');
  cpSync(dir, copy, { recursive: true });
  const file = patchFile(diff);
  const before = snapshot(copy);
  const checked = await patchtxJson('check', '--repo', copy, file);
  const applied = await patchtxJson('apply', '--repo', copy, file);
  expect(applied.code).toBe(checked.code);
  if (applied.code !== 0) {
    expectUntouched(copy, before);
    return { applies: false, error: applied.json.error.message };
  }
  expect(commitCount(copy)).toBe(commitCount(dir) + 1);
  expect(git(copy, 'status', '--porcelain')).toBe('');
  expectFsckClean(copy);
  return { applies: true, tree: git(copy, 'rev-parse', 'HEAD^{tree}').trim() };
}

async function expectAgreement(dir: string, diff: string, applies: boolean): Promise<void> {
  const g = byGit(dir, diff);
  const p = await byPatchtx(dir, diff);
  expect({ applies: p.applies, tree: p.tree }, `git apply: ${g.error ?? 'applies'}\npatchtx: ${p.error ?? 'applies'}`).toEqual({
    applies: g.applies,
    tree: g.tree,
  });
  expect(g.applies).toBe(applies);
}

describe('unified diffs: patchtx and git apply agree', () => {
  it('edits in several hunks of several files, a CRLF file and a tab-indented one', async () => {
    const dir = baseRepo();
    const diff = gitDiffOf(dir, (c) => {
      writeFileSync(path.join(c, 'long.txt'), numbered(1, 40).replace('line 3\n', 'line three\n').replace('line 30\n', 'line 30\nline 30.5\n'));
      writeFileSync(path.join(c, 'lib/keep.js'), 'function keep() {\n\treturn 10;\n}\n\nfunction other() {\n\treturn 2;\n}\n');
      writeFileSync(path.join(c, 'crlf.txt'), 'one\r\n2\r\nthree\r\n');
    });
    expect(diff).toContain('@@ -1,6 +1,6 @@');
    await expectAgreement(dir, diff, true);
  });

  it('a rename with edits (-M), a new file and a deleted file', async () => {
    const dir = baseRepo();
    const diff = gitDiffOf(
      dir,
      (c) => {
        rmSync(path.join(c, 'lib/old-name.js'));
        writeFileSync(path.join(c, 'lib/new-name.js'), 'export const a = 1;\nexport const b = 20;\nexport const c = 3;\nexport const d = 4;\n');
        rmSync(path.join(c, 'gone.txt'));
        writeFileSync(path.join(c, 'added.md'), '# added\n');
      },
      '-M',
    );
    expect(diff).toContain('rename from lib/old-name.js');
    expect(diff).toContain('new file mode 100644');
    expect(diff).toContain('deleted file mode 100644');
    await expectAgreement(dir, diff, true);
    // the rename is recorded as one
    const copy = path.join(tempDir(), 'r');
    cpSync(dir, copy, { recursive: true });
    expect((await patchtxJson('apply', '--repo', copy, patchFile(diff))).json.files).toContainEqual({
      path: 'lib/new-name.js',
      op: 'R',
      from: 'lib/old-name.js',
    });
  });

  it('a pure rename, and a mode change', async () => {
    const dir = baseRepo();
    const diff = gitDiffOf(
      dir,
      (c) => {
        mkdirSync(path.join(c, 'moved'));
        git(c, 'mv', 'gone.txt', 'moved/gone.txt');
        chmodSync(path.join(c, 'script.sh'), 0o755);
      },
      '-M',
    );
    expect(diff).toContain('similarity index 100%');
    expect(diff).toContain('new mode 100755');
    await expectAgreement(dir, diff, true);
  });

  it('a missing final newline added, kept and removed', async () => {
    const dir = baseRepo();
    const adds = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'tail.txt'), 'no newline at the end\n'));
    const keeps = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'tail.txt'), 'first\nno newline at the end'));
    const removes = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'gone.txt'), 'to be deleted\nsecond line'));
    for (const diff of [adds, keeps, removes]) expect(diff).toContain('\\ No newline at end of file');
    await expectAgreement(dir, adds, true);
    await expectAgreement(dir, keeps, true);
    await expectAgreement(dir, removes, true);
  });

  it('diff -u output, applied at an offset when lines were added above', async () => {
    const dir = baseRepo();
    const diff = plainDiffOf('long.txt', numbered(1, 40), numbered(1, 40).replace('line 20\n', 'line twenty\n'));
    expect(diff).toMatch(/^--- a\/long\.txt/);
    await expectAgreement(dir, diff, true);
    // five lines added at the top since: the hunk is found five lines further down
    writeFileSync(path.join(dir, 'long.txt'), numbered(1, 5, 'new') + numbered(1, 40));
    git(dir, 'commit', '-q', '-am', 'grow');
    await expectAgreement(dir, diff, true);
  });

  it('diff -u of a file against its backup copy patches the file the +++ line names, as git apply does', async () => {
    const dir = baseRepo();
    const d = tempDir();
    writeFileSync(path.join(d, 'long.txt.orig'), numbered(1, 40));
    writeFileSync(path.join(d, 'long.txt'), numbered(1, 40).replace('line 7\n', 'line seven\n'));
    const plain = spawnSync('diff', ['-u', 'long.txt.orig', 'long.txt'], { cwd: d, encoding: 'utf8' }).stdout;
    expect(plain).toMatch(/^--- long\.txt\.orig\t/);
    await expectAgreement(dir, plain, true);
    // with a directory in front of each name, the first component goes (-p1)
    await expectAgreement(dir, plain.replace('--- long.txt.orig', '--- old/long.txt.orig').replace('+++ long.txt', '+++ new/long.txt'), true);
    // lib/keep.js named as such loses `lib/`: keep.js is not there, for git as for patchtx
    const nested = plainDiffOf('keep.js', 'function keep() {\n\treturn 1;\n}\n', 'function keep() {\n\treturn 3;\n}\n')
      .replace(/a\/keep\.js/, 'lib/keep.js')
      .replace(/b\/keep\.js/, 'lib/keep.js');
    await expectAgreement(dir, nested, false);
  });

  it('diffs that must not apply: changed context, applied twice, a new file that exists, a deleted file that differs', async () => {
    const dir = baseRepo();
    const edit = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'long.txt'), numbered(1, 40).replace('line 10\n', 'line ten\n')));
    const add = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'script2.sh'), 'new\n'));
    const del = gitDiffOf(dir, (c) => rmSync(path.join(c, 'gone.txt')));
    const zero = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'long.txt'), numbered(1, 40).replace('line 10\n', 'line 10\nline 10.5\n')), '-U0');
    // the repository moves on: the edited line's context changes, the new file appears, the deleted one is edited
    writeFileSync(path.join(dir, 'long.txt'), numbered(1, 40).replace('line 11\n', 'line eleven\n'));
    writeFileSync(path.join(dir, 'script2.sh'), 'already here\n');
    writeFileSync(path.join(dir, 'gone.txt'), 'to be deleted\nsecond line\nthird line\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'moved on');
    await expectAgreement(dir, edit, false);
    await expectAgreement(dir, add, false);
    await expectAgreement(dir, del, false);
    // a hunk without context (-U0) must match at the end of the file: git puts the line there
    await expectAgreement(dir, zero, true);

    // applied twice: the second time its old lines are gone
    const again = gitDiffOf(dir, (c) =>
      writeFileSync(path.join(c, 'lib/keep.js'), 'function keep() {\n\treturn 11;\n}\n\nfunction other() {\n\treturn 2;\n}\n'),
    );
    const r = await patchtxJson('apply', '--repo', dir, patchFile(again));
    expect(r.code).toBe(0);
    // sent again at once, it is a re-run of the tip's patch (same Patch-Id): a success that writes nothing
    const rerun = await patchtxJson('apply', '--repo', dir, patchFile(again));
    expect(rerun.json.alreadyApplied).toBe(r.json.commit);
    // once the branch has moved on, the diff no longer applies, for git as for patchtx
    writeFileSync(path.join(dir, 'other.txt'), 'other\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'other');
    await expectAgreement(dir, again, false);
  });

  it('apply_patch, the Codex drop-in, keeps to V4A: a unified diff is a parse error there', async () => {
    const dir = baseRepo();
    const diff = gitDiffOf(dir, (c) => writeFileSync(path.join(c, 'tail.txt'), 'changed\n'));
    const before = snapshot(dir);
    const r = await applyPatch(dir, diff);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Invalid patch');
    expectUntouched(dir, before);
  });

  it('a diff that fails in its second file writes nothing, and names the file and the hunk', async () => {
    const dir = baseRepo();
    const diff = gitDiffOf(dir, (c) => {
      writeFileSync(path.join(c, 'crlf.txt'), 'one\r\ntwo\r\n3\r\n');
      writeFileSync(path.join(c, 'long.txt'), numbered(1, 40).replace('line 10\n', 'line ten\n'));
    });
    writeFileSync(path.join(dir, 'long.txt'), numbered(1, 40).replace('line 9\n', 'line nine\n'));
    git(dir, 'commit', '-q', '-am', 'moved on');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(diff));
    expect(r.code).toBe(1);
    expect(r.json.error.kind).toBe('context_not_found');
    expect(r.json.error.path).toBe('long.txt');
    expect(r.json.error.message).toMatch(/^file 2 of the diff: patch does not apply to long\.txt/);
    expect(r.json.error.line).toBe(diff.split('\n').findIndex((l) => l.startsWith('@@') && diff.indexOf(l) > diff.indexOf('long.txt')) + 1);
    expectUntouched(dir, before);
    expect(rev(dir)).toBe(before.head);
  });
});
