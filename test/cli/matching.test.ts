// How patchtx and apply_patch treat the habits of models and the files of real repositories:
// envelope noise (a BOM), lenient matches that must re-indent and warn, already-applied patches.
// Every run is checked against the real git CLI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** A repository whose one commit holds `files` (built with the git CLI). */
function repoWith(files: Record<string, string>): string {
  const source = tempDir();
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(source, p)), { recursive: true });
    writeFileSync(path.join(source, p), text);
  }
  return makeRepo('fromdir', { source });
}

describe('envelope noise', () => {
  it('a UTF-8 BOM before *** Begin Patch is accepted', async () => {
    const dir = repoWith({ 'a.txt': 'one\ntwo\n' });
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(`\ufeff${v4a('*** Update File: a.txt', '@@', '-two', '+TWO')}`));
    expect(r.code, r.out + r.err).toBe(0);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(rev(dir, 'HEAD~1')).toBe(base);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});

const MAKEFILE = 'all: build\n\nbuild:\n\tcc -o app main.c\n\tstrip app\n';
/** The recipe written with spaces, as models often write it. */
const SPACED_RECIPE = v4a('*** Update File: Makefile', '@@', ' build:', '-    cc -o app main.c', '+    cc -O2 -o app main.c', '     strip app');
const FIXED_MAKEFILE = 'all: build\n\nbuild:\n\tcc -O2 -o app main.c\n\tstrip app\n';

function makeDryRun(dir: string): number | null {
  return spawnSync('make', ['-n', '-C', dir], { encoding: 'utf8' }).status;
}

describe('a chunk that matches only with leading whitespace ignored', () => {
  it("apply --json: the + lines get the file's tab, and warnings name the pass and the lines", async () => {
    const dir = repoWith({ Makefile: MAKEFILE });
    const r = await patchtxJson('apply', '--repo', dir, patchFile(SPACED_RECIPE));
    expect(r.code, r.out + r.err).toBe(0);
    expect(readFileSync(path.join(dir, 'Makefile'), 'utf8')).toBe(FIXED_MAKEFILE);
    expect(makeDryRun(dir)).toBe(0);
    expect(r.json.warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', path: 'Makefile', chunk: 1, pass: 'trim', fileLines: [3, 5] })]);
    expect(git(dir, 'show', 'HEAD:Makefile')).toBe(FIXED_MAKEFILE);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('apply (text): the warning goes to stderr', async () => {
    const dir = repoWith({ Makefile: MAKEFILE });
    const r = await patchtx('apply', '--repo', dir, patchFile(SPACED_RECIPE));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      /^warning: Makefile: chunk 1 \(patch line 3\) matched lines 3-5 only with leading and trailing whitespace ignored \(pass 'trim'\); its \+ lines were re-indented/m,
    );
    expect(r.out).toContain('M Makefile');
  });

  it('--strict refuses it: nothing is written', async () => {
    const dir = repoWith({ Makefile: MAKEFILE });
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--strict', '--repo', dir, patchFile(SPACED_RECIPE));
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ kind: 'context_not_found', path: 'Makefile', chunk: 1, candidates: [3] });
    expect(r.json.error.message).toContain('strict');
    expectUntouched(dir, before);
  });

  it("apply_patch in a repository: Codex's text on stdout, the warning on stderr", async () => {
    const dir = repoWith({ Makefile: MAKEFILE });
    const r = await applyPatch(dir, SPACED_RECIPE);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM Makefile\n');
    expect(r.err).toMatch(/^warning: Makefile: chunk 1 .* only with leading and trailing whitespace ignored/);
    expect(readFileSync(path.join(dir, 'Makefile'), 'utf8')).toBe(FIXED_MAKEFILE);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('apply_patch outside a repository: the same', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'Makefile'), MAKEFILE);
    const r = await applyPatch(dir, SPACED_RECIPE);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM Makefile\n');
    expect(r.err).toMatch(/^warning: Makefile: chunk 1 .* re-indented/);
    expect(readFileSync(path.join(dir, 'Makefile'), 'utf8')).toBe(FIXED_MAKEFILE);
    expect(makeDryRun(dir)).toBe(0);
  });
});

