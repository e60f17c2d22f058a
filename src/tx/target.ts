// Which ref a transaction moves, from which commit, and whether this checkout's working tree and
// index follow it. Without --ref, the transaction moves the branch checked out here (in a bare
// repository: the branch HEAD names) and, in a checkout, updates the touched paths on disk.
// With --ref, it moves that ref only and never reads or writes the working tree or index, unless
// the ref is the very branch checked out here (then the checkout must follow, or `git status`
// would lie).
import { PatchtxError } from '../errors.js';
import { readHead, readRef, resolveRevision } from '../git/refs.js';
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
}

export interface TargetOptions {
  ref?: string;
  base?: string;
  expectHead?: string;
}

const BAD_REF = /(^|\/)\.|\.\.|[\x00-\x20~^:?*[\\\x7f]|@\{|\/\/|\/$|\.lock(\/|$)|^@$/;

export function normaliseRefName(name: string): string {
  const full = name.startsWith('refs/') ? name : `refs/heads/${name}`;
  if (BAD_REF.test(full) || full.endsWith('.')) {
    throw new PatchtxError('usage', `'${name}' is not a valid ref name`, { ref: name });
  }
  return full;
}

export async function resolveTarget(session: Session, opts: TargetOptions): Promise<Target> {
  const { repo, store } = session;
  const head = await readHead(repo);
  let ref: string;
  let worktree: boolean;
  if (opts.ref !== undefined) {
    ref = normaliseRefName(opts.ref);
    worktree = repo.workdir !== null && head.ref === ref;
  } else {
    ref = head.ref ?? 'HEAD';
    worktree = repo.workdir !== null;
  }
  const oldOid = ref === 'HEAD' ? head.oid : await readRef(repo, ref);

  let base = oldOid;
  if (opts.base !== undefined) {
    base = await resolveRevision(store, repo, opts.base);
    if (oldOid !== null && oldOid !== base) {
      throw new PatchtxError(
        'stale',
        `${ref} is at ${oldOid.slice(0, 12)}, not at the requested base ${opts.base} (${base.slice(0, 12)}); refusing to move it off its history`,
        { ref, expected: base, actual: oldOid },
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
  return { ref, oldOid, base, baseTree, worktree };
}
