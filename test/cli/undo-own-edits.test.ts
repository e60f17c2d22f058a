// Undo of a transaction that took the user's own uncommitted work in (apply_patch, --dirty=include)
// puts the working tree and the index back byte for byte as they were: edits come back as
// uncommitted edits, staged changes as staged, untracked files as untracked. Redo reverses it. A
// commit amended since patchtx made it is refused: undo would drop the amended changes too.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, cleanupBuiltCli, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, snapshot, worktreeFiles } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** What undo must bring back exactly: files, index entries, what git status says. */
const checkoutState = (dir: string) => ({
  files: worktreeFiles(dir),
  index: git(dir, 'ls-files', '-s'),
  status: git(dir, 'status', '--porcelain=v1', '--untracked-files=all'),
});

/** A checkout with every kind of uncommitted work on the paths PATCH touches, and some beside. */
function dirtyCheckout(kind: 'basic' | 'packed' = 'basic'): string {
  const dir = makeRepo(kind);
  const w = (p: string, text: string): void => writeFileSync(path.join(dir, p), text);
  w('README.md', '# Sample\n\nedited, not staged\n');
  w('src/math.js', 'export function add(a, b) {\n  return a + b; // staged\n}\n');
  git(dir, 'add', 'src/math.js');
  w('src/math.js', 'export function add(a, b) {\n  return a + b; // staged\n}\n// and more, not staged\n');
  w('docs/notes.txt', 'notes\nedited, then deleted by the patch\n');
  w('loose.txt', 'untracked, then added by the patch\n');
  w('src/util/name.js', 'export const name = "beside the patch";\n');
  return dir;
}

const PATCH = v4a(
  '*** Update File: README.md',
  '@@',
  '-# Sample',
  '+# Title',
  '*** Update File: src/math.js',
  '@@',
  '-export function add(a, b) {',
  '+export function add(a, b, c) {',
  '*** Delete File: docs/notes.txt',
  '*** Add File: loose.txt',
  '+added',
);

