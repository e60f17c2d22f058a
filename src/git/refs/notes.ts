// Git notes (the format `git notes` uses): a notes ref points to a commit whose tree maps annotated
// objects to note blobs, by file name = the annotated object's hex id. Large notes trees fan out into
// directories (`ab/cdef…`, `ab/cd/ef…`); git reads any mix of layouts. patchtx adds a note where
// the tree's directories lead, and fans a level out the way git's notes code decides it (see
// fanOut), so a transaction rewrites one small tree per level instead of one that grows with the
// history; when replacing a note it removes the old one wherever it sits, so each object has one note.
// A note can come with a non-note entry (a tree at a path that is not an object id, such as
// `name/ab/cdef…`): git's notes code keeps such entries when it rewrites the tree, so what they
// hold stays reachable from the notes ref (and `git gc` keeps it).
//
// Notes of different commits never conflict, so a lost compare-and-swap on the notes ref (another
// transaction added its note first) is simply retried on top of the new tip.
import { setTimeout as sleep } from 'node:timers/promises';
import { isPatchtxError } from '../../errors.js';
import type { Identity } from '../objects/model/identity.js';
import type { TreeEntry } from '../objects/model/tree.js';
import type { ObjectStore } from '../objects/store.js';
import { readRef, updateRef } from './refs.js';
import type { Repository } from '../repo/repository.js';
import { editTree, lookupPaths, type TreeEdit } from '../objects/tree-edit.js';

export interface AddNoteOptions {
  /** e.g. refs/notes/patchtx */
  notesRef: string;
  /** the annotated object (a commit oid) */
  target: string;
  /** the note's text, or `blob`: the id of a blob holding it, already written */
  text?: string;
  blob?: string;
  /** author and committer of the notes commit, and the reflog identity */
  identity: Identity;
  /** compare-and-swap attempts before giving up (default 20) */
  attempts?: number;
  /** core.logAllRefUpdates, passed on to updateRef */
  logAllRefUpdates?: string;
  /** a notes commit for this note already written on top of `parent` (writeNoteCommit): taken
   * as it is while the notes ref is still at `parent` */
  written?: { commit: string; parent: string | null };
  /** the notes ref lock's witness, passed on to updateRef */
  witness?: string;
  /** a tree to add beside the note, at a path that is not a note's (see above) */
  attach?: { path: string; tree: string };
}

const NOTES_MESSAGE = "Notes added by 'patchtx'\n";

/** Where a note for `target` can sit: flat, or under one or two levels of fan-out. */
function candidatePaths(target: string): string[] {
  return [target, `${target.slice(0, 2)}/${target.slice(2)}`, `${target.slice(0, 2)}/${target.slice(2, 4)}/${target.slice(4)}`];
}

async function notesTree(store: ObjectStore, tip: string | null): Promise<string | null> {
  return tip === null ? null : (await store.readCommit(tip)).tree;
}

/**
 * Writes the notes commit that adds (or replaces) the note on `target` on top of `tip` (the notes
 * ref's current value), without moving the ref. Deterministic: the same inputs give the same commit,
 * so a caller can write it early (in a transaction's batch of objects) and addNote() later finds
 * every object already there.
 */
export async function writeNoteCommit(
  store: ObjectStore,
  tip: string | null,
  opts: Pick<AddNoteOptions, 'target' | 'text' | 'blob' | 'identity' | 'attach'>,
): Promise<string> {
  const target = opts.target.toLowerCase();
  const blob = opts.blob ?? (await store.writeBlob(Buffer.from(opts.text ?? '', 'utf8')));
  const tree = await notesTree(store, tip);
  const existing = await lookupPaths(store, tree, candidatePaths(target));
  const edits = new Map<string, TreeEdit>();
  for (const [p, info] of existing) if (info.type === 'blob') edits.set(p, null);
  await placeNote(store, tree, target, blob, edits);
  if (opts.attach) edits.set(opts.attach.path, { oid: opts.attach.tree, mode: '40000' });
  const newTree = await editTree(store, tree, edits);
  return store.writeCommit({
    tree: newTree,
    parents: tip === null ? [] : [tip],
    author: opts.identity,
    committer: opts.identity,
    message: NOTES_MESSAGE,
  });
}

