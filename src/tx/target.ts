// Which ref a transaction moves, from which commit, and whether this checkout's working tree and
// index follow it. Without --ref, the transaction moves the branch checked out here (in a bare
// repository: the branch HEAD names) and, in a checkout, updates the touched paths on disk.
// With --ref, it moves that ref only and never reads or writes the working tree or index, unless
// the ref is the very branch checked out here (then the checkout must follow, or `git status`
// would lie).
import { PatchtxError } from '../errors.js';
import { operationInProgress } from '../git/repo/in-progress.js';
import { normaliseRefName } from '../git/refs/ref-name.js';
import { findRefNamed, hasAnyBranch, readHead, readRef, resolveRevision } from '../git/refs/refs.js';
import { checkedOutElsewhere } from '../git/repo/worktrees.js';
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
  /** a ref that does not exist yet may start without a base, as a first commit (an orphan): what
   * `show --regenerate` checks a first commit's patch with; never a caller's choice */
  orphan?: boolean;
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
    if (found === null) throw new PatchtxError('bad_revision', `no ref named '${opts.ref}' in this repository`, { ref: opts.ref });
    ref = found.ref;
    oldOid = found.oid;
    worktree = repo.workdir !== null && head.ref === ref;
  } else if (opts.ref !== undefined && opts.ref !== 'HEAD') {
    ref = normaliseRefName(opts.ref);
    // patchtx moves branches only: a tag moved under its users, a remote-tracking ref that the
    // next fetch overwrites, or a notes ref (patchtx's own among them) given a file commit are
    // never what a caller meant
    if (!ref.startsWith('refs/heads/')) {
      throw new PatchtxError('usage', `${opts.ref} is not a branch: patchtx commits onto branches (refs/heads/NAME) only`, { ref, option: 'ref' });
    }
    oldOid = await readRef(repo, ref);
    // a short name git reads as another ref (a tag v1, a remote-tracking origin/main): a new
    // branch of that name would shadow it, which is never what the caller meant
    if (!opts.ref.startsWith('refs/') && oldOid === null) {
      const other = await findRefNamed(repo, opts.ref);
      if (other !== null) {
        throw new PatchtxError('usage', `${opts.ref} names ${other.ref}, which is not a branch: patchtx commits onto branches (refs/heads/NAME) only`, {
          ref: other.ref,
          option: 'ref',
        });
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
      throw new PatchtxError(
        'usage',
        `${busy.what} is in progress in this checkout (${busy.marker} exists) and patchtx does not commit in the middle of it: ${busy.remedy} first`,
        {
          reason: 'operation_in_progress',
          what: busy.what,
          marker: busy.marker,
        },
      );
    }
  }
  if (!opts.readOnly && !worktree && ref.startsWith('refs/heads/')) {
    const elsewhere = await checkedOutElsewhere(repo, ref, session.config.getBool('core.bare') !== true);
    if (elsewhere !== null) {
      throw new PatchtxError(
        'usage',
        `${ref} is checked out in the worktree at ${elsewhere}; apply in that worktree so its working tree and index follow the branch`,
        { ref, worktree: elsewhere, remedy: { option: 'repoDir', value: elsewhere } },
      );
    }
  }
  // a tag being read: the commit it names
  if (opts.readOnly && oldOid !== null) oldOid = await resolveRevision(store, repo, oldOid);
  if (opts.commits && oldOid === null && opts.base === undefined && !worktree && !opts.orphan && (await hasAnyBranch(repo))) {
    // a commit without a parent on a new branch is never what a caller means in a repository
    // that has branches (whatever HEAD names); git too wants a start point for a new branch
    const hint = head.oid === null ? '' : ', HEAD for the current commit';
    throw new PatchtxError('usage', `${ref} does not exist yet; start it from a base revision${hint}`, {
      ref,
      remedy: { option: 'base', value: head.oid === null ? 'REV' : 'HEAD' },
    });
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
        `${ref} has no commits yet and is checked out here; a base cannot start it from ${opts.base} in this checkout (use another branch name, or check out ${opts.base} first)`,
        { ref, option: 'base' },
      );
    }
  }
  if (opts.expectHead !== undefined) {
    const want = opts.expectHead.toLowerCase();
    if (!/^[0-9a-f]{4,40}$/.test(want))
      throw new PatchtxError('usage', `the expected head must be a commit id, got '${opts.expectHead}'`, { option: 'expectHead', value: opts.expectHead });
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
