// Which ref a transaction moves, from which commit, and whether this checkout's working tree and
// index follow it. Without --ref, the transaction moves the branch checked out here (in a bare
// repository: the branch HEAD names) and, in a checkout, updates the touched paths on disk.
// With --ref, it moves that ref only and never reads or writes the working tree or index, unless
// the ref is the very branch checked out here (then the checkout must follow, or `git status`
// would lie).
import { readdir, readFile } from '../git/fsx.js';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { operationInProgress } from '../git/in-progress.js';
import { findRefNamed, hasAnyBranch, readHead, readRef, resolveRevision } from '../git/refs.js';
import { patchtxInfo } from './history.js';
import type { Session } from './session.js';

export interface Target {
  /** full ref name (refs/heads/main), or HEAD when detached */
  ref: string;
  /** the ref's value now; null when it does not exist yet (unborn or new branch) */
  oldOid: string | null;
  /** the commit the patch applies to; null on an unborn branch (empty tree) */
  base: string | null;
  baseTree: string | null;
  /** bring this checkout's working tree and index in line for the touched paths */
  worktree: boolean;
  /**
   * Set when the ref is not at the requested base but at a commit of the same patch right on
   * top of it (TargetOptions.patchId): `base` is then that commit, so that the patch is found
   * already applied there; if it is not, the run is stale (offBase).
   */
  retryOnBase?: { rev: string; oid: string };
}

export interface TargetOptions {
  ref?: string;
  base?: string;
  expectHead?: string;
  /** only reading the ref (log): a branch checked out in another worktree is fine */
  readOnly?: boolean;
  /** committing onto the ref (apply): a ref that does not exist yet is created, from `base` */
  commits?: boolean;
  /** the Patch-Id of the patch to apply: a ref at that patch's commit on top of `base` is a retry */
  patchId?: string;
}

/** The refusal of a ref that is not at the requested base. */
export function offBase(ref: string, oldOid: string, rev: string, base: string): PatchtxError {
  return new PatchtxError(
    'stale',
    `${ref} is at ${oldOid.slice(0, 12)}, not at the requested base ${rev} (${base.slice(0, 12)}); refusing to move it off its history`,
    { ref, expected: base, actual: oldOid },
  );
}

/** Whether `tip` is a commit patchtx made from the patch `patchId` with `base` as its only parent. */
async function samePatchOn(session: Session, tip: string, base: string, patchId: string): Promise<boolean> {
  const commit = await session.store.readCommit(tip);
  return commit.parents.length === 1 && commit.parents[0] === base && patchtxInfo(commit)?.patchId === patchId;
}

/**
 * The other checkouts of this repository whose HEAD is the branch `ref`: moving it from here would
 * leave their index and working tree describing the old commit (their `git status` would show the
 * change reversed), so, as git does for `git branch -f`, that is refused.
 */
async function checkedOutElsewhere(repo: Session['repo'], ref: string, mainIsCheckout: boolean): Promise<string | null> {
  const candidates: { gitdir: string; where: () => Promise<string> }[] = [];
  if (repo.gitdir !== repo.commonDir && mainIsCheckout) {
    candidates.push({ gitdir: repo.commonDir, where: async () => path.dirname(repo.commonDir) });
  }
  let names: string[] = [];
  try {
    names = await readdir(path.join(repo.commonDir, 'worktrees'));
  } catch {
    // no linked worktrees
  }
  for (const name of names) {
    const gitdir = path.join(repo.commonDir, 'worktrees', name);
    candidates.push({
      gitdir,
      where: async () => {
        try {
          return path.dirname((await readFile(path.join(gitdir, 'gitdir'), 'utf8')).trim());
        } catch {
          return gitdir;
        }
      },
    });
  }
  for (const c of candidates) {
    if (path.resolve(c.gitdir) === path.resolve(repo.gitdir)) continue;
    let head: string;
    try {
      head = (await readFile(path.join(c.gitdir, 'HEAD'), 'utf8')).trim();
    } catch {
      continue;
    }
    if (head === `ref: ${ref}`) return c.where();
  }
  return null;
}

