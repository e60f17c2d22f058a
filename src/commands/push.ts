// `patchtx push` and `apply --push`: send a branch, and the patch texts in refs/notes/patchtx,
// to a remote as a lease. The branch is pushed only if the remote's branch is still where this
// repository believes it is: for `apply --push`, the commit the transaction was built on (the new
// commit's parent, or "absent" for a branch the remote never had); for `push` alone, the
// remote-tracking ref (the one the remote's fetch refspec maps the branch to, refspec.ts: the
// value last fetched or pushed), or "absent" when there is none. Nothing is overwritten without
// `force`. The notes ref is pushed as a fast-forward, after merging the remote's notes into the
// local ones when they have moved on (each note belongs to its own commit: no conflicts).
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchtxError } from '../errors.js';
import type { Warning } from '../warnings.js';
import type { Identity } from '../git/objects/model/identity.js';
import { readHead, readRef, updateRef } from '../git/refs/refs.js';
import { resolveIdentity } from '../git/repo/identity.js';
import { pushRef } from '../git/remote/push.js';
import { fetchRef } from '../git/remote/fetch.js';
import { mergedFrom, mergeNotes } from '../git/refs/notes-merge.js';
import type { CommitObject } from '../git/objects/model/commit.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { hasScheme, isScpLike, SUPPORTED_REMOTES, viaGitTransport } from '../git/remote/via-git.js';
import { anonymizeUrl } from '../git/remote/credentials.js';
import { fetchUrl, isRewritten, pushUrl } from '../git/remote/url-rewrite.js';
import { extraHeaders, tlsSettings, type TlsSettings } from '../git/remote/http-config.js';
import { trackingRefFor } from '../git/remote/refspec.js';

export interface PushOptions extends SessionOptions {
  /** a configured remote's name or an http(s) URL (default: origin) */
  remote?: string;
  /** the branch to push (default: the checked-out one) */
  ref?: string;
  /** the commit the remote branch must be at (null: absent); default: the remote-tracking ref */
  expected?: string | null;
  /** overwrite the remote branch whatever it holds */
  force?: boolean;
  /**
   * `expected` is the commit a transaction was built on: where the remote never had the branch
   * (the remote-tracking ref does not exist), the lease is "absent" instead, as git push creates it
   */
  createUntracked?: boolean;
}

/** The notes ref was left behind (the branch landed). */
export type PushWarning = Warning<'notes_not_pushed'> & { ref: string; reason: string };

export interface PushResult {
  ok: true;
  remote: string;
  url: string;
  ref: string;
  commit: string;
  /** where the remote branch was (null: it did not exist) */
  previous: string | null;
  forced: boolean;
  /** the notes ref: pushed (or already there), absent here, or left behind (see warnings) */
  notes: 'pushed' | 'absent' | 'not_pushed';
  warnings: PushWarning[];
  /** apply --push --retry: how many times the patches were applied again onto a moved remote branch */
  retries?: number;
  /** and the commits that made (they replace the ones the apply first printed) */
  reapplied?: string[];
}

function branchOf(ref: string | undefined, head: string | null): string {
  const full = ref === undefined ? head : ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
  if (full === null) throw new PatchtxError('usage', 'HEAD is detached: name the branch to push', { option: 'ref' });
  if (!full.startsWith('refs/heads/')) throw new PatchtxError('usage', `${full} is not a branch: only branches are pushed`, { ref: full, option: 'ref' });
  return full;
}

