// apply --push, push and --retry against a remote reached over ssh (`ssh://host/path` and git's
// scp-like `host:path`), through git's own ssh transport: the same lease as over HTTP. No ssh
// server runs here, so GIT_SSH_COMMAND names a stand-in for the ssh client that runs on this
// machine what git asks the remote host to run (git's receive-pack and upload-pack, for real) and
// records the host it was asked for; GIT_SSH_VARIANT=simple keeps git from passing ssh options.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson, runCli, useBuiltCli } from '../helpers/cli.js';
import { git, gitAsync, gitEnv, rev } from '../helpers/repos.js';
import { addLine, anotherBotPushes, localHost, seededRemote } from '../helpers/remote.js';
import { tempDir } from '../helpers/scratch.js';
import { waitFor } from '../helpers/schedule.js';
import { expectFsckClean } from '../helpers/snapshot.js';

useBuiltCli();

/** where the stand-in records each host it was asked to reach */
let hostsLog: string;
const SSH_VARS = ['GIT_SSH_COMMAND', 'GIT_SSH_VARIANT', 'GIT_SSH', 'SSH_STAND_IN_HOME'] as const;
const saved = new Map<string, string | undefined>();

/** Sets an ssh variable for patchtx (this process) and for the git the tests run. */
function setSsh(name: (typeof SSH_VARS)[number], value: string): void {
  process.env[name] = value;
  gitEnv[name] = value;
}

beforeAll(() => {
  for (const k of SSH_VARS) saved.set(k, process.env[k]);
  const dir = tempDir();
  hostsLog = path.join(dir, 'hosts.log');
  const stand = path.join(dir, 'ssh');
  writeFileSync(
    stand,
    `#!/bin/sh\n# ssh HOST COMMAND, run here\nprintf '%s\\n' "$1" >> '${hostsLog}'\nshift\ncd "\${SSH_STAND_IN_HOME:-.}"\nexec sh -c "$*"\n`,
  );
  chmodSync(stand, 0o755);
  setSsh('GIT_SSH_COMMAND', stand);
  setSsh('GIT_SSH_VARIANT', 'simple');
});
afterAll(() => {
  for (const k of SSH_VARS) {
    const v = saved.get(k);
    if (v === undefined) {
      delete process.env[k];
      delete gitEnv[k];
    } else {
      process.env[k] = gitEnv[k] = v;
    }
  }
});

/** The ssh variables as set for the tests, for a program run with an environment of its own. */
const sshEnv = (): Record<string, string> => Object.fromEntries(SSH_VARS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])));

const hostsAsked = (): string[] => (existsSync(hostsLog) ? readFileSync(hostsLog, 'utf8').split('\n').filter(Boolean) : []);

/** A bare repository with one commit on main, and a clone of it whose origin is `url(bare)`. */
async function sshRemote(url: (bare: string) => string): Promise<{ bare: string; clone: string; url: string }> {
  const { bare, clone } = await seededRemote(localHost());
  git(clone, 'remote', 'set-url', 'origin', url(bare));
  expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
  return { bare, clone, url: url(bare) };
}

