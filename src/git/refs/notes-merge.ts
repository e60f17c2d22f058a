// Merging two histories of a notes ref (this repository's and a remote's) into one notes commit.
// Each note belongs to the commit it annotates, and patchtx writes one note per commit it made, so
// two notes histories grown apart hold notes of different commits: their trees are united. Where
// both sides have the same path with different content (the same commit annotated twice, or a
// non-note entry both changed), trees are united further down and a file keeps this side's
// version, as `git notes merge -s ours` would. Notes under different fan-out layouts all stay (git
// reads any mix of layouts).
// The result is one commit on top of the remote's, as a rebase would make it, not a merge commit of
// the two histories: the notes are all in its tree, and its push is then a fast-forward by that one
// commit. A merge commit would bring the local notes history along, which the remote has never
// seen (a notes commit for each transaction, those of attempts that were applied again too), and
// the client that pushes it walks that whole history, down to the remote's older notes, to find
// what to send.
import type { CommitObject } from '../objects/model/commit.js';
import type { Identity } from '../objects/model/identity.js';
import type { TreeEntry } from '../objects/model/tree.js';
import type { ObjectStore } from '../objects/store.js';

const MERGE_MESSAGE = "Notes merged by 'patchtx'\n";

/** The union of trees `ours` and `theirs` (see above); its id. */
async function uniteTrees(store: ObjectStore, ours: string, theirs: string): Promise<string> {
  if (ours === theirs) return ours;
  const a = await store.treeIndex(ours);
  const b = await store.treeIndex(theirs);
  const united = new Map<string, TreeEntry>([...a].map(([key, e]) => [key, { ...e }]));
  for (const [key, other] of b) {
    const mine = united.get(key);
    if (mine === undefined) united.set(key, { ...other });
    else if (mine.oid !== other.oid && mine.mode === '40000' && other.mode === '40000') {
      united.set(key, { ...mine, oid: await uniteTrees(store, mine.oid, other.oid) });
    }
  }
  const entries = [...united.values()];
  return store.writeTree(entries);
}

/**
 * The notes commit that holds the notes of both `ours` and `theirs` (notes commits): `theirs`
 * when it already holds all of ours, else a commit on top of `theirs` with the united tree.
 */
export async function mergeNotes(store: ObjectStore, ours: string | null, theirs: string, identity: Identity): Promise<string> {
  if (ours === null || ours === theirs) return theirs;
  const [mine, other] = [await store.readCommit(ours), await store.readCommit(theirs)];
  const tree = await uniteTrees(store, mine.tree, other.tree);
  if (tree === other.tree) return theirs;
  return store.writeCommit({ tree, parents: [theirs], author: identity, committer: identity, message: MERGE_MESSAGE });
}

/**
 * The remote's side of a notes merge: the parent a merge made here was put on (the last parent of
 * a merge commit of two notes histories, as git notes merge and earlier versions made them); null
 * for a commit that is no merge.
 */
export function mergedFrom(commit: CommitObject): string | null {
  if (commit.message === MERGE_MESSAGE || commit.parents.length === 2) return commit.parents[commit.parents.length - 1] ?? null;
  return null;
}
