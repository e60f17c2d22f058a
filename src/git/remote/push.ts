// Pushing one ref to a remote over smart HTTP(S) (or one on this machine or over ssh, via-git.ts), as a lease: the remote ref must still be at the
// value the caller expects. A thin layer over isomorphic-git's push and its Node HTTP client.
// The lease is checked twice: against the value the server advertises (isomorphic-git hands it
// to onPrePush before anything is sent), and by the server itself, which compares the old value
// of the receive-pack command with its ref under the ref's lock, so a push that raced with
// another after the advertisement is refused too. Both come back as `stale`.
import fs from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { crashPoint } from '../../test-points.js';
import { anonymizeUrl, credentialCallbacks, unauthorized, withoutCredentials } from './credentials.js';
import { httpClient } from './client.js';
import type { TlsSettings } from './http-config.js';
import { pushViaGit, SUPPORTED_REMOTES, viaGitTransport } from './via-git.js';

export const NULL_OID = '0'.repeat(40);

export interface PushRefOptions {
  gitdir: string;
  /** the remote's URL (http:// or https://; file://, a path, ssh:// or host:path: via-git.ts) */
  url: string;
  /** the full local ref to send (refs/heads/main) */
  localRef: string;
  /** the full ref to update on the remote (default: localRef) */
  remoteRef?: string;
  /** the value the remote ref must have now (null: it must not exist); ignored with force */
  expected: string | null;
  /** overwrite whatever the remote ref holds */
  force?: boolean;
  /** only a fast-forward of the remote ref, whatever it holds (no lease): for notes */
  fastForwardOnly?: boolean;
  /** headers every HTTP request carries (git's http.extraHeader) */
  headers?: Record<string, string>;
  /** the server's certificate check and the client's certificate (git's http.ssl* settings) */
  tls?: TlsSettings;
}

export interface PushRefResult {
  /** the remote ref's value as the server advertised it (null: absent) */
  previous: string | null;
  /** the value sent */
  oid: string;
  /** the remote's URL, as shown (without credentials in it) */
  url: string;
}

const short = (oid: string | null): string => (oid === null ? 'absent' : oid.slice(0, 12));

/** `actual` undefined: the server refused, so the ref moved, to a value it did not say. */
function stale(ref: string, expected: string | null, actual: string | null | undefined, how: string): PatchtxError {
  const where = actual === undefined ? 'is no longer' : `is at ${short(actual)}, not`;
  return new PatchtxError(
    'stale',
    `the remote's ${ref} ${where} at ${short(expected)} as this push expected (${how}): nothing was overwritten; fetch, and apply again onto the new tip`,
    { ref, expected, ...(actual === undefined ? {} : { actual }) },
  );
}

/**
 * Whether a push over the remote's `advertised` value can be a fast-forward: not when that commit
 * is not even here. Told before anything is computed: isomorphic-git would otherwise look for what
 * to send by walking the local history down to its root, as it finds no commit in common, before
 * it finds out that the push is no fast-forward.
 */
async function mayFastForward(git: typeof import('isomorphic-git'), gitdir: string, advertised: string | null): Promise<boolean> {
  if (advertised === null) return true;
  return git.readObject({ fs, gitdir, oid: advertised, format: 'deflated' }).then(
    () => true,
    () => false,
  );
}

