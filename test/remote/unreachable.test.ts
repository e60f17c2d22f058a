// A remote that cannot be reached or spoken to is an io_error that names the remote's URL and the
// cause, whatever the network layer's error was (a refused connection, a TLS handshake with a
// server that does not speak TLS): as git push says "unable to access 'URL': ...".
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { seededRemote, useHttpHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { tempDir } from '../helpers/scratch.js';

const host = useHttpHost();

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An HTTPS server on loopback with a self-signed certificate (made by openssl), answering nothing. */
async function selfSignedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const dir = tempDir();
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-days', '1'], {
    stdio: 'ignore',
  });
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/server.git`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('a remote that cannot be spoken to', () => {
  it('https:// to a server that speaks plain HTTP is an io_error naming the URL', async () => {
    const { clone, url } = await seededRemote(host());
    const https = url.replace(/^http:/, 'https:');
    git(clone, 'remote', 'add', 'tls', https);
    const before = rev(clone);
    const r = await patchtxJson('push', 'tls', '--repo', clone, '--expect', 'none');
    expect(r.code, r.out + r.err).toBe(74);
    expect(r.json.error.kind).toBe('io_error');
    expect(r.json.error.message).toMatch(new RegExp(`^cannot push to ${escape(https)}: `));
    expect(r.json.error.path).toBeNull();
    expect(rev(clone)).toBe(before);
  });

  it('a server whose certificate is not trusted is an io_error naming the URL and the certificate', async () => {
    const { clone } = await seededRemote(host());
    const server = await selfSignedServer();
    try {
      git(clone, 'remote', 'add', 'selfsigned', server.url);
      const r = await patchtxJson('push', 'selfsigned', '--repo', clone, '--expect', 'none');
      expect(r.code, r.out + r.err).toBe(74);
      expect(r.json.error.kind).toBe('io_error');
      expect(r.json.error.message).toMatch(new RegExp(`^cannot push to ${escape(server.url)}: .*certificate`));
    } finally {
      await server.close();
    }
  });
});