const HEX_DIGITS = '0123456789abcdef';
const NO_ENTRIES: ReadonlyMap<string, TreeEntry> = new Map();
const isHex = (name: string): boolean => /^[0-9a-f]+$/.test(name);

/**
 * Adds to `edits` the note blob `blob` of `target`: down the two-digit directories the tree has on
 * the way to it, then in the first level that has none, which is fanned out if it now should be.
 */
async function placeNote(store: ObjectStore, tree: string | null, target: string, blob: string, edits: Map<string, TreeEdit>): Promise<void> {
  let level = tree;
  let dir = '';
  for (let depth = 0; depth < 19; depth++) {
    const entries = level === null ? NO_ENTRIES : await store.treeIndex(level);
    const sub = entries.get(target.slice(2 * depth, 2 * depth + 2));
    if (sub?.mode === '40000') {
      level = sub.oid;
      dir += `${target.slice(2 * depth, 2 * depth + 2)}/`;
      continue;
    }
    // the notes of this level (an object id's remaining digits), the new one included, and its
    // two-digit directories; by the entries' names (a name that is not valid UTF-8, keyed apart
    // in the index, is no hex either), one pass without a pair per entry
    const notes = new Map<string, string>();
    const subdirs: string[] = [];
    const restLength = 40 - 2 * depth;
    for (const e of entries.values()) {
      if (e.mode === '40000') {
        if (e.name.length === 2 && isHex(e.name)) subdirs.push(e.name);
      } else if (e.name.length === restLength && isHex(e.name)) notes.set(e.name, e.oid);
    }
    notes.set(target.slice(2 * depth), blob);
    if (!fansOut(notes.keys(), subdirs)) {
      edits.set(dir + target.slice(2 * depth), { oid: blob, mode: '100644' });
      return;
    }
    for (const name of notes.keys()) if (!edits.has(dir + name)) edits.set(dir + name, null);
    for (const [p, oid] of fanOut(notes)) edits.set(dir + p, { oid, mode: '100644' });
    return;
  }
  edits.set(dir + target.slice(38), { oid: blob, mode: '100644' });
}

/**
 * Git's rule (determine_fanout in git's notes.c): a level of the notes tree fans out once, for
 * every hex digit, at least two of its notes have their next digit equal to it. Only a level
 * whose parent fanned out is considered. A directory there already (a mixed layout) counts as two.
 */
function fansOut(names: Iterable<string>, subdirs: readonly string[]): boolean {
  const count = new Map<string, number>();
  for (const n of names) count.set(n[0]!, (count.get(n[0]!) ?? 0) + 1);
  for (const d of subdirs) count.set(d[0]!, (count.get(d[0]!) ?? 0) + 2);
  return [...HEX_DIGITS].every((d) => (count.get(d) ?? 0) >= 2);
}

/** The notes of one level (remaining digits -> blob) laid out by two-digit directories, as
 * deep as git's rule takes each directory: relative path -> blob. */
function fanOut(notes: ReadonlyMap<string, string>): Map<string, string> {
  const groups = new Map<string, Map<string, string>>();
  for (const [name, oid] of notes) {
    const group = groups.get(name.slice(0, 2)) ?? new Map<string, string>();
    group.set(name.slice(2), oid);
    groups.set(name.slice(0, 2), group);
  }
  const out = new Map<string, string>();
  for (const [dir, group] of groups) {
    const deeper = [...group.keys()][0]!.length > 2 && fansOut(group.keys(), []);
    for (const [p, oid] of deeper ? fanOut(group) : group) out.set(`${dir}/${p}`, oid);
  }
  return out;
}

/** Adds (or replaces) the note on `target`; returns the new notes commit. */
export async function addNote(store: ObjectStore, repo: Repository, opts: AddNoteOptions): Promise<string> {
  // the notes commit written ahead was made on the tip of then, which is tried first without
  // reading the ref: the update compares it under the lock anyway
  return moveNotesRef(
    repo,
    opts,
    async (tip) => (opts.written && opts.written.parent === tip ? opts.written.commit : writeNoteCommit(store, tip, opts)),
    opts.written?.parent,
  );
}