/** The reflog's identity for the remote-tracking ref: the committer, or a neutral one if none is configured. */
export function reflogIdentity(session: Session): Identity {
  try {
    return resolveIdentity(session.config, 'committer', session.env);
  } catch {
    return { name: 'patchtx', email: 'patchtx', timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
  }
}

/** The remote-tracking ref of `branch` for a configured remote (its fetch refspec); null for a URL or a path. */
export const trackingRefOf = (session: Session, remote: string, branch: string): string | null =>
  hasScheme(remote) ? null : trackingRefFor(session.config, remote, branch);

/** A remote given as where it is rather than by name: a path to a repository on this machine (`../server.git`, `/srv/repo.git`), or git's `host:path` (no remote name has a colon). */
const isPath = (remote: string): boolean => remote.includes('/') || remote === '.' || remote === '..' || isScpLike(remote);

/**
 * A push without a lease of its own, refused because the remote has the branch while this
 * repository has no remote-tracking ref for it: "fetch, and apply again" would not help where the
 * remote has no fetch refspec (a bare clone, a URL); the commit the remote's branch must be at
 * (`expected`) would.
 */
function untracked(e: unknown, remote: string, ref: string, tracking: string | null): unknown {
  if (!(e instanceof PatchtxError) || e.kind !== 'stale' || typeof e.data.actual !== 'string') return e;
  const none =
    tracking === null
      ? `there is no remote-tracking ref to lease against (${hasScheme(remote) ? 'a URL has none' : `${remote} has no fetch refspec that maps ${ref}`})`
      : `there is no ${tracking} to lease against (never fetched)`;
  return new PatchtxError(
    'stale',
    `the remote's ${ref} is at ${e.data.actual.slice(0, 12)}, and ${none}: nothing was overwritten; give the commit the remote's branch must be at`,
    { ...e.data, remedy: { option: 'expected', value: '<commit>' } },
  );
}

/** A URL with git's HTTP settings for it (http.extraHeader, the http.ssl* settings), as fetchRef and pushRef take them. */
export interface RemoteEndpoint {
  url: string;
  headers: Record<string, string>;
  tls: TlsSettings;
}

/**
 * Where a push goes: the remote itself when it is a URL, else its configured pushurl or URL, else
 * the remote as a path, rewritten by git's url.<base>.insteadOf and pushInsteadOf rules
 * (url-rewrite.ts). A transport patchtx does not speak (git://, ftp://...), or a bad HTTP setting,
 * is refused here, before a command writes anything.
 */
export const pushEndpoint = (session: Session, remote: string): RemoteEndpoint => endpointOf(session, remote, 'push');

/**
 * Where a push's fetches (the remote's notes, a retry's new tip) fetch from, as git fetches: the
 * remote's URL (not its pushurl), rewritten by insteadOf rules alone; a remote with a pushurl and
 * no URL is fetched from its pushurl. Checked as pushEndpoint checks the push URL.
 */
export const fetchEndpoint = (session: Session, remote: string): RemoteEndpoint => endpointOf(session, remote, 'fetch');

function endpointOf(session: Session, remote: string, use: 'push' | 'fetch'): RemoteEndpoint {
  const { config } = session;
  const pushurl = hasScheme(remote) ? undefined : config.get(`remote.${remote}.pushurl`);
  const url = hasScheme(remote) ? remote : config.get(`remote.${remote}.url`);
  const rewritten = (u: string, explicit: boolean): string => (use === 'push' ? pushUrl(config, u, explicit) : fetchUrl(config, u));
  let chosen: string;
  if (pushurl !== undefined && (use === 'push' || url === undefined)) chosen = rewritten(pushurl, true);
  else if (url !== undefined) chosen = rewritten(url, false);
  // a path, as git takes one where no remote of that name is configured (or a URL a rule rewrites)
  else if (isPath(remote) || isRewritten(config, remote)) chosen = rewritten(remote, false);
  else throw new PatchtxError('usage', `no remote named '${remote}' is configured, and it is not a URL or a path`, { key: `remote.${remote}.url` });
  if (!viaGitTransport(chosen) && !/^https?:\/\//i.test(chosen)) {
    throw new PatchtxError('usage', `cannot ${use} ${use === 'push' ? 'to' : 'from'} ${anonymizeUrl(chosen)}: only ${SUPPORTED_REMOTES} are supported`, {
      reason: 'transport',
    });
  }
  return {
    url: chosen,
    headers: extraHeaders(session.config, chosen),
    tls: tlsSettings(session.config, session.env, chosen, session.repo.workdir ?? session.repo.gitdir),
  };
}

/**
 * Throws `usage` when a push could not be made: the remote is neither configured nor a URL, or there
 * is no branch to push (a detached HEAD, a ref that is not a branch). Checked before a command
 * writes anything.
 */
export async function checkPushRemote(opts: PushOptions): Promise<void> {
  await withSession({ ...opts, noRecover: true }, async (session) => {
    pushEndpoint(session, opts.remote ?? 'origin');
    branchOf(opts.ref, opts.ref === undefined ? (await readHead(session.repo)).ref : null);
  });
}

export async function pushBranch(opts: PushOptions): Promise<PushResult> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const { repo } = session;
    const remote = opts.remote ?? 'origin';
    const to = pushEndpoint(session, remote);
    const ref = branchOf(opts.ref, opts.ref === undefined ? (await readHead(repo)).ref : null);
    const commit = await readRef(repo, ref);
    if (commit === null) throw new PatchtxError('bad_revision', `${ref} does not exist here: nothing to push`, { ref });
    const tracking = trackingRefOf(session, remote, ref);
    const tracked = tracking === null ? null : await readRef(repo, tracking);
    const expected = opts.expected === undefined || (opts.createUntracked === true && tracking !== null && tracked === null) ? tracked : opts.expected;
    const pushed = await pushRef({ gitdir: repo.commonDir, ...to, localRef: ref, expected, force: opts.force }).catch((e: unknown) => {
      throw opts.expected === undefined && tracked === null ? untracked(e, remote, ref, tracking) : e;
    });
    const warnings: PushWarning[] = [];
    if (tracking !== null && tracked !== commit) {
      await updateRef(repo, { ref: tracking, expectedOld: tracked, newOid: commit, message: 'update by push', identity: reflogIdentity(session) });
    }
    const notes = await pushNotes(session, to, remote, warnings);
    return { ok: true, remote: anonymizeUrl(remote), url: pushed.url, ref, commit, previous: pushed.previous, forced: opts.force === true, notes, warnings };
  });
}

