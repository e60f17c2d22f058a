// Pushing to and fetching from a remote that isomorphic-git cannot reach, through git's own
// transport (the git CLI): one on this machine (a `file://` URL or a path, as `git clone
// /srv/repo.git` configures it) and one over ssh (`ssh://host/path`, `host:path`), which git reaches
// with the user's ssh set-up (core.sshCommand, GIT_SSH_COMMAND, keys and agent, known hosts). The
// remote's side is git's receive-pack either way: it takes the remote ref's lock and compares its
// old value, so the lease holds against a concurrent push as over HTTP. The lease is checked first
// against the remote's value as listed, then by git's --force-with-lease, which sends that value as
// the old one.
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { crashPoint } from '../../test-points.js';
import { runProgram } from '../repo/run-program.js';
import { anonymizeUrl, withoutCredentials } from './credentials.js';

/** Whether `remote` is a URL with a scheme (`https://...`, `file://...`). */
export const hasScheme = (remote: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(remote);

/** A colon before any slash, which git does not take for a path (on this system, a drive letter
 * included): git's scp-like `[user@]host:path`, or a remote helper's `helper::address`. */
const colonFirst = (url: string): boolean => {
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon >= 0 && (slash === -1 || colon < slash) && !hasScheme(url);
};

/** A URL for one of git's remote helpers (`helper::address`), which patchtx does not use. */
const isHelperUrl = (url: string): boolean => /^[A-Za-z0-9][A-Za-z0-9+.-]*::/.test(url);

/** A remote reached through the file system: `file://...`, or a path (no scheme, no colon before a slash). */
export function isLocalRemote(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  return !hasScheme(url) && !colonFirst(url);
}

/** git's scp-like syntax for ssh, `[user@]host:path`. */
export const isScpLike = (url: string): boolean => colonFirst(url) && !isHelperUrl(url);

/** A remote reached over ssh, as git reaches it: `ssh://`, `git+ssh://`, `ssh+git://` or `host:path`. */
export const isSshRemote = (url: string): boolean => /^(ssh|git\+ssh|ssh\+git):\/\//i.test(url) || isScpLike(url);

/** Whether pushes and fetches of `url` go through git's CLI (see above) rather than isomorphic-git. */
export const viaGitTransport = (url: string): boolean => isLocalRemote(url) || isSshRemote(url);

/** The remotes patchtx reaches, as its refusal of any other names them. */
export const SUPPORTED_REMOTES = 'http://, https://, ssh://, host:path, file:// and path remotes';

interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

async function runGit(gitdir: string, args: string[], cwd?: string): Promise<GitRun> {
  const r = await runProgram('git', [`--git-dir=${path.resolve(gitdir)}`, ...args], { input: null, cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (r.error) throw new PatchtxError('io_error', `cannot run git for the remote: ${r.error.message}`, { errno: r.error.code });
  return { status: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

/**
 * What git's error output says went wrong, in one line: its first line that is not the remote's
 * own ("remote: ...") nor git's closing advice ("Please make sure you have the correct access
 * rights / and the repository exists."), such as ssh's "Could not resolve hostname ..." or
 * "fatal: '/srv/x.git' does not appear to be a git repository".
 */
const causeOf = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !NOT_THE_CAUSE.test(l)) ?? '';

/** Lines of git's error output that do not say what failed: the remote's own, git's closing
 * advice, and ssh's warnings (a host key added to known_hosts, printed on many connections). */
const NOT_THE_CAUSE = /^(remote: |Warning: |Please make sure you have the correct access rights$|and the repository exists\.$)/;

/**
 * The directory git would resolve a relative path remote from: git runs from the working tree's
 * root (the git directory of a bare repository) whatever directory it was started in. Worked out
 * only for a relative path (`../server.git`), as `git remote add` keeps it.
 */
async function remoteBase(gitdir: string, url: string): Promise<string | undefined> {
  if (!isLocalRemote(url) || /^file:\/\//i.test(url) || path.isAbsolute(url)) return undefined;
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
  if (r.status !== 0) throw new PatchtxError('io_error', `cannot read ${ref} of ${anonymizeUrl(url)}: ${withoutCredentials(causeOf(r.stderr), url)}`, {});
  const line = r.stdout.split('\n').find((l) => l.endsWith(`\t${ref}`));
  return line === undefined ? null : line.slice(0, 40);
}

export interface GitTransportPush {
  gitdir: string;
  url: string;
  localRef: string;
  remoteRef: string;
  expected: string | null;
  force: boolean;
  fastForwardOnly: boolean;
}

/** `said`: the lines the remote's side printed (its hooks), as git shows them ("remote: ...");
 * `answered`: the remote's side took the update and answered for the ref (refused it), rather than
 * the push failing before (no connection, no repository there). */
export type GitTransportOutcome =
  { ok: true; previous: string | null; oid: string } | { ok: false; previous: string | null; why: string; stale: boolean; said: string; answered: boolean };

/** Pushes under the lease; `stale` outcomes are the remote ref not where the push expected it. */
export async function pushViaGit(p: GitTransportPush): Promise<GitTransportOutcome> {
  const cwd = await remoteBase(p.gitdir, p.url);
  const previous = await listRemoteRef(p.gitdir, p.url, p.remoteRef, cwd);
  if (!p.force && !p.fastForwardOnly && previous !== p.expected)
    return { ok: false, previous, why: 'the remote has another value', stale: true, said: '', answered: true };
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
  const why = withoutCredentials(status?.split('\t')[2] ?? causeOf(r.stderr), p.url);
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
  return { ok: false, previous, why: why === '' ? 'git push failed' : why, stale, said, answered: status !== undefined };
}

/** Fetches `ref` of the remote; its value (null: none), its objects now in this repository. */
export async function fetchViaGit(gitdir: string, url: string, ref: string): Promise<string | null> {
  // under a name of this run's, removed afterwards: the caller updates the refs it means to
  const scratch = `refs/patchtx-fetch/${process.pid}`;
  try {
    const r = await runGit(gitdir, ['fetch', '--no-tags', '--no-write-fetch-head', '--', url, `+${ref}:${scratch}`], await remoteBase(gitdir, url));
    if (r.status !== 0) {
      if (/couldn't find remote ref/i.test(r.stderr)) return null;
      throw new PatchtxError('io_error', `cannot fetch ${ref} from ${anonymizeUrl(url)}: ${withoutCredentials(causeOf(r.stderr), url)}`, {});
    }
    const value = (await runGit(gitdir, ['rev-parse', '--verify', '--quiet', scratch])).stdout.trim();
    return value === '' ? null : value;
  } finally {
    await runGit(gitdir, ['update-ref', '-d', scratch]);
  }
}