/** Adds a non-note tree (see the top of this file) to the notes tree, without a note. */
export async function attachToNotes(
  store: ObjectStore,
  repo: Repository,
  opts: Omit<AddNoteOptions, 'target' | 'text' | 'written' | 'attach'> & { attach: NonNullable<AddNoteOptions['attach']> },
): Promise<string> {
  return moveNotesRef(repo, opts, async (tip) => {
    const tree = await editTree(store, await notesTree(store, tip), new Map([[opts.attach.path, { oid: opts.attach.tree, mode: '40000' }]]));
    return store.writeCommit({ tree, parents: tip === null ? [] : [tip], author: opts.identity, committer: opts.identity, message: NOTES_MESSAGE });
  });
}

/**
 * Removes the notes of `targets` (wherever each sits in the fan-out) in one notes commit; returns
 * it, or null when none of them has a note (nothing is written then).
 */
export async function removeNotes(
  store: ObjectStore,
  repo: Repository,
  opts: Pick<AddNoteOptions, 'notesRef' | 'identity' | 'attempts' | 'logAllRefUpdates'> & { targets: readonly string[] },
): Promise<string | null> {
  const notesOf = async (tree: string | null): Promise<Map<string, TreeEdit>> => {
    const edits = new Map<string, TreeEdit>();
    for (const target of opts.targets) {
      for (const [p, info] of await lookupPaths(store, tree, candidatePaths(target.toLowerCase()))) if (info.type === 'blob') edits.set(p, null);
    }
    return edits;
  };
  if ((await notesOf(await readNotesTree(store, repo, opts.notesRef))).size === 0) return null;
  return moveNotesRef(repo, opts, async (tip) => {
    const tree = await notesTree(store, tip);
    // another writer may have moved the ref meanwhile: its tree is edited, whatever it still holds
    const newTree = await editTree(store, tree, await notesOf(tree));
    return store.writeCommit({ tree: newTree, parents: tip === null ? [] : [tip], author: opts.identity, committer: opts.identity, message: NOTES_REMOVED });
  });
}

const NOTES_REMOVED = "Notes removed by 'patchtx'\n";

/** Moves the notes ref from its tip to the commit `next` writes on top of it, retrying (see the top). */
async function moveNotesRef(
  repo: Repository,
  opts: Pick<AddNoteOptions, 'notesRef' | 'identity' | 'attempts' | 'logAllRefUpdates' | 'witness'>,
  next: (tip: string | null) => Promise<string>,
  /** the tip the ref is likely at: the first attempt takes it for the tip instead of reading the ref */
  likelyTip?: string | null,
): Promise<string> {
  const attempts = opts.attempts ?? 20;
  for (let attempt = 1; ; attempt++) {
    const guessed = attempt === 1 && likelyTip !== undefined;
    const tip = guessed ? likelyTip : await readRef(repo, opts.notesRef);
    const commit = await next(tip);
    try {
      await updateRef(repo, {
        ref: opts.notesRef,
        expectedOld: tip,
        newOid: commit,
        message: `notes: ${NOTES_MESSAGE}`,
        identity: opts.identity,
        logAllRefUpdates: opts.logAllRefUpdates,
        witness: opts.witness,
      });
      return commit;
    } catch (e) {
      if (!isPatchtxError(e) || e.kind !== 'stale' || attempt >= attempts) throw e;
      // the ref was not where it was likely to be: read it, at once
      if (guessed) continue;
      // jittered backoff so that two writers that collided do not collide again in lockstep
      await sleep(2 + Math.random() * 4 * Math.min(attempt, 5));
    }
  }
}

/** The note on `target` under `notesRef`, or null when there is none. */
export async function readNote(store: ObjectStore, repo: Repository, notesRef: string, target: string): Promise<string | null> {
  return readNoteIn(store, await readNotesTree(store, repo, notesRef), target);
}

/** The tree of `notesRef`'s tip (null when the ref does not exist): read once to look up many notes. */
export async function readNotesTree(store: ObjectStore, repo: Repository, notesRef: string): Promise<string | null> {
  return notesTree(store, await readRef(repo, notesRef));
}

/** The note on `target` in the notes tree `tree` (from readNotesTree), or null when there is none. */
export async function readNoteIn(store: ObjectStore, tree: string | null, target: string): Promise<string | null> {
  if (tree === null) return null;
  const found = await lookupPaths(store, tree, candidatePaths(target.toLowerCase()));
  for (const info of found.values()) {
    if (info.type === 'blob') return Buffer.from(await store.readBlob(info.oid)).toString('utf8');
  }
  return null;
}
