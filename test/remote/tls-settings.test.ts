// git's TLS settings for an https:// remote reach the push and its fetches: http.sslCAInfo (the
// certificates the server's is checked against, in place of the default ones), http.sslCAPath (a
// directory of them, named by subject hash), http.sslVerify=false, and the client's own certificate
// (http.sslCert, http.sslKey, GIT_SSL_CERT, GIT_SSL_KEY) for a server that asks for one, against a
// real git server over HTTPS whose certificate is self-signed; each case is checked against git.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import { git, gitAsync, gitEnv, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';

let host: RemoteHost;
let cert: string;
/** a server that asks every client for a certificate issued by `clientCert` (self-signed) */
let strictHost: RemoteHost;
let clientCert: string;
let clientKey: string;
/** the client's certificate and key in one file */
let clientBoth: string;
/** the client's key protected by a passphrase */
let lockedKey: string;
/** the client's key in DER form */
let derKey: string;
/** a directory holding the server's certificate under its subject hash, as c_rehash names it */
let caDir: string;

/** A self-signed certificate for 127.0.0.1 and its key, written into `dir` as NAME-cert.pem and NAME-key.pem. */
function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const key = path.join(dir, `${name}-key.pem`);
  const cert = path.join(dir, `${name}-cert.pem`);
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
  return { cert, key };
}

beforeAll(async () => {
  isolateGitEnv();
  // the machine's own certificate settings, which would override the ones of these tests
  for (const k of ['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'GIT_SSL_NO_VERIFY', 'GIT_SSL_CERT', 'GIT_SSL_KEY']) {
    delete process.env[k];
    delete gitEnv[k];
  }
  const dir = tempDir();
  const server = selfSigned(dir, 'server');
  cert = server.cert;
  host = await httpHost(undefined, undefined, { key: readFileSync(server.key), cert: readFileSync(cert) });
  const client = selfSigned(dir, 'client');
  clientCert = client.cert;
  clientKey = client.key;
  clientBoth = path.join(dir, 'client-both.pem');
  writeFileSync(clientBoth, Buffer.concat([readFileSync(clientCert), readFileSync(clientKey)]));
  lockedKey = path.join(dir, 'client-locked.pem');
  execFileSync('openssl', ['pkey', '-in', clientKey, '-aes256', '-passout', 'pass:secret', '-out', lockedKey], { stdio: 'ignore' });
  derKey = path.join(dir, 'client-key.der');
  execFileSync('openssl', ['pkey', '-in', clientKey, '-outform', 'DER', '-out', derKey], { stdio: 'ignore' });
  caDir = path.join(dir, 'ca');
  mkdirSync(caDir);
  const hash = execFileSync('openssl', ['x509', '-hash', '-noout', '-in', cert], { encoding: 'utf8' }).trim();
  copyFileSync(cert, path.join(caDir, `${hash}.0`));
  strictHost = await httpHost(undefined, undefined, {
    key: readFileSync(server.key),
    cert: readFileSync(cert),
    ca: readFileSync(clientCert),
    requestCert: true,
    rejectUnauthorized: true,
  });
});
afterAll(async () => {
  await host.close();
  await strictHost.close();
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

describe('http.sslCAPath', () => {
  it('a directory holding the server certificate under its hash lets the push through, as it lets git through', async () => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAPath=${caDir}`] });
    git(clone, 'config', 'http.sslCAPath', caDir);
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    const r = await patchtxJson('apply', '--repo', clone, addLine('capath'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
  });
});

describe('where a setting names a file', () => {
  it('a relative path is taken from the top of the working tree, as git takes it from any directory of it', async () => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAInfo=${cert}`] });
    copyFileSync(cert, path.join(clone, 'server-cert.pem'));
    git(clone, 'config', 'http.sslCAInfo', 'server-cert.pem');
    mkdirSync(path.join(clone, 'sub'));
    expect((await gitAsync(path.join(clone, 'sub'), 'fetch', '-q', 'origin')).status).toBe(0);
    const r = await patchtxJson('apply', '--repo', path.join(clone, 'sub'), addLine('relative'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
  });

  it('a link in the http.sslCAPath directory that leads nowhere is passed over, as OpenSSL passes it over', async () => {
    const dir = path.join(path.dirname(caDir), 'ca-dangling');
    mkdirSync(dir);
    for (const name of ['0badc0de.0']) symlinkSync(path.join(dir, 'gone.pem'), path.join(dir, name));
    const hash = execFileSync('openssl', ['x509', '-hash', '-noout', '-in', cert], { encoding: 'utf8' }).trim();
    copyFileSync(cert, path.join(dir, `${hash}.0`));
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAPath=${dir}`] });
    git(clone, 'config', 'http.sslCAPath', dir);
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    const r = await patchtxJson('apply', '--repo', clone, addLine('dangling'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
  });

  it('a variable set but empty is refused by name (usage), as git fails on it, and nothing is pushed', async () => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAInfo=${cert}`] });
    git(clone, 'config', 'http.sslCAInfo', cert);
    const head = rev(bare, 'main');
    process.env.GIT_SSL_CAINFO = gitEnv.GIT_SSL_CAINFO = '';
    try {
      expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).not.toBe(0);
      const r = await patchtxJson('apply', '--repo', clone, addLine('empty'), '--push');
      expect(r.code, r.out + r.err).toBe(2);
      expect(r.json.error).toMatchObject({ kind: 'usage', key: 'GIT_SSL_CAINFO' });
    } finally {
      delete process.env.GIT_SSL_CAINFO;
      delete gitEnv.GIT_SSL_CAINFO;
    }
    expect(rev(bare, 'main')).toBe(head);
  });
});