describe('undo of a transaction that took uncommitted work in', () => {
  it('apply_patch: undo puts the working tree and index back byte for byte; redo brings the commit back', async () => {
    const dir = dirtyCheckout();
    const base = rev(dir);
    const before = checkoutState(dir);
    const r = await applyPatch(dir, PATCH);
    expect(r.code, r.err).toBe(0);
    const commit = rev(dir);
    const after = checkoutState(dir);
    expect(after.status).toBe(' M src/util/name.js\n');

    const undo = await patchtxJson('undo', '--repo', dir);
    expect(undo.code, undo.out).toBe(0);
    expect(rev(dir)).toBe(base);
    expect(checkoutState(dir)).toEqual(before);
    expectFsckClean(dir);
    expectNoLeftovers(dir);

    const redo = await patchtxJson('redo', '--repo', dir);
    expect(redo.code, redo.out).toBe(0);
    expect(rev(dir)).toBe(commit);
    expect(checkoutState(dir)).toEqual(after);

    // and again: the record stays with the commit
    expect((await patchtxJson('undo', '--repo', dir)).code).toBe(0);
    expect(checkoutState(dir)).toEqual(before);
    expectFsckClean(dir);
  });

  it('--dirty=include, on a packed repository: the same', async () => {
    const dir = dirtyCheckout('packed');
    const before = checkoutState(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--dirty=include', patchFile(PATCH));
    expect(r.code, r.out).toBe(0);
    const after = checkoutState(dir);
    expect((await patchtxJson('undo', '--repo', dir)).code).toBe(0);
    expect(checkoutState(dir)).toEqual(before);
    expect((await patchtxJson('redo', '--repo', dir)).code).toBe(0);
    expect(checkoutState(dir)).toEqual(after);
  });

  it('redo is refused when the restored work has been changed since (it would be overwritten)', async () => {
    const dir = dirtyCheckout();
    expect((await applyPatch(dir, PATCH)).code).toBe(0);
    expect((await patchtxJson('undo', '--repo', dir)).code).toBe(0);
    writeFileSync(path.join(dir, 'README.md'), 'changed after the undo\n');
    const before = snapshot(dir);
    const redo = await patchtxJson('redo', '--repo', dir);
    expect(redo.code, redo.out).toBe(7);
    expect(redo.json.error.kind).toBe('undo_refused');
    expect(redo.json.error.paths).toEqual(['README.md']);
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('an undo that puts uncommitted work back, killed after its ref moved', () => {
  beforeAll(requireBuiltCli);
  afterAll(cleanupBuiltCli);

  it('is finished by recovery with the saved work put back', async () => {
    const dir = dirtyCheckout();
    const base = rev(dir);
    const before = checkoutState(dir);
    expect((await applyPatch(dir, PATCH)).code).toBe(0);
    const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(rev(dir)).toBe(base);
    const recovered = await runCli(['recover', '--repo', dir, '--json']);
    expect(recovered.status, recovered.stdout + recovered.stderr).toBe(0);
    expect(JSON.parse(recovered.stdout).recovered).toMatchObject({ outcome: 'finished', op: 'undo', warnings: [] });
    expect(checkoutState(dir)).toEqual(before);
    expectFsckClean(dir);
    expectNoLeftovers(dir);
  });

  it('killed while writing the files: recovery finishes them, the ones written and the ones not', async () => {
    const dir = dirtyCheckout();
    const before = checkoutState(dir);
    expect((await applyPatch(dir, PATCH)).code).toBe(0);
    const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'mid-worktree' } });
    expect(killed.signal).toBe('SIGKILL');
    const recovered = await runCli(['recover', '--repo', dir, '--json']);
    expect(recovered.status, recovered.stdout + recovered.stderr).toBe(0);
    expect(checkoutState(dir)).toEqual(before);
    expectNoLeftovers(dir);
  });
});

describe('undo of an amended commit', () => {
  it('is refused: the tree is no longer the one patchtx made, and undo would drop the amended changes', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Title')));
    expect(r.code, r.out).toBe(0);
    writeFileSync(path.join(dir, 'src/util/name.js'), 'export const name = "amended in";\n');
    git(dir, 'commit', '-q', '-a', '--amend', '--no-edit');
    const amended = rev(dir);
    expect(amended).not.toBe(r.json.commit);
    // the Patch-Id trailer survived the amend
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim()).toBe(r.json.patchId);
    const before = snapshot(dir);
    const undo = await patchtxJson('undo', '--repo', dir);
    expect(undo.code, undo.out).toBe(7);
    expect(undo.json.error.kind).toBe('undo_refused');
    expect(undo.json.error.message).toContain('amended');
    expect(undo.json.error.commit).toBe(amended);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a commit amended with its tree unchanged (a new message) is still undone', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Title')));
    expect(r.code, r.out).toBe(0);
    const message = git(dir, 'log', '-1', '--format=%B');
    git(dir, 'commit', '-q', '--amend', '-m', `Better subject\n\n${message.slice(message.indexOf('\n\n') + 2)}`);
    const undo = await patchtxJson('undo', '--repo', dir);
    expect(undo.code, undo.out).toBe(0);
    expect(rev(dir)).toBe(base);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('undo --revert of a transaction that took uncommitted work in: refused, the working tree and HEAD as they were (a revert would drop that work)', async () => {
    const dir = dirtyCheckout();
    expect((await applyPatch(dir, PATCH)).code).toBe(0);
    const commit = rev(dir);
    const after = checkoutState(dir);
    const r = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(r.code, r.out).toBe(7);
    expect(r.json.error.kind).toBe('undo_refused');
    expect(r.json.error.message).toMatch(/took in uncommitted work at .*an undo without a revert commit puts it back/);
    expect(rev(dir)).toBe(commit);
    expect(checkoutState(dir)).toEqual(after);
    // the plain undo still gives it all back
    expect((await patchtxJson('undo', '--repo', dir)).code).toBe(0);
  });

  it('a fresh git init: apply_patch takes the untracked file in; undo --revert is refused rather than deleting it', async () => {
    const dir = path.join(makeRepo('empty'), '..', 'fresh');
    git(path.dirname(dir), 'init', '-q', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'Fresh User');
    git(dir, 'config', 'user.email', 'fresh@example.invalid');
    writeFileSync(path.join(dir, 'main.py'), 'print(1)\n');
    const applied = await applyPatch(dir, v4a('*** Update File: main.py', '@@', '-print(1)', '+print(2)'));
    expect(applied.code, applied.err).toBe(0);
    const r = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(r.code, r.out).toBe(7);
    expect(r.json.error.message).toContain('main.py');
    expect(worktreeFiles(dir)).toHaveProperty(['main.py']);
    expect(git(dir, 'show', `refs/notes/patchtx:patchtx-saved/${rev(dir).slice(0, 2)}/${rev(dir).slice(2)}/worktree/main.py`)).toBe('print(1)\n');
  });
});
