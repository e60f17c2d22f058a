// `git gc --prune=now` (or `git prune --expire=now`) run while a transaction is between writing its
// objects and moving the branch to them: the objects are unreachable at that moment, so git would
// delete them, and the branch would then point at a commit that no longer exists (every later git
// command fails on it). Git's own commands take that risk (its manual warns against pruning "now"
// next to writers); patchtx must not: a transaction's objects, however few, are one pack, kept by
// a .keep file until the ref holds them, as git's receive-pack keeps an incoming pack.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitWith, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

async function applyAcrossGc(dir: string, patch: string): Promise<void> {
  const file = path.join(dir, '..', 'change.patch');
  writeFileSync(file, patch);
  const release = path.join(dir, '..', 'go');
  const run = runCli(['apply', '--repo', dir, file, '--json'], { env: { PATCHTX_TEST_PAUSE_AT: 'after-objects', PATCHTX_TEST_PAUSE_UNTIL: release } });
  await waitFor(() => existsSync(`${release}.held`), 'the run wrote its objects');
  git(dir, 'gc', '-q', '--prune=now');
  writeFileSync(release, '');
  const r = await run;
  expect(r.status, r.stderr + r.stdout).toBe(0);
}

function expectSound(dir: string): void {
  expect(git(dir, 'fsck', '--no-progress', '--no-dangling').trim()).toBe('');
  git(dir, 'rev-list', '--all', '--reflog', '--objects');
  expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
}

function manyFiles(n: number): string {
  let patch = '*** Begin Patch\n';
  for (let i = 0; i < n; i++) patch += `*** Add File: many/f${i}.txt\n+file ${i} made across a gc\n`;
  return patch + '*** End Patch\n';
}

