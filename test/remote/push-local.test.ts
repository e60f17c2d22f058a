// apply --push, push and --retry against a remote on this machine (a path, as `git clone /srv/x.git`
// configures it, or a file:// URL), through git's local transport: the same lease as over HTTP.
import { describe, expect, it } from 'vitest';
import { patchtxJson, useBuiltCli } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { addLine, anotherBotPushes, localHost, seededRemote, type SharedRemote } from '../helpers/remote.js';
import { expectFsckClean } from '../helpers/snapshot.js';

useBuiltCli();

/** A bare repository with one commit on main, and a clone of it by path. */
const setup = (): Promise<SharedRemote> => seededRemote(localHost());

describe('a remote on this machine', () => {
  it('apply --push to a clone-by-path origin lands the commit and its note', async () => {
    const { bare, clone } = await setup();
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code).toBe(0);
    const commit = rev(clone);
    expect(rev(bare, 'main')).toBe(commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', commit)).toContain('+two');
    expect(rev(clone, 'refs/remotes/origin/main')).toBe(commit);
    expectFsckClean(bare);
  });

  it('push to a file:// URL lands; a lost lease is stale and leaves the remote as it was', async () => {
    const { bare, clone } = await setup();
    expect((await patchtxJson('apply', '--repo', clone, addLine('two'))).code).toBe(0);
    const pushed = await patchtxJson('push', `file://${bare}`, '--repo', clone, '--expect', rev(bare, 'main'));
    expect(pushed.code).toBe(0);
    expect(rev(bare, 'main')).toBe(rev(clone));
    const theirs = await anotherBotPushes(bare);
    const lost = await patchtxJson('apply', '--repo', clone, addLine('three'), '--push');
    expect(lost.code).toBe(5);
    expect(lost.json.error.kind).toBe('stale');
    expect(rev(bare, 'main')).toBe(theirs);
  });

  it('--retry applies the patch again onto the moved branch and lands on top of it', async () => {
    const { bare, clone } = await setup();
    const theirs = await anotherBotPushes(bare);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push', '--retry', '2');
    expect(r.code).toBe(0);
    const tip = rev(bare, 'main');
    expect(git(bare, 'rev-parse', `${tip}~1`).trim()).toBe(theirs);
    expect(git(bare, 'show', `${tip}:a.txt`)).toBe('one\ntwo\n');
    expectFsckClean(bare);
  });
});