const BAD_REF = /(^|\/)\.|\.\.|[\x00-\x20~^:?*[\\\x7f]|@\{|\/\/|\/$|\.lock(\/|$)|^@$/;

export function normaliseRefName(name: string): string {
  const full = name.startsWith('refs/') ? name : `refs/heads/${name}`;
  // git refuses a branch named HEAD (`git branch HEAD`): it would shadow HEAD in every revision
  if (BAD_REF.test(full) || full.endsWith('.') || full === 'refs/heads/HEAD' || name.startsWith('-')) {
    throw new PatchtxError('usage', `'${name}' is not a valid ref name`, { ref: name });
  }
  return full;
}

export async function resolveTarget(session: Session, opts: TargetOptions): Promise<Target> {
  const { repo, store } = session;
  const head = await readHead(repo);
  let ref: string;
  let worktree: boolean;
  /** the ref's value now */
  let oldOid: string | null;
  // `@` is git's short name for HEAD
  if (opts.ref === '@') opts = { ...opts, ref: 'HEAD' };
  if (opts.ref !== undefined && opts.ref !== 'HEAD' && opts.readOnly) {
    // reading (log): any ref git would find by that name, tags and remote-tracking refs included
    const found = await findRefNamed(repo, opts.ref);
    if (found === null) throw new PatchtxError('usage', `no ref named '${opts.ref}' in this repository`, { ref: opts.ref });
    ref = found.ref;
    oldOid = found.oid;
    worktree = repo.workdir !== null && head.ref === ref;
  } else if (opts.ref !== undefined && opts.ref !== 'HEAD') {
    ref = normaliseRefName(opts.ref);
    // patchtx moves branches only: a tag moved under its users, a remote-tracking ref that the
    // next fetch overwrites, or a notes ref (patchtx's own among them) given a file commit are
    // never what a caller meant
    if (!ref.startsWith('refs/heads/')) {
      throw new PatchtxError('usage', `--ref ${opts.ref} is not a branch: patchtx commits onto branches (refs/heads/NAME) only`, { ref });
    }
    oldOid = await readRef(repo, ref);
    // a short name git reads as another ref (a tag v1, a remote-tracking origin/main): a new
    // branch of that name would shadow it, which is never what the caller meant
    if (!opts.ref.startsWith('refs/') && oldOid === null) {
      const other = await findRefNamed(repo, opts.ref);
      if (other !== null) {
        throw new PatchtxError('usage', `--ref ${opts.ref} names ${other.ref}, which is not a branch: patchtx commits onto branches (refs/heads/NAME) only`, { ref: other.ref });
      }
    }
    worktree = repo.workdir !== null && head.ref === ref;
  } else {
    ref = head.ref ?? 'HEAD';
    // readHead has followed HEAD to the branch already
    oldOid = head.oid;
    worktree = repo.workdir !== null;
  }
  if (!opts.readOnly && worktree) {
    // as git refuses a plain commit then (or makes it part of that operation)
    const busy = await operationInProgress(repo);
    if (busy !== null) {
      throw new PatchtxError('usage', `${busy.what} is in progress in this checkout (${busy.marker} exists) and patchtx does not commit in the middle of it: ${busy.remedy} first`, {
        reason: 'operation_in_progress',
        what: busy.what,
        marker: busy.marker,
      });
    }
  }
  if (!opts.readOnly && !worktree && ref.startsWith('refs/heads/')) {
    const elsewhere = await checkedOutElsewhere(repo, ref, session.config.getBool('core.bare') !== true);
    if (elsewhere !== null) {
      throw new PatchtxError(
        'usage',
        `${ref} is checked out in the worktree at ${elsewhere}; run patchtx there (--repo ${elsewhere}) so its working tree and index follow the branch`,
        { ref, worktree: elsewhere },
      );
    }
  }
  // a tag being read: the commit it names
  if (opts.readOnly && oldOid !== null) oldOid = await resolveRevision(store, repo, oldOid);
  if (opts.commits && oldOid === null && opts.base === undefined && !worktree && (await hasAnyBranch(repo))) {
    // a commit without a parent on a new branch is never what a caller means in a repository
    // that has branches (whatever HEAD names); git too wants a start point for a new branch
    const hint = head.oid === null ? '' : ' (--base HEAD starts it from the current commit)';
    throw new PatchtxError('usage', `${ref} does not exist yet; pass --base REV to start it${hint}`, { ref });
  }

  let base = oldOid;
  let retryOnBase: Target['retryOnBase'];
  if (opts.base !== undefined) {
    base = await resolveRevision(store, repo, opts.base);
    if (oldOid !== null && oldOid !== base) {
      // the same run again after it succeeded: the patch is looked at on the ref's tip
      if (opts.patchId === undefined || !(await samePatchOn(session, oldOid, base, opts.patchId))) throw offBase(ref, oldOid, opts.base, base);
      retryOnBase = { rev: opts.base, oid: base };
      base = oldOid;
    }
    if (oldOid === null && worktree) {
      // the checkout's index holds no commit's tree: committing onto `base` and syncing only the
      // touched paths would leave every other file of `base` looking staged for deletion
      throw new PatchtxError(
        'usage',
        `${ref} has no commits yet and is checked out here; --base cannot start it from ${opts.base} in this checkout (use --ref with another branch name, or check out ${opts.base} first)`,
        { ref },
      );
    }
  }
  if (opts.expectHead !== undefined) {
    const want = opts.expectHead.toLowerCase();
    if (!/^[0-9a-f]{4,40}$/.test(want)) throw new PatchtxError('usage', `--expect-head wants a commit id, got '${opts.expectHead}'`);
    if (oldOid === null || !oldOid.startsWith(want)) {
      throw new PatchtxError('stale', `${ref} is at ${oldOid ?? '(nothing)'}, not at the expected ${opts.expectHead}`, {
        ref,
        expected: opts.expectHead,
        actual: oldOid,
      });
    }
  }
  const baseTree = base === null ? null : (await store.readCommit(base)).tree;
  return { ref, oldOid, base, baseTree, worktree, ...(retryOnBase ? { retryOnBase } : {}) };
}