describe('re-applying the patch the branch tip was made from', () => {
  const APPEND = v4a('*** Update File: log.txt', '@@', '+second entry');

  it('is a success with alreadyApplied and nothing written; --allow-reapply applies it again', async () => {
    const dir = repoWith({ 'log.txt': 'first entry\n' });
    const first = await patchtxJson('apply', '--repo', dir, patchFile(APPEND));
    expect(first.code, first.out).toBe(0);
    const tip = rev(dir);
    expect(first.json.commit).toBe(tip);
    const before = snapshot(dir);

    const again = await patchtxJson('apply', '--repo', dir, patchFile(APPEND));
    expect(again.code, again.out).toBe(0);
    expect(again.json).toMatchObject({ ok: true, alreadyApplied: tip, commit: null, noop: true, files: [] });
    expect(again.json.patchId).toBe(first.json.patchId);
    expectUntouched(dir, before);
    expect(readFileSync(path.join(dir, 'log.txt'), 'utf8')).toBe('first entry\nsecond entry\n');

    // the same in text, and for check; spelled differently (CRLF, a fence) it is still the same patch
    const text = await patchtx('apply', '--repo', dir, patchFile('```\n' + APPEND.replace(/\n/g, '\r\n') + '```\n'));
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(`already applied`);
    expect(text.out).toContain(tip.slice(0, 7));
    expect((await patchtxJson('check', '--repo', dir, patchFile(APPEND))).json).toMatchObject({ alreadyApplied: tip, checked: true });
    expectUntouched(dir, before);

    const forced = await patchtxJson('apply', '--allow-reapply', '--repo', dir, patchFile(APPEND));
    expect(forced.code, forced.out).toBe(0);
    expect(forced.json.alreadyApplied).toBeUndefined();
    expect(rev(dir, 'HEAD~1')).toBe(tip);
    expect(readFileSync(path.join(dir, 'log.txt'), 'utf8')).toBe('first entry\nsecond entry\nsecond entry\n');
    expectFsckClean(dir);
  });

  it('only the tip counts: a patch applied further back is applied again', async () => {
    const dir = repoWith({ 'log.txt': 'first entry\n' });
    expect((await patchtxJson('apply', '--repo', dir, patchFile(APPEND))).code).toBe(0);
    expect((await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: other.txt', '+x')))).code).toBe(0);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(APPEND));
    expect(r.json.alreadyApplied).toBeUndefined();
    expect(r.json.commit).toBe(rev(dir));
  });

  it('apply_patch run twice with the same patch writes it once', async () => {
    const dir = repoWith({ 'log.txt': 'first entry\n' });
    expect((await applyPatch(dir, APPEND)).code).toBe(0);
    const tip = rev(dir);
    const r = await applyPatch(dir, APPEND);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM log.txt\n');
    expect(r.err).toContain(`already applied`);
    expect(rev(dir)).toBe(tip);
    expect(readFileSync(path.join(dir, 'log.txt'), 'utf8')).toBe('first entry\nsecond entry\n');
  });

  it('the same patch again after the user put the file back: applied again, not taken as already applied', async () => {
    const dir = repoWith({ 'c.py': 'x = 1\ny = 2\n' });
    const patch = v4a('*** Update File: c.py', '@@', '-x = 1', '+x = 100');
    expect((await applyPatch(dir, patch)).code).toBe(0);
    const first = rev(dir);
    writeFileSync(path.join(dir, 'c.py'), 'x = 1\ny = 2\n');
    const r = await applyPatch(dir, patch);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('already applied');
    expect(readFileSync(path.join(dir, 'c.py'), 'utf8')).toBe('x = 100\ny = 2\n');
    // the file already holds the tip's content again: nothing to commit, the checkout is clean
    expect(rev(dir)).toBe(first);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('an @@ header restated behind the cursor', () => {
  // the file's class line has a typographic dash; the patch restates it with an ASCII hyphen
  const FILE = 'class T \u2013 x:\n    def first():\n        pass\n    def second():\n        pass\n';
  const PATCH = v4a(
    '*** Update File: t.py',
    '@@ class T \u2013 x:',
    '@@     def first():',
    '-        pass',
    '+        return 1',
    '@@ class T - x:',
    '@@     def second():',
    '-        pass',
    '+        return 2',
  );

  it('found only with punctuation folded: --strict refuses it and nothing is written; without it, a warning', async () => {
    const dir = repoWith({ 't.py': FILE });
    const before = snapshot(dir);
    const strict = await patchtxJson('apply', '--strict', '--repo', dir, patchFile(PATCH));
    expect(strict.code, strict.out + strict.err).toBe(1);
    expect(strict.json.error).toMatchObject({ kind: 'context_not_found', path: 't.py', chunk: 2, candidates: [1] });
    expect(strict.json.error.message).toContain('strict');
    expectUntouched(dir, before);

    const r = await patchtxJson('apply', '--repo', dir, patchFile(PATCH));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', path: 't.py', chunk: 2, pass: 'fold', fileLines: [1, 1] })]);
    expect(git(dir, 'show', 'HEAD:t.py')).toBe(FILE.replace('pass', 'return 1').replace('pass', 'return 2'));
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