/** Pushes `localRef` to the remote under the lease; throws `stale` when the lease is lost. */
export async function pushRef(opts: PushRefOptions): Promise<PushRefResult> {
  if (viaGitTransport(opts.url)) return pushThroughGit(opts);
  const git = await import('isomorphic-git');
  const http = await httpClient(opts);
  const remoteRef = opts.remoteRef ?? opts.localRef;
  let advertised: string | null = null;
  let sent = '';
  // what the server's side said while receiving (a hook's output), shown when it refuses
  let said = '';
  // isomorphic-git writes refs/remotes/<remote>/... after a push, unlocked and without a reflog,
  // and for a notes ref under a wrong name: it is given a name of its own, whose refs are removed
  // (the caller updates the real remote-tracking ref)
  const scratch = `patchtx-push-${process.pid}`;
  try {
    const result = await git.push({
      fs,
      http,
      gitdir: opts.gitdir,
      url: opts.url,
      headers: opts.headers,
      ...credentialCallbacks(opts.gitdir),
      remote: scratch,
      ref: opts.localRef,
      remoteRef,
      // the old value sent is the advertised one whatever `force` says; force only skips
      // isomorphic-git's own fast-forward check, the lease below is patchtx's
      force: opts.force === true || opts.fastForwardOnly !== true,
      onMessage: (message) => {
        if (said.length < SAID_LIMIT) said += message;
      },
      onPrePush: async ({ remoteRef: theirs, localRef: ours }) => {
        advertised = theirs.oid === NULL_OID ? null : theirs.oid;
        sent = ours.oid;
        const go = opts.force === true || (opts.fastForwardOnly === true ? await mayFastForward(git, opts.gitdir, advertised) : advertised === opts.expected);
        // the tests move the remote branch here, between the advertisement and the update
        if (go) crashPoint('push-advertised');
        return go;
      },
    });
    if (!result.ok) throw refused(remoteRef, opts, advertised, result.error ?? 'the server did not accept the push', said);
    return { previous: advertised, oid: sent, url: anonymizeUrl(opts.url) };
  } catch (e) {
    throw toPushError(e, remoteRef, opts, advertised, said);
  } finally {
    fs.rmSync(path.join(opts.gitdir, 'refs', 'remotes', scratch), { recursive: true, force: true });
  }
}

/** The same push to a remote on this machine or over ssh, through git's own transport (via-git.ts). */
async function pushThroughGit(opts: PushRefOptions): Promise<PushRefResult> {
  const remoteRef = opts.remoteRef ?? opts.localRef;
  const out = await pushViaGit({
    gitdir: opts.gitdir,
    url: opts.url,
    localRef: opts.localRef,
    remoteRef,
    expected: opts.expected,
    force: opts.force === true,
    fastForwardOnly: opts.fastForwardOnly === true,
  });
  if (out.ok) return { previous: out.previous, oid: out.oid, url: anonymizeUrl(opts.url) };
  if (!out.stale && !out.answered) throw unreachable(opts, out.why);
  if (!out.stale) throw declined(remoteRef, opts, out.why, out.said);
  if (opts.fastForwardOnly) throw notFastForward(remoteRef, opts.localRef, out.previous);
  if (out.why === 'the remote has another value') throw stale(remoteRef, opts.expected, out.previous, 'the remote has another value');
  throw refused(remoteRef, opts, out.previous, out.why);
}

/**
 * The reasons receive-pack gives when the ref was not at the old value the push sent, or another
 * push held its lock: the ref moved (or is moving) under this push. Any other reason is the
 * server's own refusal (a pre-receive or update hook declined, a policy, a broken pack), after
 * which the ref is where it was, and pushing again would be refused again.
 */
const LEASE_LOST = /failed to update ref|failed to lock|cannot lock ref|stale info|fetch first/i;

const oneLine = (why: string): string => why.replace(/\s+/g, ' ').trim();

/** How much of what the server's side said is kept. */
const SAID_LIMIT = 16 * 1024;