const keepFiles = (dir: string): string[] => readdirSync(path.join(dir, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.keep'));

describe('git gc --prune=now between a run writing its objects and moving the branch', () => {
  it('keeps the objects of a small patch', async () => {
    const dir = makeRepo('basic');
    await applyAcrossGc(dir, '*** Begin Patch\n*** Add File: new.txt\n+made across a gc\n*** End Patch\n');
    expect(git(dir, 'cat-file', 'blob', 'HEAD:new.txt')).toBe('made across a gc\n');
    expectSound(dir);
  });

  // an object the patch makes may be stored already, unreachable (left by a run that failed, a
  // dropped stash, `git hash-object -w`): the run must keep its own copy, else the prune takes it
  for (const where of ['loose', 'in a pack without a .keep file'] as const) {
    it(`keeps an object the patch makes that was already stored ${where}, unreachable`, async () => {
      const dir = makeRepo('basic');
      const content = `made before, ${where}, and made again by the patch\n`;
      const made = path.join(dir, '..', 'made-before.txt');
      writeFileSync(made, content);
      const blob = git(dir, 'hash-object', '-w', made).trim();
      if (where !== 'loose') {
        gitWith(dir, { input: `${blob}\n` }, 'pack-objects', '-q', path.join(dir, '.git', 'objects', 'pack', 'pack'));
        git(dir, 'prune-packed');
        expect(existsSync(path.join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(false);
      }
      git(dir, 'cat-file', '-e', blob);
      await applyAcrossGc(dir, `*** Begin Patch\n*** Add File: again.txt\n+${content}*** End Patch\n`);
      expect(git(dir, 'rev-parse', 'HEAD:again.txt').trim()).toBe(blob);
      git(dir, 'cat-file', '-e', blob);
      expect(git(dir, 'cat-file', 'blob', 'HEAD:again.txt')).toBe(content);
      expectSound(dir);
    });
  }

  it('keeps the pack (a patch of many files), and leaves no .keep file behind', async () => {
    const dir = makeRepo('basic');
    await applyAcrossGc(dir, manyFiles(24));
    for (const i of [0, 23]) expect(git(dir, 'cat-file', 'blob', `HEAD:many/f${i}.txt`)).toBe(`file ${i} made across a gc\n`);
    expectSound(dir);
    expect(keepFiles(dir)).toEqual([]);
    // and the next gc takes the pack in as usual
    git(dir, 'gc', '-q', '--prune=now');
    expect(readdirSync(path.join(dir, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expectSound(dir);
  });

  for (const point of ['after-objects', 'after-ref']) {
    it(`a run killed ${point} leaves its pack kept until recovery, which releases it`, async () => {
      const dir = makeRepo('basic');
      const file = path.join(dir, '..', 'change.patch');
      writeFileSync(file, manyFiles(20));
      const killed = await runCli(['apply', '--repo', dir, file], { env: { PATCHTX_TEST_CRASH_AT: point } });
      expect(killed.signal).toBe('SIGKILL');
      expect(keepFiles(dir)).toHaveLength(1);
      // a user's own .keep stays
      const own = path.join(dir, '.git', 'objects', 'pack', 'pack-0000000000000000000000000000000000000000.keep');
      writeFileSync(own, 'kept by hand\n');
      const r = await runCli(['recover', '--repo', dir, '--json']);
      expect(r.status, r.stderr + r.stdout).toBe(0);
      expect(keepFiles(dir)).toEqual(['pack-0000000000000000000000000000000000000000.keep']);
      expect(git(dir, 'fsck', '--no-progress', '--no-dangling').trim()).toBe('');
    });
  }

  // a run killed between writing its objects and finishing: until recovery, nothing refers to
  // its objects but its journal, and a prune run meanwhile must not take them
  for (const [size, patch] of [
    ['a small patch', '*** Begin Patch\n*** Add File: new.txt\n+made before a crash\n*** End Patch\n'],
    ['a patch of many files', manyFiles(20)],
  ] as const) {
    for (const point of ['after-objects', 'after-ref']) {
      it(`${size} killed ${point}, then git gc --prune=now: recovery ends sound`, async () => {
        const dir = makeRepo('basic');
        const before = git(dir, 'rev-parse', 'HEAD').trim();
        const file = path.join(dir, '..', 'change.patch');
        writeFileSync(file, patch);
        const killed = await runCli(['apply', '--repo', dir, file], { env: { PATCHTX_TEST_CRASH_AT: point } });
        expect(killed.signal).toBe('SIGKILL');
        git(dir, 'gc', '-q', '--prune=now');
        const r = await runCli(['recover', '--repo', dir, '--json']);
        expect(r.status, r.stderr + r.stdout).toBe(0);
        const report = JSON.parse(r.stdout).recovered;
        expect(report.outcome).toBe(point === 'after-ref' ? 'finished' : 'dropped');
        if (point === 'after-ref') {
          expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
          expect(git(dir, 'notes', '--ref=patchtx', 'list', 'HEAD').trim()).not.toBe('');
          const log = await runCli(['log', '--repo', dir, '--json']);
          expect(log.status, log.stderr).toBe(0);
        } else {
          expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
        }
        expectSound(dir);
      });
    }
  }

  it('a small patch: git gc --prune=now while the run is held before its ref moves, the run killed after: recovery ends sound', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const file = path.join(dir, '..', 'change.patch');
    writeFileSync(file, '*** Begin Patch\n*** Add File: new.txt\n+made across a gc and a crash\n*** End Patch\n');
    const release = path.join(dir, '..', 'go');
    const run = runCli(['apply', '--repo', dir, file], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-publish-journal', PATCHTX_TEST_PAUSE_UNTIL: release, PATCHTX_TEST_CRASH_AT: 'after-ref' },
    });
    await waitFor(() => existsSync(`${release}.held`), 'the run published its journal');
    git(dir, 'gc', '-q', '--prune=now');
    writeFileSync(release, '');
    expect((await run).signal).toBe('SIGKILL');
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(git(dir, 'cat-file', 'blob', 'HEAD:new.txt')).toBe('made across a gc and a crash\n');
    expectSound(dir);
  });
});
