// `patchtx log`: the patchtx transactions on a ref, newest first, with the files each changed.
import type { FileChange } from '../engine/types.js';
import { readNoteIn, readNotesTree } from '../git/notes.js';
import { diffTrees } from '../git/tree-diff.js';
import { changesOf, firstParents, patchtxInfo } from './history.js';
import { movedFrom, withMoves } from './moves.js';
import { NOTES_REF } from './run.js';
import { withSession, type SessionOptions } from './session.js';
import { resolveTarget } from './target.js';

export interface LogEntry {
  commit: string;
  time: string;
  ref: string;
  subject: string;
  patchId: string;
  undoOf: string | null;
  files: FileChange[];
}

export interface LogOptions extends SessionOptions {
  ref?: string;
  max: number;
}

export async function listTransactions(opts: LogOptions): Promise<LogEntry[]> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const target = await resolveTarget(session, { ref: opts.ref, readOnly: true });
    const out: LogEntry[] = [];
    // one read of the notes ref for the whole listing, not one per commit
    const notes = await readNotesTree(session.store, session.repo, NOTES_REF);
    for await (const { oid, commit } of firstParents(session.store, target.oldOid)) {
      if (out.length >= opts.max) break;
      const info = patchtxInfo(commit);
      if (!info) continue;
      const parentTree = commit.parents[0] ? (await session.store.readCommit(commit.parents[0])).tree : null;
      const deltas = await diffTrees(session.store, parentTree, commit.tree);
      // moves come from the patch kept with the commit; without it they stay D + A
      const patchText = await readNoteIn(session.store, notes, oid);
      const files = patchText === null ? changesOf(deltas) : withMoves(changesOf(deltas), movedFrom(patchText));
      out.push({
        commit: oid,
        time: new Date(commit.committer.timestamp * 1000).toISOString(),
        ref: target.ref,
        subject: commit.message.split('\n')[0],
        patchId: info.patchId,
        undoOf: info.undoOf,
        files,
      });
    }
    return out;
  });
}
