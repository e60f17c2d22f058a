// Shared remotes for the push tests: a bare repository seeded with one commit on main (a.txt,
// "one", as seeded.ts makes it), reached over the loopback smart-HTTP server (git-http-server.ts) or by its path, a clone
// of it with a bot's identity, and "another bot": a second clone that moves the remote's main on.
import { writeFileSync } from 'node:fs';
import type { ServerOptions } from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { useBuiltCli } from './cli.js';
import { startGitHttpServer } from './git-http-server.js';
import { git, gitOk, rev } from './repos.js';
import { tempDir } from './scratch.js';
import { seededRepo } from './seeded.js';

/** Where the bare repositories are, and how clones reach them. */
export interface RemoteHost {
  /** the directory of the bare repositories */
  root: string;
  /** the server's base URL (`${base}NAME.git`); null: the repositories are reached by their path */
  base: string | null;
  /** stops the server, if there is one */
  close(): Promise<void>;
}

/** A loopback smart-HTTP server over a new directory; `auth`: the credentials every request must
 * carry; `header`: a header every request must carry; `tls`: over HTTPS with this key and certificate. */
export async function httpHost(auth?: { user: string; password: string }, header?: { name: string; value: string }, tls?: ServerOptions): Promise<RemoteHost> {
  const root = tempDir();
  const server = await startGitHttpServer(root, auth, header, tls);
  return { root, base: server.base, close: () => server.close() };
}

/** Bare repositories reached by their path, through git's local transport. */
export function localHost(): RemoteHost {
  return { root: tempDir(), base: null, close: async () => undefined };
}

export interface SharedRemote {
  /** the bare repository */
  bare: string;
  /** a clone whose origin is `url`, committing as Bot */
  clone: string;
  /** the bare repository's URL on the server, or its path */
  url: string;
}

let made = 0;

/** A bare repository with one commit on main, receiving pushes over HTTP, and a clone of it;
 * `cloneConfig`: `key=value` settings of the clone command (credentials, say). */
export async function seededRemote(host: RemoteHost, opts: { cloneConfig?: string[] } = {}): Promise<SharedRemote> {
  const name = `server${++made}.git`;
  const bare = path.join(host.root, name);
  git(host.root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true');
  git(seededRepo(null), 'push', '-q', bare, 'main');
  const url = host.base === null ? bare : `${host.base}${name}`;
  const clone = path.join(tempDir(), 'clone');
  // asynchronously: the server answers from this very process
  await gitOk(host.root, ...(opts.cloneConfig ?? []).flatMap((c) => ['-c', c]), 'clone', '-q', url, clone);
  git(clone, 'config', 'user.name', 'Bot');
  git(clone, 'config', 'user.email', 'bot@example.invalid');
  return { bare, clone, url };
}

/** A patch file adding a line after the seeded `one` of a.txt. */
export { addLine } from './seeded.js';

/**
 * Another clone of `url` ("another bot") writes `files` (by default a new b.txt, which the patches
 * here leave alone), commits them and pushes main; returns its commit.
 */
export async function anotherBotPushes(url: string, files: Record<string, string> = { 'b.txt': 'theirs\n' }, message = 'other bot'): Promise<string> {
  const other = path.join(tempDir(), 'other');
  await gitOk(path.dirname(other), 'clone', '-q', url, other);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(other, file), text);
  git(other, 'add', '-A');
  git(other, '-c', 'user.name=Other', '-c', 'user.email=o@example.invalid', 'commit', '-q', '-m', message);
  await gitOk(other, 'push', '-q', 'origin', 'main');
  return rev(other);
}

/**
 * The set-up of a test file pushing to one loopback server: the built program's (useBuiltCli), and
 * the server, started before the file's tests and closed after them. The host is read through the
 * function returned, once the tests run.
 */
export function useHttpHost(): () => RemoteHost {
  let host: RemoteHost | undefined;
  useBuiltCli();
  beforeAll(async () => {
    host = await httpHost();
  });
  afterAll(async () => {
    await host?.close();
  });
  return () => host!;
}