/** The least an attempt is taken to last, as the scale of the wait after it (a push that failed at once says little). */
const BACKOFF_FLOOR = 250;
/** The longest wait between two attempts. */
const BACKOFF_CAP = 60_000;

/**
 * How long to wait before the retry after attempt `attempt` (0-based), in milliseconds: a random
 * time (full jitter) up to a bound that starts at four times the time the lost attempt took and
 * grows fourfold with each attempt, to at most a minute. Bots that lost to the same push would
 * otherwise fetch and push again in step, and all but one lose again. The bound is on the scale of
 * an attempt, so that it spreads bots apart whatever the server's and the network's speed. It
 * grows fast, and up to a minute, because only a few attempts are allowed (`--retry N`): a crowd of
 * bots must be spread apart within them, and a bot that keeps losing must in the end wait for the
 * others to be done, as those that just landed push again at once (their next commits are built on
 * their own, and need no fetch).
 */
export const backoff = (attempt: number, took: number): number => Math.random() * Math.min(Math.max(took, BACKOFF_FLOOR) * 4 ** (attempt + 1), BACKOFF_CAP);

/** How many times the notes are merged with the remote's and pushed again before giving up. */
const NOTES_ATTEMPTS = 10;

/** Moves the local notes ref to the merge of its notes with `theirs` (the remote's notes commit, fetched). */
async function mergeInto(session: Session, theirs: string, remote: string): Promise<void> {
  const ours = await readRef(session.repo, NOTES_REF);
  const merged = await mergeNotes(session.store, ours, theirs, reflogIdentity(session));
  if (merged === ours) return;
  // a transaction that added its note meanwhile makes this merge stale: the next attempt merges again
  await updateRef(session.repo, {
    ref: NOTES_REF,
    expectedOld: ours,
    newOid: merged,
    message: `notes: merged with ${remote}`,
    identity: reflogIdentity(session),
  }).catch((e: unknown) => {
    if (!(e instanceof PatchtxError) || e.kind !== 'stale') throw e;
  });
}

/** How far back the local notes history is searched for the remote's notes last merged. */
const NOTES_LOOKBACK = 64;

/**
 * The remote's notes commit last merged into the local notes: the one the newest merge on the
 * local notes' first-parent line was made on (notes-merge.ts). Undefined when there is none within
 * reach: the fetch then takes the whole notes history. Only a hint to the server: were the commit
 * not there, the server would send the whole history.
 */
async function lastMergedNotes(session: Session, tip: string): Promise<string | undefined> {
  let oid: string | undefined = tip;
  for (let i = 0; i < NOTES_LOOKBACK && oid !== undefined; i++) {
    // a history cut short (a shallow clone) only makes the fetch larger
    const commit: CommitObject | null = await session.store.readCommit(oid).catch(() => null);
    if (commit === null) return undefined;
    const theirs = mergedFrom(commit);
    if (theirs !== null) return theirs;
    oid = commit.parents[0];
  }
  return undefined;
}

