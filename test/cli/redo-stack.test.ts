// The redo history is bookkeeping made after the commit point: whatever is left in its directory
// (the stack of a deleted branch whose name is now a prefix of another, a file where a directory
// would be, the layout of an older patchtx) must never fail a transaction whose ref has moved, nor
// its recovery. Real repositories, cross-checked with git status, git fsck and git reflog.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, cliOk, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, commonDirOf, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, leftoverFiles } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

const PA = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A');
const PB = v4a('*** Add File: b.txt', '+b');

const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

async function ok(...args: string[]): Promise<any> {
  const r = await patchtxJson(...args);
  expect(r.code, r.out + r.err).toBe(0);
  return r.json;
}

/** Applies `patch` on the checked-out branch, undoes it, and checks that redo brings it back. */
async function applyUndoRedo(dir: string, patch: string): Promise<void> {
  const before = rev(dir);
  const applied = await ok('apply', '--repo', dir, patchFile(patch));
  expect(rev(dir)).toBe(applied.commit);
  expect(applied.warnings).toEqual([]);
  const undone = await ok('undo', '--repo', dir);
  expect(undone).toMatchObject({ action: 'reset', commit: before, target: applied.commit });
  expect(undone.warnings).toBeUndefined();
  expect(rev(dir)).toBe(before);
  expect(status(dir)).toBe('');
  const redone = await ok('redo', '--repo', dir);
  expect(redone).toMatchObject({ action: 'fast-forward', commit: applied.commit });
  expect(rev(dir)).toBe(applied.commit);
  expect(status(dir)).toBe('');
}

describe('the redo history of deleted branches', () => {
  it('feat, then feat/x: the stack of feat does not stand in the way of feat/x', async () => {
    const dir = makeRepo('basic');
    git(dir, 'checkout', '-q', '-b', 'feat');
    await ok('apply', '--repo', dir, patchFile(PA));
    await ok('undo', '--repo', dir); // feat has a redo stack now
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'branch', '-q', '-D', 'feat');
    git(dir, 'checkout', '-q', '-b', 'feat/x');
    await applyUndoRedo(dir, PB);
    expect(git(dir, 'reflog', '-3', '--format=%gs', 'refs/heads/feat/x').split('\n')[0]).toMatch(/^patchtx: redo /);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('feat/x, then feat: the stack of feat/x does not stand in the way of feat', async () => {
    const dir = makeRepo('basic');
    git(dir, 'checkout', '-q', '-b', 'feat/x');
    await ok('apply', '--repo', dir, patchFile(PA));
    await ok('undo', '--repo', dir);
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'branch', '-q', '-D', 'feat/x');
    git(dir, 'checkout', '-q', '-b', 'feat');
    await applyUndoRedo(dir, PB);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('each ref has a stack of its own, kept in one file', async () => {
    const dir = makeRepo('basic');
    const a = await ok('apply', '--repo', dir, patchFile(PA));
    await ok('undo', '--repo', dir);
    git(dir, 'checkout', '-q', '-b', 'feat/x');
    const b = await ok('apply', '--repo', dir, patchFile(PB));
    await ok('undo', '--repo', dir);
    const redoDir = path.join(commonDirOf(dir), 'patchtx', 'redo');
    const files = readdirSync(redoDir, { withFileTypes: true });
    expect(files.every((f) => f.isFile())).toBe(true);
    expect(files).toHaveLength(2);
    expect((await ok('redo', '--repo', dir)).commit).toBe(b.commit);
    git(dir, 'checkout', '-q', 'main');
    expect((await ok('redo', '--repo', dir)).commit).toBe(a.commit);
  });
});

describe('a long branch name', () => {
  it('its stack still has a name the file system takes, and works', async () => {
    const dir = makeRepo('basic');
    const branch = `topic/${'x'.repeat(240)}`;
    git(dir, 'checkout', '-q', '-b', branch);
    await applyUndoRedo(dir, PA);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });
});

describe('an older layout', () => {
  it('a stack kept under the ref name as a path (redo/refs/heads/main) is read, and moved on the next change', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const applied = await ok('apply', '--repo', dir, patchFile(PA));
    // an undo that kept no stack, then the stack as an older patchtx wrote it
    git(dir, 'update-ref', 'refs/heads/main', base, applied.commit);
    git(dir, 'reset', '-q', '--hard');
    const legacy = path.join(commonDirOf(dir), 'patchtx', 'redo', 'refs', 'heads', 'main');
    mkdirSync(path.dirname(legacy), { recursive: true });
    writeFileSync(legacy, `# tx 0123456789abcdef\n${applied.commit}\n`);

    const redone = await ok('redo', '--repo', dir);
    expect(redone).toMatchObject({ action: 'fast-forward', commit: applied.commit });
    expect(rev(dir)).toBe(applied.commit);
    expect(status(dir)).toBe('');
    // the old file (and its directories) went with the change; nothing is left to redo
    expect(existsSync(path.join(commonDirOf(dir), 'patchtx', 'redo', 'refs'))).toBe(false);
    const again = await patchtxJson('redo', '--repo', dir);
    expect(again.json.error).toMatchObject({ kind: 'undo_refused', message: expect.stringMatching(/nothing to redo/) });
  });
});

describe('bookkeeping that fails after the commit point', () => {
  /** A file where the redo history's directory would be: no stack can be written or removed. */
  function blockRedoHistory(dir: string): void {
    const redoDir = path.join(commonDirOf(dir), 'patchtx', 'redo');
    rmSync(redoDir, { recursive: true, force: true });
    mkdirSync(path.dirname(redoDir), { recursive: true });
    writeFileSync(redoDir, 'not a directory\n');
  }

  it('apply and undo land, with a warning, when the redo history cannot be written', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    blockRedoHistory(dir);
    const applied = await ok('apply', '--repo', dir, patchFile(PA));
    expect(rev(dir)).toBe(applied.commit);
    expect(applied.warnings).toEqual([
      { kind: 'note', path: '', message: expect.stringMatching(/^the commit landed, but the redo history of refs\/heads\/main could not be updated: /) },
    ]);
    expect(status(dir)).toBe('');

    const undone = await ok('undo', '--repo', dir);
    expect(rev(dir)).toBe(base);
    expect(undone.warnings).toEqual([{ kind: 'note', path: '', message: expect.stringMatching(/redo history of refs\/heads\/main could not be updated/) }]);
    expect(status(dir)).toBe('');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('recovery of an undo killed after its ref moved finishes, with a warning, when the redo history cannot be written', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    await ok('apply', '--repo', dir, patchFile(PA));
    blockRedoHistory(dir);
    const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(rev(dir)).toBe(base);

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', op: 'undo', commit: base });
    expect(report.warnings).toEqual([{ kind: 'note', path: '', message: expect.stringMatching(/redo history of refs\/heads\/main could not be updated/) }]);
    // the working tree and the index are at the parent: nothing staged, nothing left to recover
    expect(status(dir)).toBe('');
    expect(git(dir, 'diff', '--cached', '--name-only', 'HEAD')).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered).toBeNull();
    expectFsckClean(dir);
  });
});