describe('a server that asks for a client certificate', () => {
  const cloneWith = (...extra: string[]) => seededRemote(strictHost, { cloneConfig: [`http.sslCAInfo=${cert}`, ...extra] });

  it.each([
    ['http.sslCert and http.sslKey', () => [`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`]],
    ['http.sslCert alone, its file holding the key too', () => [`http.sslCert=${clientBoth}`]],
  ])('%s let the push through, as they let git through', async (_name, settings) => {
    const { bare, clone } = await cloneWith(...settings());
    git(clone, 'config', 'http.sslCAInfo', cert);
    for (const kv of settings()) git(clone, 'config', ...(kv.split('=') as [string, string]));
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    const r = await patchtxJson('apply', '--repo', clone, addLine('client cert'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+client cert');
  });

  it('GIT_SSL_CERT and GIT_SSL_KEY stand for the settings, as in git', async () => {
    const { bare, clone } = await cloneWith(`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`);
    git(clone, 'config', 'http.sslCAInfo', cert);
    // for patchtx (in this process) and for git
    process.env.GIT_SSL_CERT = gitEnv.GIT_SSL_CERT = clientCert;
    process.env.GIT_SSL_KEY = gitEnv.GIT_SSL_KEY = clientKey;
    try {
      expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
      const r = await patchtxJson('apply', '--repo', clone, addLine('from env'), '--push');
      expect(r.code, r.out + r.err).toBe(0);
      expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    } finally {
      for (const k of ['GIT_SSL_CERT', 'GIT_SSL_KEY']) {
        delete process.env[k];
        delete gitEnv[k];
      }
    }
  });

  it('without a client certificate the push is refused (io_error), as git is, and the server keeps its branch', async () => {
    const { bare, clone } = await cloneWith(`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`);
    git(clone, 'config', 'http.sslCAInfo', cert);
    const head = rev(bare, 'main');
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).not.toBe(0);
    const r = await patchtxJson('apply', '--repo', clone, addLine('no cert'), '--push');
    expect(r.code, r.out + r.err).toBe(74);
    expect(rev(bare, 'main')).toBe(head);
  });

  it('a key protected by a passphrase is refused by name before anything is sent (usage)', async () => {
    const { bare, clone } = await cloneWith(`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`);
    git(clone, 'config', 'http.sslCAInfo', cert);
    git(clone, 'config', 'http.sslCert', clientCert);
    git(clone, 'config', 'http.sslKey', lockedKey);
    const head = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('locked'), '--push');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.json.error.kind).toBe('usage');
    expect(r.json.error.message).toContain(lockedKey);
    expect(r.json.error.message).toMatch(/passphrase/);
    expect(rev(bare, 'main')).toBe(head);
  });

  it.each([
    ['a key in DER form', () => ['http.sslKey', derKey], 'http.sslkey', /key is not a private key in PEM form/],
    ['a certificate file holding no key, and no http.sslKey', () => [null, null], 'http.sslcert', /key is not a private key in PEM form/],
    ['a key file given as the certificate', () => ['http.sslCert', clientKey], 'http.sslcert', /certificate is not a certificate in PEM form/],
  ])('%s is refused by name before anything is sent (usage)', async (_name, setting, key, message) => {
    const { bare, clone } = await cloneWith(`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`);
    git(clone, 'config', 'http.sslCAInfo', cert);
    git(clone, 'config', 'http.sslCert', clientCert);
    // (the clone has no http.sslKey of its own: its settings were given to the clone command)
    const [name, value] = setting();
    if (name !== null && value !== null) git(clone, 'config', name, value);
    const head = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('bad key'), '--push');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.json.error.key).toBe(key);
    expect(r.json.error.message).toMatch(message);
    expect(rev(bare, 'main')).toBe(head);
  });

  it('a certificate file that cannot be read is named (usage)', async () => {
    const { clone } = await cloneWith(`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`);
    git(clone, 'config', 'http.sslCAInfo', cert);
    git(clone, 'config', 'http.sslCert', path.join(caDir, 'missing.pem'));
    const r = await patchtxJson('apply', '--repo', clone, addLine('missing'), '--push');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.json.error.message).toContain('missing.pem');
    expect(r.json.error.key).toBe('http.sslcert');
  });
});
