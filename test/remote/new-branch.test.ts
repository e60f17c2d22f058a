// Pushing a branch the remote does not have yet, and remote-tracking refs as git maps them: git
// push creates a branch the remote never had, and finds a remote's tracking refs through its
// fetch refspec (a remote named team/up; a bare clone, which has none).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost, type SharedRemote } from '../helpers/remote.js';
import { git, gitOk, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';
import path from 'node:path';

let host: RemoteHost;

beforeAll(async () => {
  isolateGitEnv();
  requireBuiltCli();
  host = await httpHost();
});

afterAll(async () => {
  await host.close();
  cleanupScratch();
  cleanupBuiltCli();
});

let setup: SharedRemote;
beforeEach(async () => {
  setup = await seededRemote(host);
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