/**
 * Pushes the notes ref as a fast-forward of the remote's, after the branch has landed and on its
 * own, so that nothing here can cost the branch its lease. Where the remote's notes have moved on
 * (another bot pushed its own), they are fetched and merged with these (notes-merge.ts: notes of
 * different commits never conflict), the local notes ref moves to the merge, and the merge is
 * pushed at once: a wait between the merge and its push would only give other pushes the time to
 * make it stale. The first refusal only says that this repository had not seen the remote's
 * latest notes; a merge refused in turn lost a race with another push, and the next fetch waits a
 * random time first (backoff). Still refused after that many attempts, or the remote unreachable
 * now: a warning, not a failure (the branch has landed).
 */
async function pushNotes(session: Session, to: RemoteEndpoint, remote: string, warnings: PushWarning[]): Promise<PushResult['notes']> {
  const { repo } = session;
  const tip = await readRef(repo, NOTES_REF);
  if (tip === null) return 'absent';
  let lastError = '';
  // a notes commit the remote has: only the notes after it are fetched
  let have = await lastMergedNotes(session, tip);
  let from: RemoteEndpoint | undefined;
  for (let attempt = 0; attempt < NOTES_ATTEMPTS; attempt++) {
    const started = Date.now();
    try {
      if (attempt > 0) {
        // fetched from where git fetches (the remote's URL), not its pushurl
        from ??= fetchEndpoint(session, remote);
        const theirs = await fetchRef({ gitdir: repo.commonDir, ...from, ref: NOTES_REF, have });
        have = theirs ?? undefined;
        if (theirs !== null) await mergeInto(session, theirs, remote);
      }
      await pushRef({ gitdir: repo.commonDir, ...to, localRef: NOTES_REF, expected: null, fastForwardOnly: true });
      return 'pushed';
    } catch (e) {
      if (!(e instanceof PatchtxError)) throw e;
      lastError = e.message;
      if (e.kind !== 'stale') break;
    }
    // more attempts than a branch gets, each waiting no longer than the third: the wait stays bounded
    if (attempt > 0 && attempt < NOTES_ATTEMPTS - 1) await sleep(backoff(Math.min(attempt - 1, 2), Date.now() - started));
  }
  warnings.push({
    kind: 'notes_not_pushed',
    message: `${NOTES_REF} was not pushed (${lastError}); the patch texts of these commits stay here until the next push`,
    path: '',
    ref: NOTES_REF,
    reason: lastError,
  });
  return 'not_pushed';
}

/**
 * The push that follows `apply`: the lease is the commit the first new commit was built on. A lost
 * lease keeps the local commits and says so.
 */
export async function pushAfterApply(opts: PushOptions & { builtOn: string | null; committed: string[] }): Promise<PushResult> {
  try {
    return await pushBranch({ ...opts, expected: opts.builtOn, createUntracked: true });
  } catch (e) {
    if (!(e instanceof PatchtxError) || e.kind !== 'stale' || opts.committed.length === 0) throw e;
    const kept = opts.committed.map((c) => c.slice(0, 12)).join(', ');
    throw new PatchtxError('stale', `committed ${kept} here, but the push was refused: ${e.message}`, { ...e.data, committed: opts.committed });
  }
}

/** What `undo` or `redo` did to the branch (their result), for the push that follows them. */
export interface MovedByUndo {
  action: 'reset' | 'revert' | 'fast-forward';
  ref: string;
  commit: string | null;
  target: string;
}

/**
 * The push that follows `undo` or `redo`: the lease is where the branch was before it (the undone
 * commit, for an undo that moved the branch back; the new commit's parent otherwise).
 */
export async function pushAfterUndo(opts: PushOptions & { moved: MovedByUndo }): Promise<PushResult> {
  const { moved } = opts;
  if (moved.commit === null) {
    throw new PatchtxError('usage', `${moved.ref} has no commit left here (its first commit was undone): there is nothing to push`, { ref: moved.ref });
  }
  const builtOn =
    moved.action === 'reset' ? moved.target : ((await withSession({ ...opts, noRecover: true }, (s) => s.store.readCommit(moved.commit!))).parents[0] ?? null);
  return pushAfterApply({ ...opts, ref: moved.ref, builtOn, committed: moved.action === 'reset' ? [] : [moved.commit] });
}
