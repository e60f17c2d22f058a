// Moving a branch from one commit to another as one transaction, the checkout (when the branch is
// checked out) brought in line at the paths whose content differs, as `git reset --keep` would:
// a path with uncommitted changes among them refuses the move (`dirty`), and nothing changes.
// `apply --push --retry` takes the branch back to the remote's new tip with it before applying
// the patches again there, and back to its own commits when they no longer apply.
import { PatchtxError } from '../errors.js';
import type { Identity } from '../git/objects/model/identity.js';
import { resolveIdentity } from '../git/repo/identity.js';
import { diffTrees, type PathDelta } from '../git/objects/tree-diff.js';
import type { TreeEdit } from '../git/objects/tree-edit.js';
import { stampsOf } from '../tx/as-read.js';
import { runTransaction, type NoteWarning } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { dirtyList, inspectPaths } from '../tx/state.js';
import { resolveTarget } from '../tx/target.js';
import { asCheckedOut } from './undo.js';

export interface MoveBranchOptions extends SessionOptions {
  /** the full branch name */
  ref: string;
  /** where the branch must be now */
  from: string;
  to: string;
  /** the reflog's words */
  why: string;
}

const editOf = (e: PathDelta['before']): TreeEdit => (e === null ? null : { oid: e.oid, mode: e.mode as Exclude<TreeEdit, null>['mode'] });

function identityOf(session: Session): Identity {
  try {
    return resolveIdentity(session.config, 'committer', session.env);
  } catch {
    return { name: 'patchtx', email: 'patchtx', timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
  }
}

/** Moves `ref` from `from` to `to` (stale when it is not at `from`); returns the run's warnings. */
export async function moveBranch(opts: MoveBranchOptions): Promise<NoteWarning[]> {
  return withSession(opts, async (session) => {
    const target = await resolveTarget(session, { ref: opts.ref, expectHead: opts.from });
    const toTree = (await session.store.readCommit(opts.to)).tree;
    const deltas = await diffTrees(session.store, target.baseTree, toTree);
    const paths = deltas.map((d) => d.path);
    const outcome = await runTransaction(session, target, 'apply', identityOf(session), async (lock) => {
      const states = target.worktree ? await inspectPaths(session, target.baseTree, paths, lock?.index ?? null, true) : new Map();
      const dirty = [...states.values()].filter((s) => s.dirty !== undefined);
      if (dirty.length > 0) {
        throw new PatchtxError('dirty', `cannot move ${opts.ref} to ${opts.to.slice(0, 12)}: these paths have uncommitted changes:\n${dirtyList(dirty)}`, {
          paths: dirty.map((s) => s.path),
        });
      }
      const found = new Map(deltas.map((d) => [d.path, d.before?.oid ?? null]));
      const links = new Set(deltas.filter((d) => d.before?.mode === '120000').map((d) => d.path));
      if (target.worktree) await asCheckedOut(session, target.oldOid!, found, links);
      return {
        newOid: opts.to,
        targets: new Map(deltas.map((d) => [d.path, editOf(d.after)])),
        contents: new Map(),
        reflogMessage: `patchtx: ${opts.why}`,
        ...(target.worktree ? { found, stamps: stampsOf(states.values()) } : {}),
      };
    });
    return outcome.warnings;
  });
}
