// A server that refuses a push for its own reasons (a pre-receive or update hook declining it) has
// not moved the branch: the refusal is an error that names the server's reason, not a lost lease
// (`stale` tells a bot to fetch and try again, and `--retry` would apply the patches again onto
// the very same tip, to be refused again). Over HTTP and to a remote on this machine alike, as
// `git push` reports "[remote rejected] main -> main (pre-receive hook declined)", after the lines
// the hook printed ("remote: ...").
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, localHost, seededRemote, type RemoteHost, useHttpHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const http = useHttpHost();

/** Installs a server-side hook that prints `said` and refuses every push. */
function refuseWith(bare: string, hook: 'pre-receive' | 'update', said: string): void {
  const file = path.join(bare, 'hooks', hook);
  writeFileSync(file, `#!/bin/sh\necho "${said}" >&2\nexit 1\n`);
  chmodSync(file, 0o755);
}

describe.each([
  ['over HTTP', http],
  ['to a path', (): RemoteHost => localHost()],
])('a server that refuses the push %s', (_how, host) => {
  it('is an io_error naming its reason, not stale, and --retry does not apply the patch again', async () => {
    const { bare, clone } = await seededRemote(host());
    refuseWith(bare, 'pre-receive', 'policy: no pushes today');
    const before = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push', '--retry', '2');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.kind).toBe('io_error');
    expect(r.json.error.message).toContain('pre-receive hook declined');
    // what the hook said, as git push shows it
    expect(r.json.error.message).toContain('remote: policy: no pushes today');
    expect(r.json.error.output).toBe('remote: policy: no pushes today');
    expect(r.json.error.message).not.toMatch(/no longer at|fetch, and apply again/);
    // one commit, made once: no retry moved the branch back and applied the patch again
    const reflog = git(clone, 'reflog', '--format=%gs', 'refs/heads/main');
    expect(reflog).not.toContain('retry');
    expect(rev(clone, 'HEAD~1')).toBe(before);
    expect(git(clone, 'show', 'HEAD:a.txt')).toBe('one\ntwo\n');
    expect(rev(bare, 'main')).toBe(before);
    expectFsckClean(bare);
  });

  it('push: an update hook declining is an io_error too, the server unchanged', async () => {
    const { bare, clone } = await seededRemote(host());
    refuseWith(bare, 'update', 'not this branch');
    const before = rev(bare, 'main');
    expect((await patchtxJson('apply', '--repo', clone, addLine('two'))).code).toBe(0);
    const r = await patchtxJson('push', '--repo', clone);
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error).toMatchObject({ kind: 'io_error', ref: 'refs/heads/main' });
    expect(r.json.error.message).toContain('hook declined');
    expect(r.json.error.output).toContain('remote: not this branch');
    expect(rev(bare, 'main')).toBe(before);
    // the remote-tracking ref stays where the remote is
    expect(rev(clone, 'refs/remotes/origin/main')).toBe(before);
  });
});
