// Pushing a branch the remote does not have yet, and remote-tracking refs as git maps them: git
// push creates a branch the remote never had, and finds a remote's tracking refs through its
// fetch refspec (a remote named team/up; a bare clone, which has none).
import { beforeEach, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, seededRemote, type SharedRemote, useHttpHost } from '../helpers/remote.js';
import { git, gitOk, rev } from '../helpers/repos.js';
import { tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';
import path from 'node:path';

const host = useHttpHost();

let setup: SharedRemote;
beforeEach(async () => {
  setup = await seededRemote(host());
});

describe('apply --push onto a branch the remote does not have', () => {
  it('creates it, as git push does, from the checked-out branch', async () => {
    git(setup.clone, 'checkout', '-q', '-b', 'feat');
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('feat'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ ref: 'refs/heads/feat', previous: null, commit: r.lines[0].commit });
    expect(rev(setup.bare, 'refs/heads/feat')).toBe(r.lines[0].commit);
    expect(rev(setup.clone, 'refs/remotes/origin/feat')).toBe(r.lines[0].commit);
    expectFsckClean(setup.bare);
  });

  it('creates it with --ref and --base, and with --retry', async () => {
    const main = rev(setup.clone);
    const r = await patchtxJson('apply', '--repo', setup.clone, '--ref', 'refs/heads/newb', '--base', 'main', addLine('newb'), '--push', '--retry', '2');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ ref: 'refs/heads/newb', previous: null });
    expect(r.json.retries).toBeUndefined();
    expect(rev(setup.bare, 'refs/heads/newb')).toBe(r.lines[0].commit);
    expect(rev(setup.bare, 'refs/heads/newb~1')).toBe(main);
    expect(rev(setup.bare, 'main')).toBe(main);
  });

  it('is refused when the remote has the branch, which this clone has not fetched: nothing is overwritten', async () => {
    // another clone creates feat on the remote first
    const other = path.join(tempDir(), 'other');
    await gitOk(path.dirname(other), 'clone', '-q', setup.url, other);
    git(other, '-c', 'user.name=Other', '-c', 'user.email=o@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'theirs');
    await gitOk(other, 'push', '-q', 'origin', 'HEAD:refs/heads/feat');
    const theirs = rev(other);
    git(setup.clone, 'checkout', '-q', '-b', 'feat');
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('feat'), '--push');
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.json.error).toMatchObject({ kind: 'stale', expected: null, actual: theirs });
    expect(rev(setup.bare, 'refs/heads/feat')).toBe(theirs);
  });
});

const refExists = (dir: string, ref: string): boolean => git(dir, 'for-each-ref', '--format=%(refname)', ref).trim() === ref;

describe("remote-tracking refs, through the remote's fetch refspec", () => {
  it('a remote named team/up leases on refs/remotes/team/up/main and moves it', async () => {
    const clone = path.join(tempDir(), 'team');
    await gitOk(path.dirname(clone), 'clone', '-q', '-o', 'team/up', setup.url, clone);
    git(clone, 'config', 'user.name', 'Bot');
    git(clone, 'config', 'user.email', 'bot@example.invalid');
    expect(refExists(clone, 'refs/remotes/team/up/main')).toBe(true);
    const a = await patchtxJson('apply', '--repo', clone, addLine('team'));
    expect(a.code, a.out + a.err).toBe(0);
    const r = await patchtxJson('push', 'team/up', '--repo', clone);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ remote: 'team/up', previous: a.json.parent, commit: a.json.commit });
    expect(rev(setup.bare, 'main')).toBe(a.json.commit);
    expect(rev(clone, 'refs/remotes/team/up/main')).toBe(a.json.commit);
    const b = await patchtxJson('apply', '--repo', clone, addLine('team again'), '--push', 'team/up');
    expect(b.code, b.out + b.err).toBe(0);
    expect(rev(clone, 'refs/remotes/team/up/main')).toBe(b.lines[0].commit);
  });

  it('a fetch refspec mapping branches elsewhere is followed', async () => {
    git(setup.clone, 'config', '--replace-all', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/mirror/*');
    git(setup.clone, 'update-ref', 'refs/remotes/mirror/main', 'refs/remotes/origin/main');
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('mirror'));
    const r = await patchtxJson('push', '--repo', setup.clone);
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(setup.clone, 'refs/remotes/mirror/main')).toBe(a.json.commit);
  });
});

describe('a bare clone (no fetch refspec, so no remote-tracking refs)', () => {
  let bareClone: string;
  beforeEach(async () => {
    bareClone = path.join(tempDir(), 'bare-clone.git');
    await gitOk(path.dirname(bareClone), 'clone', '-q', '--bare', setup.url, bareClone);
    git(bareClone, 'config', 'user.name', 'Bot');
    git(bareClone, 'config', 'user.email', 'bot@example.invalid');
  });

  it('apply --push leases on the commit the patch was built on, and writes no remote-tracking ref', async () => {
    const r = await patchtxJson('apply', '--repo', bareClone, '--ref', 'main', addLine('bare'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(setup.bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bareClone, 'for-each-ref', '--format=%(refname)', 'refs/remotes/').trim()).toBe('');
  });

  it('push without --expect says there is no remote-tracking ref to lease against', async () => {
    const a = await patchtxJson('apply', '--repo', bareClone, '--ref', 'main', addLine('bare'));
    expect(a.code, a.out + a.err).toBe(0);
    const r = await patchtxJson('push', '--repo', bareClone, '--ref', 'main');
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.json.error).toMatchObject({ kind: 'stale', expected: null, actual: a.json.parent });
    expect(r.json.error.message).toContain('no remote-tracking ref');
    expect(r.json.error.message).toContain('--expect');
    expect(r.json.error.message).not.toContain('apply again');
    expect(rev(setup.bare, 'main')).toBe(a.json.parent);
    const ok = await patchtxJson('push', '--repo', bareClone, '--ref', 'main', '--expect', a.json.parent);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(rev(setup.bare, 'main')).toBe(a.json.commit);
  });
});
