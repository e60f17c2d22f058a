// A long session through one library repository object must leave the repository as healthy for
// git as it found it: after 500 transactions of mixed sizes, `git gc --auto` (which the user's next
// `git commit` runs) finds nothing to do, `git fsck` is clean and every commit holds exactly the
// files it should. Transactions write one pack each and patchtx folds its own packs
// (src/git/objects/pack-fold.ts); without the folds, git repacks at more than 50 packs.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { git, gitWith } from '../helpers/repos.js';
import { prng, seedFrom } from '../helpers/schedule.js';
import { expectFsckClean, expectNoLeftovers } from '../helpers/snapshot.js';

const SEED = seedFrom('PATCHTX_SESSION_SEED');
const work = mkdtempSync(path.join(tmpdir(), 'patchtx-session-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const blobId = (text: string): string =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0${text}`)
    .digest('hex');

/** The `git ls-tree -r` lines of a tree holding `files`, hashed: one small value per commit. */
function listingHash(files: ReadonlyMap<string, string>): string {
  const lines = [...files]
    .map(([p, text]) => `100644 blob ${blobId(text)}\t${p}`)
    // the paths are ASCII: string order is git's byte order (no name is a prefix of a directory's)
    .sort((a, b) => (a.split('\t')[1]! < b.split('\t')[1]! ? -1 : 1));
  return createHash('sha1').update(lines.join('\n')).digest('hex');
}

/** Every file and directory name under objects/, with sizes: what a gc would change. */
function objectsListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = path.join(rel, name);
      const st = statSync(path.join(dir, r));
      if (st.isDirectory()) walk(r);
      else out.push(`${r} ${st.size}`);
    }
  };
  walk('');
  return out;
}

describe('a long session through one repository object', () => {
  it('500 transactions of mixed sizes leave nothing for git gc --auto, fsck clean, every commit right', { timeout: 600_000 }, async () => {
    console.log(`long session seed: ${SEED} (replay with PATCHTX_SESSION_SEED=${SEED})`);
    const rand = prng(SEED);
    const dir = path.join(work, 'repo');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'Session User');
    git(dir, 'config', 'user.email', 'session@example.invalid');
    const files = new Map<string, string>();
    for (let d = 0; d < 10; d++) {
      mkdirSync(path.join(dir, `d${d}`));
      for (let f = 0; f < 40; f++) {
        const p = `d${d}/f${f}.txt`;
        files.set(p, `${p} v0\n`);
        writeFileSync(path.join(dir, p), files.get(p)!);
      }
    }
    git(dir, 'add', '-A');
    gitWith(dir, {}, 'commit', '-q', '-m', 'start');
    const repo = await openRepository({ dir });
    const expected: { commit: string; listing: string }[] = [];
    let big = 0;
    for (let t = 0; t < 500; t++) {
      // mostly 1-3 files, one in seven 20-40; updates of files that exist, some new files
      const n = rand() < 1 / 7 ? 20 + Math.floor(rand() * 21) : 1 + Math.floor(rand() * 3);
      if (n >= 20) big++;
      const touched = new Set<string>();
      let patch = '*** Begin Patch\n';
      while (touched.size < n) {
        const p = rand() < 0.7 ? `d${Math.floor(rand() * 10)}/f${Math.floor(rand() * 40)}.txt` : `new/t${t}/g${touched.size}.txt`;
        if (touched.has(p)) continue;
        touched.add(p);
        const text = `${p} v${t + 1}\n`;
        const old = files.get(p);
        patch += old === undefined ? `*** Add File: ${p}\n+${text}` : `*** Update File: ${p}\n@@\n-${old}+${text}`;
        files.set(p, text);
      }
      patch += '*** End Patch\n';
      const result = await repo.apply(patch, { message: `transaction ${t}` });
      expected.push({ commit: result.commit!, listing: listingHash(files) });
    }
    expect(big).toBeGreaterThan(50); // without folds, more packs than gc.autoPackLimit
    const objects = path.join(dir, '.git', 'objects');
    const before = objectsListing(objects);
    const counted = git(dir, 'count-objects', '-v');
    const packs = before.filter((n) => /\.pack \d+$/.test(n)).length;
    const loose = Number(/^count: (\d+)$/m.exec(counted)![1]);
    console.log(`after 500 transactions (${big} of 20-40 files): ${packs} packs, ${loose} loose objects`);
    gitWith(dir, {}, '-c', 'gc.autoDetach=false', 'gc', '--auto');
    expect(objectsListing(objects)).toEqual(before);
    expect(git(dir, 'count-objects', '-v')).toBe(counted);
    expectFsckClean(dir);
    expectNoLeftovers(dir);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // every commit's tree, from git
    const log = git(dir, 'log', '--format=%H', '--first-parent', 'main').trim().split('\n').reverse().slice(1);
    expect(log).toEqual(expected.map((e) => e.commit));
    for (const e of expected) {
      const lines = git(dir, 'ls-tree', '-r', e.commit).trimEnd().split('\n');
      expect(createHash('sha1').update(lines.join('\n')).digest('hex'), `the tree of ${e.commit}`).toBe(e.listing);
    }
  });
});
