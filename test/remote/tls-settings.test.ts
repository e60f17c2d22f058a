// git's TLS settings for an https:// remote reach the push and its fetches: http.sslCAInfo (the
// certificates the server's is checked against, in place of the default ones), http.sslCAPath (a
// directory of them, named by subject hash), http.sslVerify=false, and the client's own certificate
// (http.sslCert, http.sslKey, GIT_SSL_CERT, GIT_SSL_KEY) for a server that asks for one, against a
// real git server over HTTPS whose certificate is self-signed; each case is checked against git.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost, type SharedRemote } from '../helpers/remote.js';
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

/** Sets each `KEY=VALUE` of `settings` in the repository `dir`, in order. */
function setConfig(dir: string, ...settings: string[]): void {
  for (const kv of settings) {
    const at = kv.indexOf('=');
    git(dir, 'config', kv.slice(0, at), kv.slice(at + 1));
  }
}

/** A new repository on `server` and a clone of it made with `settings` (KEY=VALUE), which the clone's config keeps too. */
async function cloneConfigured(server: RemoteHost, ...settings: string[]): Promise<SharedRemote> {
  const remote = await seededRemote(server, { cloneConfig: settings });
  setConfig(remote.clone, ...settings);
  return remote;
}

/**
 * A new repository on the server that asks for a client certificate, and a clone of it made with
 * the client's; the clone's config holds http.sslCAInfo and `settings` (KEY=VALUE), no more.
 */
async function clientClone(...settings: string[]): Promise<SharedRemote> {
  const remote = await seededRemote(strictHost, { cloneConfig: [`http.sslCAInfo=${cert}`, `http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`] });
  setConfig(remote.clone, `http.sslCAInfo=${cert}`, ...settings);
  return remote;
}

/** `apply --push` of the line `line` from `dir` (the clone or a directory in it): the commit lands on `bare`. */
async function pushLands(bare: string, dir: string, line: string): Promise<void> {
  const r = await patchtxJson('apply', '--repo', dir, addLine(line), '--push');
  expect(r.code, r.out + r.err).toBe(0);
  expect(rev(bare, 'main')).toBe(r.lines[0].commit);
}

/** `apply --push` of the line `line` from `clone`, refused with exit `code`: the server's branch stays; the error. */
async function pushRefused(bare: string, clone: string, line: string, code: number): Promise<any> {
  const head = rev(bare, 'main');
  const r = await patchtxJson('apply', '--repo', clone, addLine(line), '--push');
  expect(r.code, r.out + r.err).toBe(code);
  expect(rev(bare, 'main')).toBe(head);
  return r.json.error;
}

describe('an https:// remote with a self-signed certificate', () => {
  it.each([
    ['http.sslCAInfo', () => cert],
    ['http.sslVerify', () => 'false'],
  ])('%s lets the push through, as it lets git through', async (key, value) => {
    const { bare, clone } = await cloneConfigured(host, `${key}=${value()}`);
    await pushLands(bare, clone, 'tls');
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
    const { bare, clone } = await cloneConfigured(host, `http.sslCAPath=${caDir}`);
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    await pushLands(bare, clone, 'capath');
  });
});

describe('where a setting names a file', () => {
  it('a relative path is taken from the top of the working tree, as git takes it from any directory of it', async () => {
    const { bare, clone } = await seededRemote(host, { cloneConfig: [`http.sslCAInfo=${cert}`] });
    copyFileSync(cert, path.join(clone, 'server-cert.pem'));
    git(clone, 'config', 'http.sslCAInfo', 'server-cert.pem');
    mkdirSync(path.join(clone, 'sub'));
    expect((await gitAsync(path.join(clone, 'sub'), 'fetch', '-q', 'origin')).status).toBe(0);
    await pushLands(bare, path.join(clone, 'sub'), 'relative');
  });

  it('a link in the http.sslCAPath directory that leads nowhere is passed over, as OpenSSL passes it over', async () => {
    // the CA directory's certificate, and a name of the same form linked to nothing
    const dir = path.join(path.dirname(caDir), 'ca-dangling');
    cpSync(caDir, dir, { recursive: true });
    symlinkSync(path.join(dir, 'gone.pem'), path.join(dir, '0badc0de.0'));
    const { bare, clone } = await cloneConfigured(host, `http.sslCAPath=${dir}`);
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    await pushLands(bare, clone, 'dangling');
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
  it.each([
    ['http.sslCert and http.sslKey', () => [`http.sslCert=${clientCert}`, `http.sslKey=${clientKey}`]],
    ['http.sslCert alone, its file holding the key too', () => [`http.sslCert=${clientBoth}`]],
  ])('%s let the push through, as they let git through', async (_name, settings) => {
    const { bare, clone } = await clientClone(...settings());
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
    await pushLands(bare, clone, 'client cert');
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+client cert');
  });

  it('GIT_SSL_CERT and GIT_SSL_KEY stand for the settings, as in git', async () => {
    const { bare, clone } = await clientClone();
    // for patchtx (in this process) and for git
    process.env.GIT_SSL_CERT = gitEnv.GIT_SSL_CERT = clientCert;
    process.env.GIT_SSL_KEY = gitEnv.GIT_SSL_KEY = clientKey;
    try {
      expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).toBe(0);
      await pushLands(bare, clone, 'from env');
    } finally {
      for (const k of ['GIT_SSL_CERT', 'GIT_SSL_KEY']) {
        delete process.env[k];
        delete gitEnv[k];
      }
    }
  });

  it('without a client certificate the push is refused (io_error), as git is, and the server keeps its branch', async () => {
    const { bare, clone } = await clientClone();
    expect((await gitAsync(clone, 'fetch', '-q', 'origin')).status).not.toBe(0);
    await pushRefused(bare, clone, 'no cert', 74);
  });

  it('a key protected by a passphrase is refused by name before anything is sent (usage)', async () => {
    const { bare, clone } = await clientClone(`http.sslCert=${clientCert}`, `http.sslKey=${lockedKey}`);
    const error = await pushRefused(bare, clone, 'locked', 2);
    expect(error.kind).toBe('usage');
    expect(error.message).toContain(lockedKey);
    expect(error.message).toMatch(/passphrase/);
  });

  it.each([
    ['a key in DER form', () => [`http.sslCert=${clientCert}`, `http.sslKey=${derKey}`], 'http.sslkey', /key is not a private key in PEM form/],
    ['a certificate file holding no key, and no http.sslKey', () => [`http.sslCert=${clientCert}`], 'http.sslcert', /key is not a private key in PEM form/],
    ['a key file given as the certificate', () => [`http.sslCert=${clientKey}`], 'http.sslcert', /certificate is not a certificate in PEM form/],
  ])('%s is refused by name before anything is sent (usage)', async (_name, settings, key, message) => {
    const { bare, clone } = await clientClone(...settings());
    const error = await pushRefused(bare, clone, 'bad key', 2);
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
  });

  it('a certificate file that cannot be read is named (usage)', async () => {
    const { bare, clone } = await clientClone(`http.sslCert=${path.join(caDir, 'missing.pem')}`);
    const error = await pushRefused(bare, clone, 'missing', 2);
    expect(error.message).toContain('missing.pem');
    expect(error.key).toBe('http.sslcert');
  });
});
