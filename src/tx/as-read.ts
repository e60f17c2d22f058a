// What a transaction read at each touched path of the checkout, and whether the path still holds
// it. The dirty checks run once, before the patch is matched; a file saved after that (an editor,
// a formatter) must neither be overwritten nor have its old content committed as if nothing had
// happened. So the run looks again under the index lock just before its commit point (refusing
// when anything changed) and once more just before each file is replaced (leaving a changed file
// as it is, as recovery does for edits made after a run died).
import { PatchtxError } from '../errors.js';
import type { BigIntStats } from 'node:fs';
import { inspectWorktreePath, otherFileType, stampOf, statStamp, worktreeContentOid } from '../git/worktree/worktree.js';
import type { PathState } from './state.js';

export interface AsRead {
  /** statStamp of each path when the run looked at it */
  stamps: ReadonlyMap<string, string>;
  /** the object id of the content the run found there, null for nothing (Journal.found); paths
   * without one are not compared by content */
  found: ReadonlyMap<string, string | null>;
}

/**
 * The stamps of the paths `states` describe (checkout mode: each has its working-tree state). Each
 * state's stamp is taken once and kept with it (PathState.stamp): a load made before the lock and
 * used under it has its stamps asked for twice (what the load was read from, what the commit point
 * compares with).
 */
export function stampsOf(states: Iterable<PathState>): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const s of states) {
    if (!s.worktree) continue;
    if (s.stamp === undefined || s.stamp.of !== s.worktree) s.stamp = { of: s.worktree, stamp: stampOf(s.worktree) };
    stamps.set(s.path, s.stamp.stamp);
  }
  return stamps;
}

/**
 * Whether `p`, whose lstat is now `st`, still holds what the run read: the same stat data, or
 * failing that the same content (a save of unchanged bytes, a `touch`). Paths the run did not
 * stamp are not its concern here.
 */
export async function stillAsRead(workdir: string, p: string, st: BigIntStats | null, asRead: AsRead): Promise<boolean> {
  if (sameStatAsRead(p, st, asRead)) return true;
  const stamp = asRead.stamps.get(p)!;
  if (!asRead.found.has(p)) return false;
  // a file that became a symbolic link (or the reverse) is not what was read, even where the link's
  // target reads as the file's bytes (both hash as a blob of those bytes)
  if (st !== null && otherFileType(stamp, st)) return false;
  return (await worktreeContentOid(workdir, p, st)) === asRead.found.get(p);
}

/** stillAsRead's answer where the stat data settles it, at once: a path not stamped, or stamped
 * with the same stat data (false: the content is still to be compared). */
export function sameStatAsRead(p: string, st: BigIntStats | null, asRead: AsRead): boolean {
  const stamp = asRead.stamps.get(p);
  return stamp === undefined || stamp === statStamp(st);
}

/** The stamped paths that no longer hold what the run read, in the order they were stamped. */
export async function changedSinceRead(workdir: string, asRead: AsRead): Promise<string[]> {
  const changed: string[] = [];
  const knownDirs = new Set<string>();
  for (const p of asRead.stamps.keys()) {
    const wt = await inspectWorktreePath(workdir, p, knownDirs);
    const st = wt.kind === 'missing' || wt.kind === 'blocked' ? null : wt.stat;
    if (stampOf(wt) !== asRead.stamps.get(p) && !(await stillAsRead(workdir, p, st, asRead))) changed.push(p);
  }
  return changed;
}

/** The refusal when touched paths changed before the commit point: nothing has been committed. */
export function changedWhileRunning(paths: string[]): PatchtxError {
  return new PatchtxError(
    'dirty',
    `these paths changed while the transaction ran, after they had been read:\n${paths.map((p) => `  ${p}`).join('\n')}\nnothing was committed; run it again`,
    { paths },
  );
}
