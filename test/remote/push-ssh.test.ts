// apply --push, push and --retry against a remote reached over ssh (`ssh://host/path` and git's
// scp-like `host:path`), through git's own ssh transport: the same lease as over HTTP. No ssh
// server runs here, so GIT_SSH_COMMAND names a stand-in for the ssh client that runs on this
// machine what git asks the remote host to run (git's receive-pack and upload-pack, for real) and
// records the host it was asked for; GIT_SSH_VARIANT=simple keeps git from passing ssh options.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson, useBuiltCli } from '../helpers/cli.js';
import { git, gitAsync, gitEnv, rev } from '../helpers/repos.js';
import { addLine, anotherBotPushes, localHost, seededRemote } from '../helpers/remote.js';
import { tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

useBuiltCli();

/** where the stand-in records each host it was asked to reach */
let hostsLog: string;
const SSH_VARS = ['GIT_SSH_COMMAND', 'GIT_SSH_VARIANT', 'GIT_SSH'] as const;
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
  writeFileSync(stand, `#!/bin/sh\n# ssh HOST COMMAND, run here\nprintf '%s\\n' "$1" >> '${hostsLog}'\nshift\nexec sh -c "$*"\n`);
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