describe('a remote over ssh', () => {
  it.each([
    ['ssh://', (bare: string) => `ssh://build-host${bare}`],
    ['host:path', (bare: string) => `build-host:${bare}`],
  ])('apply --push to an %s origin lands the commit and its note, through ssh', async (_kind, url) => {
    const { bare, clone } = await sshRemote(url);
    const asked = hostsAsked().length;
    const r = await patchtxJson('apply', '--repo', clone, addLine('over ssh'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    const commit = rev(clone);
    expect(rev(bare, 'main')).toBe(commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', commit)).toContain('+over ssh');
    expect(rev(clone, 'refs/remotes/origin/main')).toBe(commit);
    // the push went through the ssh command, to the host the URL names
    expect(hostsAsked().slice(asked)).toContain('build-host');
    expectFsckClean(bare);
  });

  it('a lost lease is stale and leaves the remote as it was', async () => {
    const { bare, clone } = await sshRemote((b) => `build-host:${b}`);
    const theirs = await anotherBotPushes(bare);
    const lost = await patchtxJson('apply', '--repo', clone, addLine('three'), '--push');
    expect(lost.code, lost.out + lost.err).toBe(5);
    expect(lost.json.error.kind).toBe('stale');
    expect(rev(bare, 'main')).toBe(theirs);
  });

  it('--retry fetches over ssh, applies the patch again onto the moved branch and lands on top of it', async () => {
    const { bare, clone } = await sshRemote((b) => `ssh://build-host${b}`);
    const theirs = await anotherBotPushes(bare);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push', '--retry', '2');
    expect(r.code, r.out + r.err).toBe(0);
    const tip = rev(bare, 'main');
    expect(git(bare, 'rev-parse', `${tip}~1`).trim()).toBe(theirs);
    expect(git(bare, 'show', `${tip}:a.txt`)).toBe('one\ntwo\n');
    expectFsckClean(bare);
  });

  it('`patchtx push host:repo.git` (no slash in the path) pushes over ssh, as git push does', async () => {
    const { bare, clone } = await sshRemote((b) => `ssh://build-host${b}`);
    expect((await patchtxJson('apply', '--repo', clone, addLine('scp'))).code).toBe(0);
    // a path without a slash is taken from the login directory on the host: the stand-in's
    setSsh('SSH_STAND_IN_HOME', path.dirname(bare));
    try {
      const r = await patchtxJson('push', `build-host:${path.basename(bare)}`, '--repo', clone, '--expect', rev(bare, 'main'));
      expect(r.code, r.out + r.err).toBe(0);
    } finally {
      delete process.env.SSH_STAND_IN_HOME;
      delete gitEnv.SSH_STAND_IN_HOME;
    }
    expect(rev(bare, 'main')).toBe(rev(clone));
  });

  it("ssh's warnings are not taken for the cause, and a password in the URL is never shown", async () => {
    const { bare, clone } = await sshRemote((b) => `ssh://build-host${b}`);
    const head = rev(bare, 'main');
    const stand = process.env.GIT_SSH_COMMAND!;
    const failing = path.join(path.dirname(hostsLog), 'ssh-refuses');
    // as OpenSSH: a warning, then a refusal naming the host as it was given (user:password@host)
    writeFileSync(
      failing,
      `#!/bin/sh\necho "Warning: Permanently added 'build-host' (ED25519) to the list of known hosts." >&2\necho "$1: Permission denied (publickey)." >&2\nexit 255\n`,
    );
    chmodSync(failing, 0o755);
    git(clone, 'remote', 'set-url', 'origin', `ssh://bot:s3cret@build-host${bare}`);
    setSsh('GIT_SSH_COMMAND', failing);
    try {
      for (const args of [
        ['push', '--repo', clone, '--expect', head],
        ['apply', '--repo', clone, addLine('never'), '--push'],
      ]) {
        const r = await patchtxJson(...args);
        expect(r.code, r.out + r.err).toBe(74);
        expect(r.json.error.message).toMatch(/Permission denied \(publickey\)/);
        expect(r.json.error.message).not.toMatch(/Warning: /);
        expect(r.out + r.err).not.toContain('s3cret');
      }
    } finally {
      setSsh('GIT_SSH_COMMAND', stand);
    }
    expect(rev(bare, 'main')).toBe(head);
  });

  it('a push that never reaches the remote is not said to be refused by it', async () => {
    const { bare, clone } = await sshRemote((b) => `ssh://build-host${b}`);
    const head = rev(bare, 'main');
    expect((await patchtxJson('apply', '--repo', clone, addLine('lost'))).code).toBe(0);
    // the listing gets through, the push itself does not: the repository is gone meanwhile
    const release = path.join(tempDir(), 'go');
    const run = runCli(['push', '--repo', clone, '--expect', head, '--json'], {
      env: { PATCHTX_TEST_PAUSE_AT: 'push-advertised', PATCHTX_TEST_PAUSE_UNTIL: release, ...sshEnv() },
    });
    await waitFor(() => existsSync(`${release}.held`), 'the push to list the remote');
    renameSync(bare, `${bare}.moved`);
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stdout + r.stderr).toBe(74);
    const error = JSON.parse(r.stdout.trim().split('\n').pop()!).error;
    expect(error.kind).toBe('io_error');
    expect(error.message).not.toMatch(/refused/);
    expect(error.message).toMatch(/does not appear to be a git repository/);
  });

  it('an ssh that cannot connect is an io_error naming the remote, and nothing reaches it', async () => {
    const { bare, clone } = await sshRemote((b) => `ssh://build-host${b}`);
    const head = rev(bare, 'main');
    const stand = process.env.GIT_SSH_COMMAND!;
    setSsh('GIT_SSH_COMMAND', 'false');
    try {
      const r = await patchtxJson('push', '--repo', clone, '--expect', head);
      expect(r.code, r.out + r.err).toBe(74);
      expect(r.json.error.kind).toBe('io_error');
      expect(r.json.error.message).toContain('ssh://build-host');
      // git's own line saying what failed, not its closing advice
      expect(r.json.error.message).toMatch(/: fatal: Could not read from remote repository\.$/);
    } finally {
      setSsh('GIT_SSH_COMMAND', stand);
    }
    expect(rev(bare, 'main')).toBe(head);
  });
});
