// Uncommitted work a transaction replaces: the working-tree bytes and the index entry of each
// touched path that had uncommitted changes when the run took them in (a file the patch deletes,
// an untracked file an Add replaces, an edit the commit takes in). They are kept as a tree beside
// the transaction's note, at `patchtx-saved/<2 hex>/<38 hex of the commit>/` in the notes tree
// (a patch that needs no commit but still replaces such work: of the record's own tree id):
//   paths              the saved paths, one a line
//   worktree/<path>    what the working tree held there (absent: nothing), with its mode
//   index/<path>       the path's index entry (absent: none)
// So `git gc` keeps them (they are reachable from the notes ref), `git show` gets them back, and
// undo of the transaction puts them back as they were.
import type { BigIntStats } from 'node:fs';
import type { IndexEntry } from '../git/index/entry.js';
import type { TreeMode } from '../git/objects/model/tree.js';
import type { ObjectStore } from '../git/objects/store.js';
import { readNotesTree } from '../git/refs/notes.js';
import type { Repository } from '../git/repo/repository.js';
import { editTree, fileEntryOf, lookupPaths, type TreeEdit } from '../git/objects/tree-edit.js';
import type { WorktreePathState } from '../git/worktree/worktree.js';

export const SAVED_DIR = 'patchtx-saved';

export interface SavedPath {
  path: string;
  /** what the working tree held (null: nothing) */
  worktree: TreeEdit;
  /** the path's index entry (null: none) */
  index: TreeEdit;
}

/** Where the record of `commit` sits in the notes tree. */
export const savedRecordPath = (commit: string): string => `${SAVED_DIR}/${commit.slice(0, 2)}/${commit.slice(2)}`;

/** What `git show` takes to print the saved side of `p` (the record of `commit` under `notesRef`). */
export const savedSpec = (notesRef: string, commit: string, p: string, side: 'worktree' | 'index'): string =>
  `${notesRef}:${savedRecordPath(commit)}/${side}/${p}`;

const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/**
 * What the checkout held at a path: `bytes` the working-tree content the run read (a file's or
 * a symlink's target), `entries` its index entries. A tree may only name objects that exist: an
 * entry whose object is missing (`git add -N` names the empty blob without writing it) gets the
 * empty blob written, any other missing one is not recorded.
 */
export async function savedPathOf(
  store: ObjectStore,
  p: string,
  wt: WorktreePathState | undefined,
  bytes: Uint8Array | undefined,
  entries: readonly IndexEntry[],
  trustExecutableBit: boolean,
): Promise<SavedPath> {
  const staged = entries.find((e) => e.stage === 0);
  let index: TreeEdit = null;
  if (staged && (await store.hasObject(staged.oid))) index = { oid: staged.oid, mode: modeText(staged.mode) };
  else if (staged?.oid === EMPTY_BLOB) index = { oid: await store.writeBlob(new Uint8Array(0)), mode: modeText(staged.mode) };
  let worktree: TreeEdit = null;
  if (bytes && (wt?.kind === 'file' || wt?.kind === 'symlink')) {
    const mode: TreeMode =
      wt.kind === 'symlink' ? '120000' : trustExecutableBit ? (executable(wt.stat) ? '100755' : '100644') : index?.mode === '100755' ? '100755' : '100644';
    worktree = { oid: await store.writeBlob(bytes), mode };
  }
  return { path: p, worktree, index };
}

const executable = (st: BigIntStats): boolean => (st.mode & 0o100n) !== 0n;
const modeText = (mode: number): TreeMode => (mode === 0o100755 ? '100755' : mode === 0o120000 ? '120000' : mode === 0o160000 ? '160000' : '100644');

/** Writes the record's tree (its objects join the store's batch); returns its id. */
export async function writeSavedRecord(store: ObjectStore, saved: readonly SavedPath[]): Promise<string> {
  const edits = new Map<string, TreeEdit>();
  edits.set('paths', { oid: await store.writeBlob(Buffer.from(saved.map((s) => `${s.path}\n`).join(''))), mode: '100644' });
  for (const s of saved) {
    if (s.worktree) edits.set(`worktree/${s.path}`, s.worktree);
    if (s.index) edits.set(`index/${s.path}`, s.index);
  }
  return editTree(store, null, edits);
}

/** The record of `commit` under `notesRef`, or null when it has none. */
export async function readSavedRecord(store: ObjectStore, repo: Repository, notesRef: string, commit: string): Promise<SavedPath[] | null> {
  const notes = await readNotesTree(store, repo, notesRef);
  if (notes === null) return null;
  const where = savedRecordPath(commit);
  const list = (await lookupPaths(store, notes, [`${where}/paths`])).get(`${where}/paths`)!;
  if (list.type !== 'blob') return null;
  const paths = Buffer.from(await store.readBlob(list.oid))
    .toString('utf8')
    .split('\n')
    .filter((p) => p !== '');
  const found = await lookupPaths(
    store,
    notes,
    paths.flatMap((p) => [`${where}/worktree/${p}`, `${where}/index/${p}`]),
  );
  return paths.map((p) => ({
    path: p,
    worktree: fileEntryOf(found.get(`${where}/worktree/${p}`)!),
    index: fileEntryOf(found.get(`${where}/index/${p}`)!),
  }));
}

/**
 * Recovery of an undo that was putting saved work back: `targets` (the paths' entries in the
 * commit the ref now holds) get the saved working-tree entries; returns the saved index entries.
 */
export async function putBack(
  store: ObjectStore,
  repo: Repository,
  notesRef: string,
  commit: string,
  targets: Map<string, TreeEdit>,
): Promise<Map<string, TreeEdit>> {
  const index = new Map<string, TreeEdit>();
  for (const s of (await readSavedRecord(store, repo, notesRef, commit)) ?? []) {
    if (!targets.has(s.path)) continue;
    targets.set(s.path, s.worktree);
    index.set(s.path, s.index);
  }
  return index;
}
