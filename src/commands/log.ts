// `patchtx log`: the patchtx transactions on a ref, newest first, with the files each changed.
import type { FileChange } from '../engine/types.js';
import { readNoteIn, readNotesTree } from '../git/refs/notes.js';
import { diffTrees } from '../git/objects/tree-diff.js';
import type { CommitObject } from '../git/objects/model/commit.js';
import { changesOf, firstParents, patchtxInfo, type PatchtxCommitInfo } from '../tx/history.js';
import { invertMoves, movedFrom, withMoves } from './moves.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type SessionOptions } from '../tx/session.js';
import { resolveTarget } from '../tx/target.js';

export interface LogEntry {
  commit: string;
  time: string;
  ref: string;
  subject: string;
  patchId: string;
  undoOf: string | null;
  files: FileChange[];
  /** the oldest commit of a shallow clone: its parent was not fetched, so its files are not known */
  shallow?: true;
}

export interface LogListing {
  entries: LogEntry[];
  /** the commit where a shallow clone's history ended before the listing was complete, or null */
  shallowEnd: string | null;
}

export interface LogOptions extends SessionOptions {
  ref?: string;
  max: number;
}

export async function listTransactions(opts: LogOptions): Promise<LogListing> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const target = await resolveTarget(session, { ref: opts.ref, readOnly: true });
    const out: LogEntry[] = [];
    // one read of the notes ref for the whole listing, not one per commit
    const notes = await readNotesTree(session.store, session.repo, NOTES_REF);
    let shallowEnd: string | null = null;
    for await (const { oid, commit, boundary } of firstParents(session.store, target.oldOid)) {
      if (out.length >= opts.max) break;
      if (boundary && commit.parents.length > 0) shallowEnd = oid;
      const info = patchtxInfo(commit);
      if (!info) continue;
      if (shallowEnd !== null) {
        out.push({ ...entryOf(oid, commit, target.ref, info), files: [], shallow: true });
        continue;
      }
      const parentTree = commit.parents[0] ? (await session.store.readCommit(commit.parents[0])).tree : null;
      const deltas = await diffTrees(session.store, parentTree, commit.tree);
      // moves come from the patch kept with the commit (for an undo's revert commit, the moves of
      // the commit it takes back, reversed); without it they stay D + A
      const moves = info.undoOf
        ? invertMoves(movedFrom((await readNoteIn(session.store, notes, info.undoOf)) ?? ''))
        : movedFrom((await readNoteIn(session.store, notes, oid)) ?? '');
      const files = withMoves(changesOf(deltas), moves);
      out.push({ ...entryOf(oid, commit, target.ref, info), files });
    }
    return { entries: out, shallowEnd };
  });
}

function entryOf(oid: string, commit: CommitObject, ref: string, info: PatchtxCommitInfo): Omit<LogEntry, 'files'> {
  return {
    commit: oid,
    time: new Date(commit.committer.timestamp * 1000).toISOString(),
    ref,
    subject: commit.message.split('\n')[0]!,
    patchId: info.patchId,
    undoOf: info.undoOf,
  };
}
