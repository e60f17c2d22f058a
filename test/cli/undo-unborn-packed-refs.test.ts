// An undo of a branch's first commit deletes the branch's ref, and packed-refs is part of that ref:
// while the undo deletes it, packed-refs.lock is held as git holds it, so that a `git pack-refs`
// (which `git gc` runs) cannot pack the old value back in between.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, gitAsync, leftoverFiles, requireBuiltCli, runCli, waitFor } from '../helpers/cli.js';
import { cleanupScratch, expectFsckClean, expectNoLeftovers, g, gTry, isolateGitEnv, patchFile, patchtxJson, tempDir, v4a } from './support.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupBuiltCli();
  cleanupScratch();
});

/** A repository whose first commit patchtx made (main is a loose ref), and the status before it. */
async function firstByPatchtx(): Promise<{ dir: string; first: string; statusBefore: string }> {
  const dir = path.join(tempDir(), 'repo');
  g(tempDir(), 'init', '-q', '-b', 'main', dir);
  g(dir, 'config', 'user.name', 'First User');
  g(dir, 'config', 'user.email', 'first@fixtures.invalid');
  writeFileSync(path.join(dir, 'own.txt'), 'own\n');
  const statusBefore = g(dir, 'status', '--porcelain', '--untracked-files=all');
  const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a', '*** Add File: d/b.txt', '+b')));
  expect(r.code, r.out).toBe(0);
  return { dir, first: r.json.commit, statusBefore };
}

/** The branch is unborn by git's reading, the checkout as before the first commit, nothing left. */
function expectUnbornAgain(dir: string, statusBefore: string): void {
  expect(gTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/main').status).not.toBe(0);
  expect(g(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
  expect(g(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
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
