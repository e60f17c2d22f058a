// git's TLS settings for an https:// remote reach the push and its fetches: http.sslCAInfo (the
// certificates the server's is checked against, in place of the default ones) and
// http.sslVerify=false, against a real git server over HTTPS whose certificate is self-signed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import { git, gitAsync, gitEnv, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';

let host: RemoteHost;
let cert: string;

beforeAll(async () => {
  isolateGitEnv();
  // the machine's own certificate settings, which would override the ones of these tests
  for (const k of ['GIT_SSL_CAINFO', 'GIT_SSL_NO_VERIFY']) {
    delete process.env[k];
    delete gitEnv[k];
  }
  const dir = tempDir();
  const key = path.join(dir, 'key.pem');
  cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
    ],
    { stdio: 'ignore' },
  );
  host = await httpHost(undefined, undefined, { key: readFileSync(key), cert: readFileSync(cert) });
});
afterAll(async () => {
  await host.close();
  cleanupScratch();
});

describe('an https:// remote with a self-signed certificate', () => {
  it.each([
    ['http.sslCAInfo', () => cert],
    ['http.sslVerify', () => 'false'],
  ])('%s lets the push through, as it lets git through', async (key, value) => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`${key}=${value()}`] });
    git(clone, 'config', key, value());
    const r = await patchtxJson('apply', '--repo', clone, addLine('tls'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+tls');
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
  });

  it('without either, the push is refused for the certificate, as git is', async () => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAInfo=${cert}`] });
    const head = rev(bare, 'main');
    expect((await gitAsync(clone, '-c', 'http.sslCAInfo=', 'fetch', '-q', 'origin')).status).not.toBe(0);
    const r = await patchtxJson('apply', '--repo', clone, addLine('tls'), '--push');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.message).toMatch(/certificate/i);
    expect(rev(bare, 'main')).toBe(head);
  });
});
