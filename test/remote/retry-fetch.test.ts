// What `apply --push --retry` fetches from a smart-HTTP server (git http-backend on loopback) after
// a lost lease: only what the server gained since the commit the lost push was built on, and, for
// the notes merge, only the notes after the remote's notes last merged here. The local branch and
// notes ref hold commits the server has never seen; were they the only commits named to the server,
// it would find nothing in common and send the whole history each time. What the server should send
// is computed on the server with `git rev-list --objects`, and compared with the pack that came.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { useHttpHost } from '../helpers/remote.js';
import { git, gitOk, rev } from '../helpers/repos.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const NOTES = 'refs/notes/patchtx';
/** commits (each with a note) on the server before the clone */
const HISTORY = 20;

const host = useHttpHost();

/** The packs of a repository, by name. */
const packs = (gitdir: string): Set<string> => new Set(readdirSync(path.join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.idx')));

/** The objects of the pack that came into `gitdir` since `before` with `oid` in it (none: an empty list). */
function packWith(gitdir: string, before: Set<string>, oid: string): string[] {
  for (const p of packs(gitdir)) {
    if (before.has(p)) continue;
    const objects = git(gitdir, 'verify-pack', '-v', path.join(gitdir, 'objects', 'pack', p))
      .split('\n')
      .filter((l) => /^[0-9a-f]{40} /.test(l))
      .map((l) => l.slice(0, 40));
    if (objects.includes(oid)) return objects.sort();
  }
  return [];
}

/** The objects the server has in `want`'s history and not in `have`'s. */
const objectsBetween = (bare: string, want: string, have: string): string[] =>
  git(bare, 'rev-list', '--objects', want, `^${have}`)
    .trim()
    .split('\n')
    .map((l) => l.slice(0, 40))
    .sort();

/** A bare repository NAME.git on the server that takes pushes, and a new repository to seed it from. */
function serverRepo(name: string): { bare: string; seed: string } {
  const bare = path.join(host().root, `${name}.git`);
  git(host().root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true');
  const seed = path.join(tempDir(), 'seed');
  git(host().root, 'init', '-q', '-b', 'main', seed);
  return { bare, seed };
}

/** Another clone lands a commit and a note of its own on the server. */
async function otherBotPushes(url: string, file: string): Promise<{ commit: string; notes: string }> {
  const other = path.join(tempDir(), 'other');
  await gitOk(host().root, 'clone', '-q', url, other);
  await gitOk(other, 'fetch', '-q', 'origin', `${NOTES}:${NOTES}`);
  writeFileSync(path.join(other, file), 'theirs\n');
  git(other, 'add', file);
  const who = ['-c', 'user.name=Other', '-c', 'user.email=o@example.invalid'];
  git(other, ...who, 'commit', '-q', '-m', `other bot: ${file}`);
  git(other, ...who, 'notes', '--ref', 'patchtx', 'add', '-m', `note of ${file}`, 'HEAD');
  await gitOk(other, 'push', '-q', 'origin', 'main', NOTES);
  return { commit: rev(other), notes: rev(other, NOTES) };
}

it("a retry fetches only what the server gained since the lost push's base, and the notes merge only the notes after the last merged", async () => {
  const { bare, seed } = serverRepo('history');
  for (let i = 0; i < HISTORY; i++) {
    writeFileSync(path.join(seed, `f${i}.txt`), `file ${i}\n`);
    git(seed, 'add', `f${i}.txt`);
    git(seed, '-c', 'user.name=Seed', '-c', 'user.email=s@example.invalid', 'commit', '-q', '-m', `seed ${i}`);
    git(seed, '-c', 'user.name=Seed', '-c', 'user.email=s@example.invalid', 'notes', '--ref', 'patchtx', 'add', '-m', `note ${i}`, 'HEAD');
  }
  git(seed, 'push', '-q', bare, 'main', NOTES);
  const url = `${host().base}history.git`;
  const clone = path.join(tempDir(), 'bot');
  await gitOk(host().root, 'clone', '-q', url, clone);
  await gitOk(clone, 'fetch', '-q', 'origin', `${NOTES}:${NOTES}`);
  git(clone, 'config', 'user.name', 'Bot');
  git(clone, 'config', 'user.email', 'bot@example.invalid');
  const gitdir = path.join(clone, '.git');

  // round 1: the branch moved on the server since the clone; the patch is applied again onto it
  const base1 = rev(bare, 'main');
  const theirs1 = await otherBotPushes(url, 'b.txt');
  let before = packs(gitdir);
  const r1 = await patchtxJson('apply', '--repo', clone, '--push', '--retry', '2', patchFile(v4a('*** Add File: c.txt', '+bot one')));
  expect(r1.code, r1.out + r1.err).toBe(0);
  expect(r1.json.retries).toBe(1);
  expect(r1.json.notes).toBe('pushed');
  // the branch's pack: the other bot's commit and its objects, no more
  expect(packWith(gitdir, before, theirs1.commit)).toEqual(objectsBetween(bare, theirs1.commit, base1));
  // the notes pushed: one commit on top of the other bot's notes, with both notes in its tree
  expect(git(bare, 'rev-list', '--parents', '-n', '1', NOTES).trim().split(' ').slice(1)).toEqual([theirs1.notes]);

  // round 2: both moved again; the notes merged in round 1 tell the server what is here
  const base2 = rev(bare, 'main');
  const theirs2 = await otherBotPushes(url, 'd.txt');
  before = packs(gitdir);
  const r2 = await patchtxJson('apply', '--repo', clone, '--push', '--retry', '2', patchFile(v4a('*** Add File: e.txt', '+bot two')));
  expect(r2.code, r2.out + r2.err).toBe(0);
  expect(r2.json.retries).toBe(1);
  expect(r2.json.notes).toBe('pushed');
  expect(packWith(gitdir, before, theirs2.commit)).toEqual(objectsBetween(bare, theirs2.commit, base2));
  expect(packWith(gitdir, before, theirs2.notes)).toEqual(objectsBetween(bare, theirs2.notes, theirs1.notes));
  // and nothing was lost on the way: every commit's note is on the server
  for (const c of git(bare, 'rev-list', 'main').trim().split('\n')) expect(git(bare, 'notes', '--ref', 'patchtx', 'list', c).trim()).not.toBe('');
  expectFsckClean(bare);
  expectFsckClean(clone);
});

it('a retry after the remote branch was deleted stops as stale, saying so: the fetch finds no such ref, and nothing is pushed', async () => {
  const { bare, seed } = serverRepo('deleted');
  writeFileSync(path.join(seed, 'a.txt'), 'one\n');
  git(seed, 'add', 'a.txt');
  git(seed, '-c', 'user.name=Seed', '-c', 'user.email=s@example.invalid', 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'main:main', 'main:bot');
  const clone = path.join(tempDir(), 'bot');
  await gitOk(host().root, 'clone', '-q', '--bare', `${host().base}deleted.git`, clone);
  git(clone, 'config', 'user.name', 'Bot');
  git(clone, 'config', 'user.email', 'bot@example.invalid');
  git(bare, 'update-ref', '-d', 'refs/heads/bot');
  const r = await patchtxJson('apply', '--repo', clone, '--ref', 'bot', '--push', '--retry', '2', patchFile(v4a('*** Add File: b.txt', '+two')));
  expect(r.code, r.out + r.err).toBe(5);
  expect(r.json.error.kind).toBe('stale');
  expect(r.json.error.message).toContain('no longer exists');
  expect(git(bare, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');
  expectFsckClean(bare);
});
