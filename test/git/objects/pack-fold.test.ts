// patchtx's own packs folded together (src/git/objects/pack-fold.ts): many transactions leave a
// handful of packs, packs that are not patchtx's (git's, the user's, a kept one, one a running
// transaction is still writing) are never touched, and a fold killed at any of its points leaves
// every object readable, the next fold clearing up what it left.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository, type Repository } from '../../../src/index.js';
import { FOLD_AT, FOLD_CRASH_POINTS, foldOwnPacks, packsToFold } from '../../../src/git/objects/pack-fold.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { waitFor } from '../../helpers/schedule.js';
import { expectFsckClean, leftoverFiles } from '../../helpers/snapshot.js';
import { openFixture } from '../util.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const packDir = (dir: string, gitdir = '.git'): string => path.join(dir, gitdir, 'objects', 'pack');
const packs = (dir: string, gitdir?: string): string[] =>
  readdirSync(packDir(dir, gitdir))
    .filter((n) => n.endsWith('.pack'))
    .sort();
const recorded = (dir: string): string[] => readdirSync(path.join(dir, '.git', 'patchtx', 'packs')).sort();

/** A patch adding `n` files under `tag/`. */
function addFiles(tag: string, n: number): string {
  let patch = '*** Begin Patch\n';
  for (let i = 0; i < n; i++) patch += `*** Add File: ${tag}/f${i}.txt\n+${tag} file ${i}\n`;
  return patch + '*** End Patch\n';
}

/** Applies `count` patches of `files` files through one repository object; returns their commits. */
async function applyMany(repo: Repository, prefix: string, count: number, files: number): Promise<string[]> {
  const commits: string[] = [];
  for (let i = 0; i < count; i++) commits.push((await repo.apply(addFiles(`${prefix}${i}`, files), { message: `${prefix} ${i}` })).commit!);
  return commits;
}

/** Every recorded pack is in the packs directory and no fold is left half done. */
function expectTidy(dir: string): void {
  const names = readdirSync(packDir(dir));
  expect(names.filter((n) => n.endsWith('.keep') || n.startsWith('tmp_'))).toEqual([]);
  for (const r of recorded(dir)) expect(names).toContain(`${r}.idx`);
  expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  expect(git(dir, 'count-objects', '-v')).toMatch(/^garbage: 0$/m);
}

describe('packsToFold', () => {
  it('folds the packs that break a geometric progression, and at least the two smallest', () => {
    expect(packsToFold([1, 1, 1, 1, 1, 1, 1, 1])).toBe(8);
    expect(packsToFold([1, 1, 1, 1, 1, 1, 1, 10_000])).toBe(7);
    // the new pack (26) is too large for the next one up (80 < 4 * 26): that one joins
    expect(packsToFold([2, 3, 5, 7, 9, 80, 1000, 100_000])).toBe(6);
    expect(packsToFold([1, 4, 16, 64, 256, 1024, 4096, 16_384])).toBe(2);
  });
});

