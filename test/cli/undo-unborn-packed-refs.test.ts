// An undo of a branch's first commit deletes the branch's ref, and packed-refs is part of that ref:
// while the undo deletes it, packed-refs.lock is held as git holds it, so that a `git pack-refs`
// (which `git gc` runs) cannot pack the old value back in between, and a packed-refs.lock held by
// someone else for a while is waited for (core.packedRefsTimeout), as git waits.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, type CliResult, requireBuiltCli, runCli } from '../helpers/cli.js';
import { git, gitAsync, gitTry } from '../helpers/repos.js';
import { firstByPatchtx } from '../helpers/first-commit.js';
import { waitFor } from '../helpers/schedule.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, leftoverFiles, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupBuiltCli();
  cleanupScratch();
});

/** The branch is unborn by git's reading, the checkout as before the first commit, nothing left. */
function expectUnbornAgain(dir: string, statusBefore: string): void {
  expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/main').status).not.toBe(0);
  expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
  expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
  expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
  expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  expectNoLeftovers(dir);
  expectFsckClean(dir);
}

describe('undo of a first commit while git packs refs', () => {
  it('git pack-refs between the packed-refs check and the removal of the loose ref cannot pack the old value', async () => {
    const { dir, statusBefore } = await firstByPatchtx();
    const release = path.join(dir, '..', 'release-undo');
    const undo = runCli(['undo', '--repo', dir, '--json'], { env: { PATCHTX_TEST_PAUSE_AT: 'ref-delete-checked', PATCHTX_TEST_PAUSE_UNTIL: release } });
    await waitFor(() => existsSync(`${release}.held`), 'the undo checked packed-refs');
    // git's pack-refs takes packed-refs.lock: it must find it held (and give up after its timeout)
    const pack = await gitAsync(dir, '-c', 'core.packedRefsTimeout=200', 'pack-refs', '--all');
    writeFileSync(release, '');
    const r = await undo;
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'reset', commit: null });
    expectUnbornAgain(dir, statusBefore);
    expect(pack.status, pack.stderr).not.toBe(0);
    expect(pack.stderr).toContain('packed-refs.lock');
  });
});

/**
 * An undo in `dir` that finds `lock` (someone else's packed-refs.lock) taken: it is created while
 * the undo is held with the branch's own lock taken, just before it deletes the branch, and removed
 * `holdMs` after the undo is let go.
 */
async function undoMeetingLock(dir: string, lock: string, holdMs: number): Promise<CliResult> {
  const release = path.join(dir, '..', 'release-undo');
  const undo = runCli(['undo', '--repo', dir, '--json'], { env: { PATCHTX_TEST_PAUSE_AT: 'ref-locked', PATCHTX_TEST_PAUSE_UNTIL: release } });
  await waitFor(() => existsSync(`${release}.held`), "the undo took the branch's lock");
  writeFileSync(lock, '');
  writeFileSync(release, '');
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  rmSync(lock);
  return undo;
}

describe('undo of a packed first commit while packed-refs.lock is held by someone else', () => {
  it('held briefly: the undo waits for it and lands', async () => {
    const { dir, statusBefore } = await firstByPatchtx();
    git(dir, 'pack-refs', '--all');
    const lock = path.join(dir, '.git', 'packed-refs.lock');
    const r = await undoMeetingLock(dir, lock, 300);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'reset', commit: null });
    expect(readFileSync(path.join(dir, '.git', 'packed-refs'), 'utf8')).not.toContain('refs/heads/main');
    expectUnbornAgain(dir, statusBefore);
  });

  it('held for the whole run: stale, and nothing changes', async () => {
    const { dir, first } = await firstByPatchtx();
    git(dir, 'pack-refs', '--all');
    const lock = path.join(dir, '.git', 'packed-refs.lock');
    writeFileSync(lock, 'not ours\n');
    const before = snapshot(dir);
    const r = await runCli(['undo', '--repo', dir, '--json']);
    expect(r.status, r.stdout + r.stderr).toBe(5);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale' });
    expect(JSON.parse(r.stdout).error.message).toContain('packed-refs');
    // someone else's lock is theirs: left as it was
    expect(readFileSync(lock, 'utf8')).toBe('not ours\n');
    rmSync(lock);
    expectUntouched(dir, before);
    expect(git(dir, 'rev-parse', '--verify', '-q', 'refs/heads/main').trim()).toBe(first);
    expect(git(dir, 'status', '--porcelain')).toBe('?? own.txt\n');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('core.packedRefsTimeout is how long it is waited for', async () => {
    const { dir, statusBefore } = await firstByPatchtx();
    git(dir, 'pack-refs', '--all');
    git(dir, 'config', 'core.packedRefsTimeout', '20000');
    // held past git's default second
    const r = await undoMeetingLock(dir, path.join(dir, '.git', 'packed-refs.lock'), 1500);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'reset', commit: null });
    expectUnbornAgain(dir, statusBefore);
  });
});
