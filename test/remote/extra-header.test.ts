// http.extraHeader, as CI checkouts write it (an Authorization header carrying the job's token), is
// sent with every request of a push and of its fetches, as git sends it; http.<url>.extraHeader
// only to the URLs it matches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import path from 'node:path';
import { git, gitAsync, gitOk, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';

const TOKEN = 'Bearer ci-job-t0ken';
let host: RemoteHost;

beforeAll(async () => {
  isolateGitEnv();
  host = await httpHost(undefined, { name: 'Authorization', value: TOKEN });
});
afterAll(async () => {
  await host.close();
  cleanupScratch();
});

/** A remote that wants the header, and a clone of it made with the header given. */
const remoteWithHeader = () => seededRemote(host, { cloneConfig: [`http.extraHeader=Authorization: ${TOKEN}`] });

describe('http.extraHeader', () => {
  it('is sent with the push, as git sends it', async () => {
    const { bare, clone } = await remoteWithHeader();
    git(clone, 'config', 'http.extraHeader', `Authorization: ${TOKEN}`);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+two');
    // without it, git itself is refused
    git(clone, 'config', '--unset-all', 'http.extraHeader');
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).not.toBe(0);
  });

  it('http.<url>.extraHeader is sent to the URLs it matches, and with the fetch of a retry', async () => {
    const { bare, clone, url } = await remoteWithHeader();
    git(clone, 'config', `http.${host.base}.extraHeader`, `Authorization: ${TOKEN}`);
    git(clone, 'config', `http.${host.base}elsewhere/.extraHeader`, 'Authorization: wrong');
    // another bot, with the header, moves the remote's main on
    const other = path.join(tempDir(), 'other');
    const withHeader = ['-c', `http.extraHeader=Authorization: ${TOKEN}`];
    await gitOk(path.dirname(other), ...withHeader, 'clone', '-q', url, other);
    git(other, '-c', 'user.name=Other', '-c', 'user.email=o@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'theirs');
    await gitOk(other, ...withHeader, 'push', '-q', 'origin', 'main');
    const theirs = rev(other);
    const r = await patchtxJson('apply', '--repo', clone, addLine('three'), '--push', '--retry', '1');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.retries).toBe(1);
    expect(rev(bare, 'main')).toBe(r.json.commit);
    expect(rev(bare, 'main~1')).toBe(theirs);
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
  });

  it('a header for another URL is not sent', async () => {
    const { bare, clone } = await remoteWithHeader();
    git(clone, 'config', 'http.http://example.invalid/.extraHeader', `Authorization: ${TOKEN}`);
    const head = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('four'), '--push');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.message).toMatch(/HTTP 401/);
    expect(rev(bare, 'main')).toBe(head);
  });
});