describe('folding patchtx packs', () => {
  it('150 transactions of 20 files or more leave fewer packs than the fold threshold, every commit whole', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const commits: string[] = [];
    for (let i = 0; i < 150; i++) commits.push(...(await applyMany(repo, `t${i}-`, 1, 20 + (i % 7))));
    expect(packs(dir).length).toBeLessThan(FOLD_AT);
    expect(recorded(dir).length).toBe(packs(dir).length);
    expectFsckClean(dir);
    // every commit's tree: the files of every transaction up to it, none after
    for (const i of [0, 57, 149]) {
      const names = git(dir, 'ls-tree', '--name-only', commits[i]!).split('\n');
      expect(names.filter((n) => /^t\d+-0$/.test(n))).toHaveLength(i + 1);
      expect(git(dir, 'cat-file', 'blob', `${commits[i]}:t${i}-0/f19.txt`)).toBe(`t${i}-0 file 19\n`);
    }
    expectTidy(dir);
    expect(git(dir, '-c', 'gc.autoDetach=false', 'gc', '--auto')).toBe('');
  });

  // every transaction's pack holds all the objects it made, even one stored already (store.ts,
  // inKeptPack), so the same object may sit in several of the packs a fold takes in
  it('writes an object that several folded packs hold into the new pack once', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const same = 'the same in every transaction\n';
    for (let i = 0; i < FOLD_AT; i++) {
      await repo.apply(`*** Begin Patch\n*** Add File: same/f${i}.txt\n+${same}*** Add File: own/f${i}.txt\n+own ${i}\n*** End Patch\n`, {
        message: `same ${i}`,
      });
    }
    const blob = git(dir, 'rev-parse', 'HEAD:same/f0.txt').trim();
    const own = new Set(Array.from({ length: FOLD_AT }, (_, i) => git(dir, 'rev-parse', `HEAD:own/f${i}.txt`).trim()));
    const listed = packs(dir).map((p) => {
      const list = git(dir, 'verify-pack', '-v', path.join(packDir(dir), p.replace(/\.pack$/, '.idx')));
      return [...list.matchAll(/^([0-9a-f]{40}) (?:blob|tree|commit|tag) /gm)].map((m) => m[1]!);
    });
    // a fold took in the packs of several transactions, each of which held the shared blob
    const folded = listed.filter((ids) => ids.filter((id) => own.has(id)).length >= 2);
    expect(folded.length).toBeGreaterThan(0);
    for (const ids of folded) expect(ids.filter((id) => id === blob)).toHaveLength(1);
    for (const ids of listed) expect(new Set(ids).size).toBe(ids.length);
    // a pack holding an object twice is one `git index-pack --strict` refuses
    for (const p of packs(dir)) {
      const scratch = path.join(dir, '..', `${p}.check.idx`);
      git(dir, 'index-pack', '--strict', '-o', scratch, path.join(packDir(dir), p));
    }
    expectFsckClean(dir);
    git(dir, 'fsck', '--full', '--no-progress', '--no-dangling');
    expectTidy(dir);
  });

  it("never touches a pack that is not patchtx's, one kept, or one a running transaction writes", async () => {
    const dir = makeRepo('packed');
    // git's own pack, and one the user keeps
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'kept');
    git(dir, 'repack', '-q');
    const foreign = packs(dir);
    expect(foreign).toHaveLength(2);
    const kept = path.join(packDir(dir), foreign[1]!.replace(/\.pack$/, '.keep'));
    writeFileSync(kept, 'kept by hand\n');
    const bytes = foreign.map((n) => readFileSync(path.join(packDir(dir), n)));
    // a transaction on another branch held with its pack written and kept
    const release = path.join(dir, '..', 'go');
    const side = path.join(dir, '..', 'side.patch');
    writeFileSync(side, addFiles('side', 3));
    git(dir, 'branch', 'side');
    const held = runCli(['apply', '--repo', dir, '--ref', 'side', side, '--json'], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-objects', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    await waitFor(() => existsSync(`${release}.held`), 'the run on side wrote its pack');
    const running = recorded(dir);
    expect(running).toHaveLength(1);
    const repo = await openRepository({ dir });
    await applyMany(repo, 'main', 2 * FOLD_AT, 2);
    // folded, but not the running transaction's pack
    expect(packs(dir).length).toBeLessThan(FOLD_AT + foreign.length);
    expect(packs(dir)).toContain(`${running[0]}.pack`);
    writeFileSync(release, '');
    const r = await held;
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(git(dir, 'cat-file', 'blob', 'side:side/f2.txt')).toBe('side file 2\n');
    // git's packs and the kept one are as they were
    for (const [i, n] of foreign.entries()) expect(readFileSync(path.join(packDir(dir), n)).equals(bytes[i]!)).toBe(true);
    expect(readFileSync(kept, 'utf8')).toBe('kept by hand\n');
    expect(recorded(dir).every((r) => !foreign.includes(`${r}.pack`))).toBe(true);
    expectFsckClean(dir);
  });

  it("drops the records of packs git gc took in, and leaves git's pack as it is", async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    await applyMany(repo, 'before', FOLD_AT - 1, 2);
    git(dir, 'gc', '-q');
    const gcPacks = packs(dir);
    expect(gcPacks).toHaveLength(1);
    expect(recorded(dir)).toHaveLength(FOLD_AT - 1);
    const gcBytes = readFileSync(path.join(packDir(dir), gcPacks[0]!));
    await applyMany(repo, 'after', 1, 2);
    // the records of the packs gc removed are gone; the last transaction's pack is left, alone
    expect(recorded(dir)).toHaveLength(1);
    expect(packs(dir)).toEqual([...gcPacks, `${recorded(dir)[0]}.pack`].sort());
    expect(readFileSync(path.join(packDir(dir), gcPacks[0]!)).equals(gcBytes)).toBe(true);
    expectTidy(dir);
    expectFsckClean(dir);
  });

  for (const point of FOLD_CRASH_POINTS) {
    it(`a fold killed at ${point} leaves every object readable, and the next fold clears up`, async () => {
      const dir = makeRepo('basic');
      const repo = await openRepository({ dir });
      const commits = await applyMany(repo, 'before', FOLD_AT - 1, 2);
      const file = path.join(dir, '..', 'change.patch');
      writeFileSync(file, addFiles('killed', 2));
      const killed = await runCli(['apply', '--repo', dir, file, '--json'], { env: { PATCHTX_TEST_CRASH_AT: point } });
      expect(killed.signal).toBe('SIGKILL');
      // the transaction had landed before its fold began
      expect(git(dir, 'cat-file', 'blob', 'HEAD:killed/f1.txt')).toBe('killed file 1\n');
      expectFsckClean(dir);
      for (const [i, c] of commits.entries()) expect(git(dir, 'cat-file', 'blob', `${c}:before${i}/f0.txt`)).toBe(`before${i} file 0\n`);
      // the next transaction folds, taking over the dead fold's lock and whatever it left
      commits.push(...(await applyMany(repo, 'after', 1, 2)));
      expect(packs(dir).length).toBeLessThan(FOLD_AT);
      expectTidy(dir);
      expectFsckClean(dir);
      expect(git(dir, 'cat-file', 'blob', 'HEAD:killed/f1.txt')).toBe('killed file 1\n');
      expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(String(FOLD_AT + 3));
    });
  }
});

