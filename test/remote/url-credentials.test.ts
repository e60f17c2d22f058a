// A remote whose URL carries its credentials (https://bot:TOKEN@host/repo.git, as CI jobs often
// configure origin) never has them printed: the push's `url`, its messages and its errors show the
// URL without them, as git push shows "To http://host/repo.git". A token in a CI log is a leak.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { fetchRef } from '../../src/git/remote/fetch.js';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost, type SharedRemote } from '../helpers/remote.js';
import { git, gitAsync, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';

const PASSWORD = 'tok3n-s3cret';
let host: RemoteHost;

beforeAll(async () => {
  isolateGitEnv();
  host = await httpHost({ user: 'bot', password: PASSWORD });
});
afterAll(async () => {
  await host.close();
  cleanupScratch();
});

/** A remote behind the server, and a clone whose origin has the credentials (or wrong ones) in its URL. */
async function cloneWithCredentialsInUrl(password = PASSWORD): Promise<SharedRemote & { origin: string }> {
  const store = path.join(tempDir(), 'credentials');
  writeFileSync(store, `http://bot:${PASSWORD}@${new URL(host.base!).host}\n`);
  const remote = await seededRemote(host, { cloneConfig: [`credential.helper=store --file=${store}`] });
  const origin = remote.url.replace('http://', `http://bot:${password}@`);
  git(remote.clone, 'remote', 'set-url', 'origin', origin);
  return { ...remote, origin };
}

describe('a remote URL with credentials in it', () => {
  it('lands the push, and neither its JSON nor its text shows the password', async () => {
    const { bare, clone, url } = await cloneWithCredentialsInUrl();
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(rev(clone));
    expect(r.json.url).toBe(url);
    expect(r.out + r.err).not.toContain(PASSWORD);
    const text = await patchtx('push', '--repo', clone);
    expect(text.code, text.out + text.err).toBe(0);
    expect(text.out + text.err).not.toContain(PASSWORD);
  });

  it('a refusal by the server does not show it either, as git push does not', async () => {
    const { bare, clone } = await cloneWithCredentialsInUrl();
    const hook = path.join(bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho no >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.message).toContain('pre-receive hook declined');
    expect(r.out + r.err).not.toContain(PASSWORD);
    const byGit = await gitAsync(clone, 'push', 'origin', 'main');
    expect(byGit.status).not.toBe(0);
    expect(byGit.stdout + byGit.stderr).not.toContain(PASSWORD);
  });

  it('wrong credentials in it: the 401 error does not show them', async () => {
    const { clone } = await cloneWithCredentialsInUrl('wrong-pass');
    const r = await patchtxJson('push', '--repo', clone, '--expect', 'none');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.message).toMatch(/HTTP 401/);
    expect(r.out + r.err).not.toContain('wrong-pass');
  });

  it("a URL given on the command line: the result's remote and its text do not show them", async () => {
    const { bare, clone, origin, url } = await cloneWithCredentialsInUrl();
    git(clone, 'remote', 'set-url', 'origin', url);
    const a = await patchtxJson('apply', '--repo', clone, addLine('two'));
    expect(a.code, a.out + a.err).toBe(0);
    const r = await patchtxJson('push', origin, '--repo', clone, '--expect', a.json.parent);
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(a.json.commit);
    expect(r.json.remote).toBe(url);
    expect(r.out + r.err).not.toContain(PASSWORD);
    const b = await patchtxJson('apply', '--repo', clone, addLine('three'));
    const text = await patchtx('push', origin, '--repo', clone, '--expect', b.json.parent);
    expect(text.code, text.out + text.err).toBe(0);
    expect(text.out).toContain(`to ${url}`);
    expect(text.out + text.err).not.toContain(PASSWORD);
  });

  it('a fetch that fails does not show them', async () => {
    const { clone, origin } = await cloneWithCredentialsInUrl();
    const missing = origin.replace(/server\d+\.git$/, 'missing.git');
    const error = await fetchRef({ gitdir: path.join(clone, '.git'), url: missing, ref: 'refs/heads/main' }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(PatchtxError);
    expect((error as Error).message).toContain(missing.replace(`bot:${PASSWORD}@`, ''));
    expect((error as Error).message).not.toContain(PASSWORD);
  });
});
