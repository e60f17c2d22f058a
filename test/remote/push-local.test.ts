// apply --push, push and --retry against a remote on this machine (a path, as `git clone /srv/x.git`
// configures it, or a file:// URL), through git's local transport: the same lease as over HTTP.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupScratch();
  cleanupBuiltCli();
});

/** A bare repository with one commit on main, and a clone of it by path. */
function setup(): { bare: string; clone: string } {
  const root = tempDir();
  const bare = path.join(root, 'server.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const seed = path.join(root, 'seed');
  git(root, 'init', '-q', '-b', 'main', seed);
  writeFileSync(path.join(seed, 'a.txt'), 'one\n');
  git(seed, 'add', 'a.txt');
  git(seed, 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'main');
  const clone = path.join(root, 'clone');
  git(root, 'clone', '-q', bare, clone);
  git(clone, 'config', 'user.name', 'Bot');
  git(clone, 'config', 'user.email', 'bot@example.invalid');
  return { bare, clone };
}

const addLine = (line: string) => patchFile(v4a('*** Update File: a.txt', '@@', ' one', `+${line}`));

function otherClonePushes(bare: string): string {
  const other = path.join(tempDir(), 'other');
  git(path.dirname(other), 'clone', '-q', bare, other);
  writeFileSync(path.join(other, 'b.txt'), 'theirs\n');
  git(other, 'add', 'b.txt');
  git(other, '-c', 'user.name=Other', '-c', 'user.email=o@example.invalid', 'commit', '-q', '-m', 'other');
  git(other, 'push', '-q', 'origin', 'main');
  return rev(other);
}

describe('a remote on this machine', () => {
  it('apply --push to a clone-by-path origin lands the commit and its note', async () => {
    const { bare, clone } = setup();
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code).toBe(0);
    const commit = rev(clone);
    expect(rev(bare, 'main')).toBe(commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', commit)).toContain('+two');
    expect(rev(clone, 'refs/remotes/origin/main')).toBe(commit);
    expectFsckClean(bare);
  });

  it('push to a file:// URL lands; a lost lease is stale and leaves the remote as it was', async () => {
    const { bare, clone } = setup();
    expect((await patchtxJson('apply', '--repo', clone, addLine('two'))).code).toBe(0);
    const pushed = await patchtxJson('push', `file://${bare}`, '--repo', clone, '--expect', rev(bare, 'main'));
    expect(pushed.code).toBe(0);
    expect(rev(bare, 'main')).toBe(rev(clone));
    const theirs = otherClonePushes(bare);
    const lost = await patchtxJson('apply', '--repo', clone, addLine('three'), '--push');
    expect(lost.code).toBe(5);
    expect(lost.json.error.kind).toBe('stale');
    expect(rev(bare, 'main')).toBe(theirs);
  });

  it('--retry applies the patch again onto the moved branch and lands on top of it', async () => {
    const { bare, clone } = setup();
    const theirs = otherClonePushes(bare);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push', '--retry', '2');
    expect(r.code).toBe(0);
    const tip = rev(bare, 'main');
    expect(git(bare, 'rev-parse', `${tip}~1`).trim()).toBe(theirs);
    expect(git(bare, 'show', `${tip}:a.txt`)).toBe('one\ntwo\n');
    expectFsckClean(bare);
  });
});
