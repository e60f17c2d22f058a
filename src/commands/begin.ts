// Where a transaction of several steps (the library's begin()) lands: the ref's commit when it
// begins. Every step is then checked over that commit, and the commit lands only if the ref is
// still there; on a ref with no commit yet, over the base it would be created from.
import { resolveTarget } from '../tx/target.js';
import { withSession, type SessionOptions } from '../tx/session.js';

export interface BeginPoint {
  /** the ref's commit now (null: the ref has no commit yet) */
  head: string | null;
  /** the apply options that hold every step and the commit to that point */
  pin: { base?: string; expectHead?: string };
}

/** The point `ref` (default: the checked-out branch) is at, or would be created from `base`. */
export async function beginPoint(session: SessionOptions, ref: string | undefined, base: string | undefined): Promise<BeginPoint> {
  const target = await withSession(session, (s) => resolveTarget(s, { ref, base, commits: true }));
  const pin = target.oldOid !== null ? { base: undefined, expectHead: target.oldOid } : { base: target.base ?? undefined };
  return { head: target.oldOid, pin };
}
