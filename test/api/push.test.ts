// The library's push against a real smart-HTTP server (git http-backend on loopback): repo.push()
// lands the branch and its notes under a lease as `patchtx push` does, a moved remote branch is
// `stale` with the server unchanged, and apply's `push` option pushes after the commit, applying
// the patch again onto a moved tip with `retries`, as `apply --push --retry N`. The results are
// the objects the CLI prints with --json; bad options are `usage` before anything is written.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRepository, type Repository } from '../../src/index.js';
import { patchtxJson } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { anotherBotPushes, httpHost, seededRemote, type RemoteHost, type SharedRemote } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

let host: RemoteHost;
let remote: SharedRemote;
let repo: Repository;

beforeAll(async () => {
  isolateGitEnv();
  host = await httpHost();
});
afterAll(async () => {
  await host.close();
  cleanupScratch();
});
beforeEach(async () => {
  remote = await seededRemote(host);
  repo = await openRepository({ dir: remote.clone });
});

const lineAfterOne = (line: string) => v4a('*** Update File: a.txt', '@@', ' one', `+${line}`);

describe('repo.push', () => {
  it('lands the branch and its note when the remote branch is where it was fetched, as patchtx push --json says', async () => {
    const seed = rev(remote.bare, 'main');
    const applied = await repo.apply(lineAfterOne('two'));
    expect(applied.pushed).toBeUndefined();
    expect(rev(remote.bare, 'main')).toBe(seed);
    const pushed = await repo.push();
    expect(pushed).toEqual({
      ok: true,
      remote: 'origin',
      url: remote.url,
      ref: 'refs/heads/main',
      commit: applied.commit,
      previous: seed,
      forced: false,
      notes: 'pushed',
      warnings: [],
    });
    expect(rev(remote.bare, 'main')).toBe(applied.commit);
    expect(git(remote.bare, 'notes', '--ref', 'patchtx', 'show', applied.commit!)).toContain('+two');
    expect(rev(remote.clone, 'refs/remotes/origin/main')).toBe(applied.commit);
    expectFsckClean(remote.bare);
    // the CLI's object for the next push has the same fields
    const next = await repo.apply(lineAfterOne('three'));
    const cli = await patchtxJson('push', '--repo', remote.clone);
    expect(cli.code, cli.out + cli.err).toBe(0);
    expect(Object.keys(cli.json).sort()).toEqual(Object.keys(pushed).sort());
    expect(cli.json).toMatchObject({ commit: next.commit, previous: applied.commit });
  });

  it('is stale when the remote branch moved, and the server is unchanged; expected and force decide instead', async () => {
    const seed = rev(remote.bare, 'main');
    const theirs = await anotherBotPushes(remote.url);
    const applied = await repo.apply(lineAfterOne('mine'));
    const e = await rejection(repo.push());
    expect(e.kind).toBe('stale');
    expect(e.data).toMatchObject({ ref: 'refs/heads/main', expected: seed, actual: theirs });
    expect(rev(remote.bare, 'main')).toBe(theirs);
    expect(rev(remote.clone)).toBe(applied.commit);
    // a lease on the commit the remote branch is at, given: it lands over theirs
    const wrong = await rejection(repo.push({ expected: null }));
    expect(wrong.kind).toBe('stale');
    expect(rev(remote.bare, 'main')).toBe(theirs);
    const leased = await repo.push({ remote: remote.url, expected: theirs });
    expect(leased).toMatchObject({ forced: false, previous: theirs, commit: applied.commit, url: remote.url });
    expect(rev(remote.bare, 'main')).toBe(applied.commit);
    // force overwrites whatever the remote branch holds
    const again = await anotherBotPushes(remote.url, { 'c.txt': 'again\n' });
    const forced = await repo.push({ force: true });
    expect(forced).toMatchObject({ forced: true, previous: again, commit: applied.commit });
    expect(rev(remote.bare, 'main')).toBe(applied.commit);
    expectFsckClean(remote.bare);
  });

  it('refuses bad options as usage, naming them, before anything is sent', async () => {
    await repo.apply(lineAfterOne('two'));
    const before = rev(remote.bare, 'main');
    const cases: Array<[unknown, string]> = [
      [{ remote: 3 }, 'options.remote must be a string'],
      [{ expected: 'HEAD' }, 'options.expected must be a full commit id'],
      [{ force: 'yes' }, 'options.force must be a boolean'],
      [{ retries: 2 }, 'options.retries is not an option'],
      ['origin', 'options must be an object'],
      [{ remote: 'nowhere' }, "no remote named 'nowhere'"],
    ];
    for (const [options, message] of cases) {
      const e = await rejection(repo.push(options as never));
      expect(e.kind).toBe('usage');
      expect(e.message).toContain(message);
    }
    expect(rev(remote.bare, 'main')).toBe(before);
  });
});

