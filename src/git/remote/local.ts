// Pushing to and fetching from a remote on this machine (a `file://` URL or a path, as `git clone
// /srv/repo.git` configures it). isomorphic-git speaks only smart HTTP, so these go through git's
// own local transport (the git CLI, which the remote's git runs anyway: receive-pack takes the
// remote ref's lock and compares its old value, so the lease holds against a concurrent push as
// over HTTP). The lease is checked first against the remote's value as listed, then by git's
// --force-with-lease, which sends that value as the old one.
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { crashPoint } from '../../test-points.js';
import { runProgram } from '../repo/run-program.js';
import { anonymizeUrl, withoutCredentials } from './credentials.js';

/** Whether `remote` is a URL with a scheme (`https://...`, `file://...`). */
export const hasScheme = (remote: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(remote);

/** A remote reached through the file system: `file://...`, or a path (no scheme, not `host:path`). */
export function isLocalRemote(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (hasScheme(url)) return false;
  // git's scp-like syntax (host:path) has a colon before the first slash
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon === -1 || (slash !== -1 && slash < colon);
}

interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

async function runGit(gitdir: string, args: string[], cwd?: string): Promise<GitRun> {
  const r = await runProgram('git', [`--git-dir=${path.resolve(gitdir)}`, ...args], { input: null, cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (r.error) throw new PatchtxError('io_error', `cannot run git for the local remote: ${r.error.message}`, { errno: r.error.code });
  return { status: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

const firstLine = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-1)[0] ?? '';

/**
 * The directory git would resolve a relative path remote from: git runs from the working tree's
 * root (the git directory of a bare repository) whatever directory it was started in. Worked out
 * only for a relative path (`../server.git`), as `git remote add` keeps it.
 */
async function remoteBase(gitdir: string, url: string): Promise<string | undefined> {
  if (/^file:\/\//i.test(url) || path.isAbsolute(url)) return undefined;
  const r = await runGit(gitdir, ['config', '--get-regexp', '^core\\.(bare|worktree)$']);
  const values = new Map(
    r.stdout
      .split('\n')
      .filter((l) => l.includes(' '))
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
  );
  if (values.get('core.bare') === 'true') return gitdir;
  const worktree = values.get('core.worktree');
  return worktree !== undefined ? path.resolve(gitdir, worktree) : path.dirname(path.resolve(gitdir));
}

/** The remote's value of `ref` (null: it has none), read without changing anything. */
export async function listRemoteRef(gitdir: string, url: string, ref: string, cwd?: string): Promise<string | null> {
  const r = await runGit(gitdir, ['ls-remote', '--', url, ref], cwd);
  if (r.status !== 0) throw new PatchtxError('io_error', `cannot read ${ref} of ${anonymizeUrl(url)}: ${withoutCredentials(firstLine(r.stderr), url)}`, {});
  const line = r.stdout.split('\n').find((l) => l.endsWith(`\t${ref}`));
  return line === undefined ? null : line.slice(0, 40);
}

export interface LocalPush {
  gitdir: string;
  url: string;
  localRef: string;
  remoteRef: string;
  expected: string | null;
  force: boolean;
  fastForwardOnly: boolean;
}

/** `said`: the lines the remote's side printed (its hooks), as git shows them ("remote: ..."). */
export type LocalPushOutcome =
  { ok: true; previous: string | null; oid: string } | { ok: false; previous: string | null; why: string; stale: boolean; said: string };

/** Pushes under the lease; `stale` outcomes are the remote ref not where the push expected it. */
export async function pushLocal(p: LocalPush): Promise<LocalPushOutcome> {
  const cwd = await remoteBase(p.gitdir, p.url);
  const previous = await listRemoteRef(p.gitdir, p.url, p.remoteRef, cwd);
  if (!p.force && !p.fastForwardOnly && previous !== p.expected) return { ok: false, previous, why: 'the remote has another value', stale: true, said: '' };
  const oid = (await runGit(p.gitdir, ['rev-parse', '--verify', '--quiet', `${p.localRef}^{commit}`])).stdout.trim();
  // the tests move the remote branch here, between the listing and the update
  crashPoint('push-advertised');
  // a pre-push hook of this repository is not run, as it is not over HTTP
  const args = ['push', '--porcelain', '--no-verify'];
  if (p.force) args.push('--force');
  else if (!p.fastForwardOnly) args.push(`--force-with-lease=${p.remoteRef}:${previous ?? ''}`);
  const r = await runGit(p.gitdir, [...args, '--', p.url, `${oid}:${p.remoteRef}`], cwd);
  if (r.status === 0) return { ok: true, previous, oid };
  const status = r.stdout.split('\n').find((l) => l.startsWith('!'));
  const why = status?.split('\t')[2] ?? firstLine(r.stderr);
  const said = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('remote: '))
    .join('\n');
  // the remote's own lines are left out: a hook may print anything
  const git = r.stderr
    .split('\n')
    .filter((l) => !l.startsWith('remote: '))
    .join('\n');
  const stale = /stale info|fetch first|non-fast-forward|failed to update ref|cannot lock ref/.test(`${status ?? ''} ${git}`);
  return { ok: false, previous, why: why === '' ? 'git push failed' : why, stale, said };
}

/** Fetches `ref` of the local remote; its value (null: none), its objects now in this repository. */
export async function fetchLocal(gitdir: string, url: string, ref: string): Promise<string | null> {
  // under a name of this run's, removed afterwards: the caller updates the refs it means to
  const scratch = `refs/patchtx-fetch/${process.pid}`;
  try {
    const r = await runGit(gitdir, ['fetch', '--no-tags', '--no-write-fetch-head', '--', url, `+${ref}:${scratch}`], await remoteBase(gitdir, url));
    if (r.status !== 0) {
      if (/couldn't find remote ref/i.test(r.stderr)) return null;
      throw new PatchtxError('io_error', `cannot fetch ${ref} from ${anonymizeUrl(url)}: ${withoutCredentials(firstLine(r.stderr), url)}`, {});
    }
    const value = (await runGit(gitdir, ['rev-parse', '--verify', '--quiet', scratch])).stdout.trim();
    return value === '' ? null : value;
  } finally {
    await runGit(gitdir, ['update-ref', '-d', scratch]);
  }
}