/** The server's lines as git shows them ("remote: ..."), without the padding git adds to clear a line. */
const remoteLines = (said: string): string =>
  said
    .split(/\r?\n|\r/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .map((l) => (l.startsWith('remote: ') ? l : `remote: ${l}`))
    .join('\n');

/** A push that did not reach the remote's side of the update (no connection, no repository there). */
function unreachable(opts: PushRefOptions, why: string): PatchtxError {
  return new PatchtxError('io_error', `cannot push to ${anonymizeUrl(opts.url)}: ${oneLine(why)}`, { reason: oneLine(why) });
}

/**
 * The server refused the update for a reason of its own: nothing moved, and a retry would not
 * help. What its side said (a hook's output) follows, as git push shows it.
 */
function declined(ref: string, opts: PushRefOptions, why: string, said = ''): PatchtxError {
  const output = remoteLines(said);
  return new PatchtxError(
    'io_error',
    `cannot push to ${anonymizeUrl(opts.url)}: the server refused the update of ${ref}: ${oneLine(why)}${output === '' ? '' : `\n${output}`}`,
    { ref, reason: oneLine(why), output },
  );
}

/** The remote ref holds commits the local one does not (a fast-forward-only push). */
function notFastForward(ref: string, localRef: string, advertised: string | null): PatchtxError {
  return new PatchtxError(
    'stale',
    `the remote's ${ref} is at ${short(advertised)}, which ${localRef} here does not contain (not a fast-forward): nothing was overwritten; fetch it and merge it first`,
    { ref, expected: advertised, actual: advertised },
  );
}

function refused(ref: string, opts: PushRefOptions, advertised: string | null, why: string, said = ''): PatchtxError {
  // a refusal of the server's own is final for the notes' push (fastForwardOnly) too: its caller
  // makes any refusal a warning, and only a lost race is worth another fetch and merge
  // (a server denying non-fast-forwards says so of notes that moved on since they were fetched)
  const lost = LEASE_LOST.test(why) || (opts.fastForwardOnly === true && /non-fast-forward/i.test(why));
  if (!lost) return declined(ref, opts, why, said);
  // the server compares the old value under its lock: a refusal after a matching advertisement
  // means the ref moved in between
  if (opts.force !== true) return stale(ref, opts.fastForwardOnly ? advertised : opts.expected, undefined, `the server refused: ${oneLine(why)}`);
  return new PatchtxError('stale', `the server refused the update of ${ref}: ${oneLine(why)}`, { ref });
}

/** The server's reason for refusing `ref` (receive-pack's status line), else the error's message. */
function reasonOf(err: IsoError, ref: string): string {
  return err.data?.result?.refs?.[ref]?.error ?? err.data?.reason ?? err.message;
}

/**
 * An error of the connection rather than of this repository: a system error without a file
 * (ETIMEDOUT, EHOSTUNREACH, EPROTO of a TLS handshake...) or one of TLS's certificate checks
 * (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID...).
 * isomorphic-git's own errors have codes ending in Error, and are told apart above.
 */
function isNetworkError(err: IsoError & { syscall?: string; path?: string }): boolean {
  if (typeof err.code !== 'string' || err.code.endsWith('Error') || err.path !== undefined) return false;
  return err.syscall !== undefined || /CERT|TLS|SSL|UNABLE_TO_|^E[A-Z]+$/.test(err.code);
}

type IsoError = Error & { code?: string; data?: { reason?: string; statusCode?: number; result?: { refs?: Record<string, { error?: string }> } } };

function toPushError(e: unknown, ref: string, opts: PushRefOptions, advertised: string | null, said: string): unknown {
  if (e instanceof PatchtxError) return e;
  const err = e as IsoError;
  if (err.code === 'HttpError' && err.data?.statusCode === 401) return unauthorized(opts.url, 'push to');
  switch (err.code) {
    case 'UserCanceledError':
      if (opts.fastForwardOnly) return notFastForward(ref, opts.localRef, advertised);
      return stale(ref, opts.expected, advertised, 'the remote advertised another value');
    case 'PushRejectedError':
      return notFastForward(ref, opts.localRef, advertised);
    case 'GitPushError':
      return refused(ref, opts, advertised, reasonOf(err, ref), said);
    case 'UnknownTransportError':
    case 'UrlParseError':
      return new PatchtxError(
        'usage',
        `cannot push to ${anonymizeUrl(opts.url)}: only ${SUPPORTED_REMOTES} are supported (${withoutCredentials(err.message, opts.url)})`,
        {
          reason: 'transport',
        },
      );
    case 'HttpError':
    case 'SmartHttpError':
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ECONNRESET':
      // the network or the server failed: nothing is known to have changed on the remote
      return new PatchtxError('io_error', `cannot push to ${anonymizeUrl(opts.url)}: ${withoutCredentials(err.message, opts.url)}`, { errno: err.code });
    default:
      return isNetworkError(err)
        ? new PatchtxError('io_error', `cannot push to ${anonymizeUrl(opts.url)}: ${oneLine(withoutCredentials(err.message, opts.url))}`, { errno: err.code })
        : e;
  }
}
