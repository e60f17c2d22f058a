// A real smart-HTTP git server on loopback for the push tests: a Node http server that runs
// `git http-backend` as a CGI program for each request, over the bare repositories in one
// directory (each with http.receivepack on). No part of the protocol is imitated here.
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gitEnv } from './repos.js';

export interface GitHttpServer {
  /** http://127.0.0.1:PORT/ : a repository `server.git` in the root is at `${base}server.git` */
  base: string;
  close(): Promise<void>;
}

/** Splits a CGI response into its header lines and body. */
function splitCgi(out: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  let end = out.indexOf('\r\n\r\n');
  let sep = 4;
  if (end < 0) {
    end = out.indexOf('\n\n');
    sep = 2;
  }
  const head = out.subarray(0, end).toString('latin1');
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
    else headers[name] = value;
  }
  return { status, headers, body: out.subarray(end + sep) };
}

/** `auth`: every request must carry these credentials (HTTP basic), else 401 as a real server answers;
 * `header`: every request must carry this header (as a CI token in http.extraHeader), else 401;
 * `tls`: served over HTTPS with this key and certificate (and, with `requestCert` and `ca`, asking
 * clients for a certificate issued by `ca`). */
export async function startGitHttpServer(
  root: string,
  auth?: { user: string; password: string },
  header?: { name: string; value: string },
  tls?: https.ServerOptions,
): Promise<GitHttpServer> {
  const expected = auth && `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const headerMissing = header !== undefined && req.headers[header.name.toLowerCase()] !== header.value;
    if ((expected !== undefined && req.headers.authorization !== expected) || headerMissing) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('authentication required\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const child = spawn('git', ['http-backend'], {
      env: {
        ...gitEnv,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        // without a length git http-backend reads the body to its end (a chunked request)
        ...(req.headers['content-length'] === undefined ? {} : { CONTENT_LENGTH: req.headers['content-length'] }),
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: (req.headers['git-protocol'] as string | undefined) ?? '',
        REMOTE_USER: 'tester',
        REMOTE_ADDR: '127.0.0.1',
        GATEWAY_INTERFACE: 'CGI/1.1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    req.pipe(child.stdin);
    child.on('close', (code) => {
      if (code !== 0 && chunks.length === 0) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(err);
        return;
      }
      const { status, headers, body } = splitCgi(Buffer.concat(chunks));
      res.writeHead(status, headers).end(body);
    });
  };
  const server = tls === undefined ? http.createServer(handler) : https.createServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