describe("a fold's copy of the entries", () => {
  const owner = { text: `pid=${process.pid}`, gone: () => false };

  /** FOLD_AT packs written through a store, each with a few small blobs and one of `large` bytes. */
  async function ownPacksOf(large: number): Promise<{ dir: string; store: ObjectStore; blobs: Map<string, Buffer> }> {
    const { dir, store } = await openFixture('basic');
    const blobs = new Map<string, Buffer>();
    for (let i = 0; i < FOLD_AT; i++) {
      store.beginBatch();
      const contents = [randomBytes(large), ...Array.from({ length: 5 }, (_, k) => Buffer.from(`pack ${i} small ${k}\n`))];
      for (const c of contents) blobs.set(await store.writeBlob(c), c);
      await store.flushBatch(`patchtx test ${i}`);
      await store.releaseKept();
    }
    return { dir, store, blobs };
  }

  it('copies entries larger than the pieces it reads in, and many entries a piece, byte for byte', async () => {
    // random bytes do not deflate: every pack holds an entry over a megabyte
    const { dir, store, blobs } = await ownPacksOf(1_200_000);
    const before = packs(dir);
    const result = await foldOwnPacks(store, owner);
    expect(result).toMatchObject({ packs: FOLD_AT, objects: blobs.size });
    const made = packs(dir).filter((p) => !before.includes(p));
    expect(made).toEqual([`pack-${result!.pack}.pack`]);
    git(dir, 'index-pack', '--strict', '-o', path.join(dir, '..', 'check.idx'), path.join(packDir(dir), made[0]!));
    expect(git(dir, 'verify-pack', path.join(packDir(dir), `pack-${result!.pack}.idx`))).toBe('');
    const fresh = new ObjectStore(store.repo);
    for (const [oid, content] of blobs) expect(Buffer.from(await fresh.readBlob(oid)).equals(content)).toBe(true);
    fresh.close();
    store.close();
  });

  it('refuses an entry whose bytes no longer match the CRC32 its index records', async () => {
    const { dir, store } = await ownPacksOf(2_000);
    // one byte of the first entry's compressed data, in every pack patchtx wrote
    for (const r of recorded(dir).filter((n) => n.startsWith('pack-'))) {
      const file = path.join(packDir(dir), `${r}.pack`);
      const bytes = readFileSync(file);
      chmodSync(file, 0o644);
      bytes[20] = bytes[20]! ^ 0xff;
      writeFileSync(file, bytes);
    }
    await expect(foldOwnPacks(store, owner)).rejects.toMatchObject({ kind: 'corrupt_repository', message: expect.stringMatching(/CRC32 differs/) });
    store.close();
  });
});
