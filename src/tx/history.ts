// Recognising patchtx commits and walking a ref's first-parent history for them.
import type { FileChange } from '../engine/types.js';
import type { CommitObject } from '../git/model/commit.js';
import type { PathDelta } from '../git/tree-diff.js';
import { readTrailers } from '../git/model/trailers.js';
import type { ObjectStore } from '../git/objects.js';
import { PATCH_ID_TRAILER, TREE_TRAILER, UNDO_TRAILER } from './message.js';

/** A tree diff as A/M/D changes; `reverse` reads it from the new side back to the old. */
export function changesOf(deltas: readonly PathDelta[], reverse = false): FileChange[] {
  return deltas.map((d) => {
    const [from, to] = reverse ? [d.after, d.before] : [d.before, d.after];
    return { op: from === null ? 'A' : to === null ? 'D' : 'M', path: d.path };
  });
}

/** How far back `log` and `undo` look along first parents before giving up. */
export const HISTORY_LIMIT = 10_000;

export interface PatchtxCommitInfo {
  patchId: string;
  /** for a revert made by `patchtx undo`: the commit it reverts */
  undoOf: string | null;
  /** the tree patchtx made the commit with (null: made before patchtx recorded it) */
  tree: string | null;
}

export function patchtxInfo(commit: CommitObject): PatchtxCommitInfo | null {
  const trailers = readTrailers(commit.message);
  const id = trailers.find((t) => t.key === PATCH_ID_TRAILER);
  if (!id) return null;
  return {
    patchId: id.value,
    undoOf: trailers.find((t) => t.key === UNDO_TRAILER)?.value ?? null,
    tree: trailers.find((t) => t.key === TREE_TRAILER)?.value ?? null,
  };
}

export async function* firstParents(store: ObjectStore, tip: string | null): AsyncGenerator<{ oid: string; commit: CommitObject }> {
  let oid = tip;
  for (let i = 0; oid !== null && i < HISTORY_LIMIT; i++) {
    const commit = await store.readCommit(oid);
    yield { oid, commit };
    oid = commit.parents[0] ?? null;
  }
}
