// Recognising patchtx commits and walking a ref's first-parent history for them (in a shallow
// clone, as far as the clone holds it).
import type { FileChange } from '../engine/types.js';
import type { CommitObject } from '../git/objects/model/commit.js';
import type { PathDelta } from '../git/objects/tree-diff.js';
import { readTrailers } from '../git/objects/model/trailers.js';
import type { ObjectStore } from '../git/objects/store.js';
import { readShallow } from '../git/refs/shallow.js';
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

export interface HistoryStep {
  oid: string;
  commit: CommitObject;
  /** the last commit of a shallow clone's history: its parents are not in the repository */
  boundary: boolean;
}

/** `tip` and its first parents, newest first; in a shallow clone, down to its boundary only. */
export async function* firstParents(store: ObjectStore, tip: string | null): AsyncGenerator<HistoryStep> {
  const shallow = await readShallow(store.repo);
  let oid = tip;
  for (let i = 0; oid !== null && i < HISTORY_LIMIT; i++) {
    const commit = await store.readCommit(oid);
    const boundary = shallow.has(oid);
    yield { oid, commit, boundary };
    oid = boundary ? null : (commit.parents[0] ?? null);
  }
}
