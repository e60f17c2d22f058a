// The packs patchtx's fetches write (a retry's fetch of the branch's new tip, the notes fetch) are
// patchtx's own, folded with the others: a long-lived bot clone whose pushes keep losing to another
// bot does not gather one pack per fetch until git's gc. The other bot changes a larger file twice
// a round, so that the server's packs hold deltas, which a fold cannot copy as they are.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FOLD_AT } from '../../src/git/objects/pack-fold.js';
import { patchtxJson } from '../helpers/cli.js';
import { seededRemote, useHttpHost } from '../helpers/remote.js';
import { git, gitOk, gitWith } from '../helpers/repos.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const ROUNDS = 20;
/** lower than git's 50, so that the fetches' packs alone would set `git gc --auto` off */
const AUTO_PACK_LIMIT = 20;

const host = useHttpHost();

const packsOf = (gitdir: string): string[] => readdirSync(path.join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));

/** Every file name under objects/, with its size: what a gc would change. */
function objectsListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else out.push(`${r} ${readFileSync(path.join(dir, r)).length}`);
    }
  };
  walk('');
  return out;
}

it(`${ROUNDS} retries' fetches leave no more packs than a fold allows, nothing for git gc --auto, fsck clean`, { timeout: 300_000 }, async () => {
  const setup = await seededRemote(host());
  const other = path.join(tempDir(), 'other');
  await gitOk(path.dirname(other), 'clone', '-q', setup.url, other);
  const who = ['-c', 'user.name=Other', '-c', 'user.email=o@example.invalid'];
  const big = (round: number, step: number): string =>
    Array.from({ length: 200 }, (_, i) => `line ${i} of a file the other bot keeps changing${i === round ? ` (round ${round}, step ${step})` : ''}\n`).join('');
  git(setup.clone, 'config', 'gc.autoPackLimit', String(AUTO_PACK_LIMIT));
  const gitdir = path.join(setup.clone, '.git');
  const before = packsOf(gitdir).length;
  for (let round = 0; round < ROUNDS; round++) {
    for (let step = 0; step < 2; step++) {
      writeFileSync(path.join(other, 'big.txt'), big(round, step));
      git(other, 'add', 'big.txt');
      git(other, ...who, 'commit', '-q', '-m', `other bot: round ${round}, step ${step}`);
    }
    await gitOk(other, 'push', '-q', 'origin', 'main');
    const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '1', patchFile(v4a(`*** Add File: bot${round}.txt`, `+round ${round}`)));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.retries).toBe(1);
    await gitOk(other, 'pull', '-q', '--ff-only', 'origin', 'main');
  }
  // the clone's own pack, and patchtx's, fewer than a fold's bound
  expect(packsOf(gitdir).length).toBeLessThanOrEqual(before + FOLD_AT);
  const objects = path.join(gitdir, 'objects');
  const listing = objectsListing(objects);
  const counted = git(setup.clone, 'count-objects', '-v');
  gitWith(setup.clone, {}, '-c', 'gc.autoDetach=false', 'gc', '--auto');
  expect(objectsListing(objects)).toEqual(listing);
  expect(git(setup.clone, 'count-objects', '-v')).toBe(counted);
  expect(git(setup.clone, 'show', 'main:big.txt')).toBe(big(ROUNDS - 1, 1));
  expectFsckClean(setup.clone);
});