describe("apply's push option", () => {
  it('push: true lands the commit on origin; the result is the apply object with the push object as pushed', async () => {
    const r = await repo.apply(lineAfterOne('two'), { push: true, message: 'Add two' });
    expect(r.commit).toBe(rev(remote.clone));
    expect(r.pushed).toMatchObject({ ok: true, remote: 'origin', ref: 'refs/heads/main', commit: r.commit, previous: r.parent, notes: 'pushed' });
    expect(rev(remote.bare, 'main')).toBe(r.commit);
    expect(git(remote.bare, 'log', '-1', '--format=%s', 'main').trim()).toBe('Add two');
    expect(git(remote.bare, 'notes', '--ref', 'patchtx', 'show', r.commit!)).toContain('+two');
    expectFsckClean(remote.bare);
  });

  it('a patch already applied commits nothing, and the push sends the branch as it is, as push alone', async () => {
    const first = await repo.apply(lineAfterOne('two'));
    const again = await repo.apply(lineAfterOne('two'), { push: true });
    expect(again.commit).toBeNull();
    expect(again.alreadyApplied).toBe(first.commit);
    expect(again.pushed).toMatchObject({ commit: first.commit, previous: first.parent, notes: 'pushed' });
    expect(rev(remote.bare, 'main')).toBe(first.commit);
  });

  it('without retries, a moved remote branch is stale: the commit is kept here, the server unchanged', async () => {
    const theirs = await anotherBotPushes(remote.url);
    const e = await rejection(repo.apply(lineAfterOne('mine'), { push: { remote: 'origin' } }));
    expect(e.kind).toBe('stale');
    const mine = rev(remote.clone);
    expect(e.data).toMatchObject({ committed: [mine], actual: theirs });
    expect(rev(remote.bare, 'main')).toBe(theirs);
    expect(readFileSync(path.join(remote.clone, 'a.txt'), 'utf8')).toBe('one\nmine\n');
  });

  it('with retries, from a repository opened at a subdirectory: every step, the retry too, is in that repository', async () => {
    const sub = path.join(remote.clone, 'sub');
    mkdirSync(sub);
    const fromSub = await openRepository({ dir: sub });
    const theirs = await anotherBotPushes(remote.url);
    const r = await fromSub.apply(lineAfterOne('two'), { push: { retries: 1 } });
    expect(r.pushed!.retries).toBe(1);
    expect(rev(remote.bare, 'main~1')).toBe(theirs);
    expect(rev(remote.clone)).toBe(r.pushed!.commit);
    expect(git(remote.clone, 'status', '--porcelain')).toBe('');
  });

  it('with retries, the patch is applied again onto the moved tip and lands on top of it', async () => {
    const theirs = await anotherBotPushes(remote.url);
    const r = await repo.apply(lineAfterOne('two'), { push: { retries: 2 }, message: 'Add two' });
    const pushed = r.pushed!;
    expect(pushed.retries).toBe(1);
    expect(pushed.reapplied).toHaveLength(1);
    expect(pushed.reapplied).not.toContain(r.commit);
    expect(pushed.commit).toBe(pushed.reapplied![0]);
    expect(rev(remote.bare, 'main')).toBe(pushed.commit);
    expect(rev(remote.bare, 'main~1')).toBe(theirs);
    expect(git(remote.bare, 'log', '-1', '--format=%s', 'main').trim()).toBe('Add two');
    expect(git(remote.bare, 'show', 'main:a.txt')).toBe('one\ntwo\n');
    expect(git(remote.bare, 'show', 'main:b.txt')).toBe('theirs\n');
    expect(git(remote.bare, 'notes', '--ref', 'patchtx', 'show', pushed.commit)).toContain('+two');
    // the clone follows: its branch, checkout and remote-tracking ref are the pushed commit
    expect(rev(remote.clone)).toBe(pushed.commit);
    expect(rev(remote.clone, 'refs/remotes/origin/main')).toBe(pushed.commit);
    expect(git(remote.clone, 'status', '--porcelain')).toBe('');
    expectFsckClean(remote.bare);
    expectFsckClean(remote.clone);
  });

  it('refuses a bad push option, or a remote it cannot go to, as usage before anything is committed', async () => {
    const before = snapshot(remote.clone);
    const cases: Array<[unknown, string]> = [
      ['origin', 'options.push must be true or an object'],
      [{ remote: 1 }, 'options.push.remote must be a string'],
      [{ retries: -1 }, 'options.push.retries must be a whole number of at least 0'],
      [{ retries: 101 }, 'options.push.retries must be at most 100'],
      [{ retry: 2 }, 'options.push.retry is not an option'],
      [{ force: true, retries: 1 }, 'do not go together'],
      [{ remote: 'nowhere' }, "no remote named 'nowhere'"],
    ];
    for (const [push, message] of cases) {
      const e = await rejection(repo.apply(lineAfterOne('x'), { push } as never));
      expect(e.kind).toBe('usage');
      expect(e.message).toContain(message);
    }
    const e = await rejection(repo.check(lineAfterOne('x'), { push: true } as never));
    expect(e.message).toContain('options.push is not an option');
    expectUntouched(remote.clone, before);
  });
});
