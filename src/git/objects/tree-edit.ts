// Reading and editing a commit's tree along a set of paths without looking at the rest of it.
//
// Both operations walk a trie of the requested paths from the root, so each tree on the way is read
// once however many paths pass through it, and trees off those paths are never read: the cost is
// proportional to the patch, not to the repository. editTree writes a new tree object only for a
// directory whose entries actually change; the bytes (and so the oids) are what `git write-tree` would
// produce from an index holding the same files.
import { PatchtxError } from '../../errors.js';
import { type TreeEntry, type TreeMode } from './model/tree.js';
import type { ObjectStore, ParsedTreeIndex } from './store.js';
import { isObjectId } from './object-id.js';

export type PathInfo =
  | { type: 'blob'; oid: string; mode: '100644' | '100755' }
  | { type: 'symlink'; oid: string }
  | { type: 'gitlink'; oid: string }
  | { type: 'tree'; oid: string }
  /** blockedBy: a leading part of the path is a file, symlink or gitlink, not a directory */
  | { type: 'missing'; blockedBy?: { path: string; type: 'blob' | 'symlink' | 'gitlink' } };

/** New content for a path: an object and its mode, or null to delete whatever is there. */
export type TreeEdit = { oid: string; mode: TreeMode } | null;

/** The file (or symlink) a path holds as a tree edit; null for a directory, a gitlink or nothing. */
export function fileEntryOf(info: PathInfo): TreeEdit {
  if (info.type === 'blob') return { oid: info.oid, mode: info.mode };
  if (info.type === 'symlink') return { oid: info.oid, mode: '120000' };
  return null;
}

const MODES: ReadonlySet<string> = new Set(['100644', '100755', '120000', '40000', '160000']);

function splitPath(p: string): string[] {
  const parts = p.split('/');
  if (p === '' || parts.some((c) => c === '' || c === '.' || c === '..')) {
    throw new PatchtxError('path_rejected', `not a usable repository path: ${JSON.stringify(p)}`, { path: p });
  }
  return parts;
}

function nonTreeKind(mode: TreeMode): 'blob' | 'symlink' | 'gitlink' {
  return mode === '120000' ? 'symlink' : mode === '160000' ? 'gitlink' : 'blob';
}

function describeEntry(e: TreeEntry): PathInfo {
  switch (e.mode) {
    case '40000':
      return { type: 'tree', oid: e.oid };
    case '120000':
      return { type: 'symlink', oid: e.oid };
    case '160000':
      return { type: 'gitlink', oid: e.oid };
    default:
      return { type: 'blob', oid: e.oid, mode: e.mode };
  }
}

/** What a directory of looked-up paths is: a tree (its entries by name), or what its paths are
 * for want of one (missing; blocked by a file, symlink or gitlink). */
type DirLookup = { entries: ParsedTreeIndex } | { none: PathInfo & { type: 'missing' } };

const MISSING_DIR: DirLookup = { none: { type: 'missing' } };

/** What directory `dir` is given its parent's lookup, or the id of its tree, still to be indexed. */
function childDir(parent: DirLookup, dir: string): DirLookup | string {
  if ('none' in parent) return parent;
  const entry = parent.entries.get(dir.slice(dir.lastIndexOf('/') + 1));
  if (!entry) return MISSING_DIR;
  if (entry.mode !== '40000') return { none: { type: 'missing', blockedBy: { path: dir, type: nonTreeKind(entry.mode) } } };
  return entry.oid;
}

const parentOf = (dir: string): string => (dir.lastIndexOf('/') < 0 ? '' : dir.slice(0, dir.lastIndexOf('/')));

/**
 * What each path is in the tree `rootTree` (null: an unborn branch, where everything is missing).
 * Each directory the paths are in is looked up once, after its parent (a patch touches many files
 * of few directories, and a walk of every path from the root asked the store for the same trees
 * again for each); through the trees the store keeps indexed without a promise (a store kept
 * between commands, a tree looked at earlier in the run: nearly every lookup of a warm
 * transaction), the others read.
 */
export async function lookupPaths(store: ObjectStore, rootTree: string | null, paths: readonly string[]): Promise<Map<string, PathInfo>> {
  const dirs = new Map<string, DirLookup>();
  const kept = (oid: string): DirLookup | undefined => {
    const entries = store.keptTreeIndex(oid);
    return entries && { entries };
  };
  // through kept trees only; undefined where one on the way is not kept
  const keptDir = (dir: string): DirLookup | undefined => {
    let found = dirs.get(dir);
    if (found) return found;
    if (dir === '') found = rootTree === null ? MISSING_DIR : kept(rootTree);
    else {
      const parent = keptDir(parentOf(dir));
      const child = parent && childDir(parent, dir);
      found = typeof child === 'string' ? kept(child) : child;
    }
    if (found) dirs.set(dir, found);
    return found;
  };
  const readDir = async (dir: string): Promise<DirLookup> => {
    const known = keptDir(dir);
    if (known) return known;
    const child = dir === '' ? rootTree! : childDir(await readDir(parentOf(dir)), dir);
    const found = typeof child === 'string' ? { entries: await store.treeIndex(child) } : child;
    dirs.set(dir, found);
    return found;
  };
  const names = paths.map((p) => {
    splitPath(p); // refuses what is no repository path
    const slash = p.lastIndexOf('/');
    return { p, dir: slash < 0 ? '' : p.slice(0, slash), name: p.slice(slash + 1) };
  });
  for (const { dir } of names) if (keptDir(dir) === undefined) await readDir(dir);
  const result = new Map<string, PathInfo>();
  for (const { p, dir, name } of names) {
    const d = dirs.get(dir)!;
    if ('none' in d) {
      result.set(p, d.none.blockedBy ? { type: 'missing', blockedBy: { ...d.none.blockedBy } } : { type: 'missing' });
      continue;
    }
    const entry = d.entries.get(name);
    result.set(p, entry ? describeEntry(entry) : { type: 'missing' });
  }
  return result;
}

interface EditNode {
  /** set when the edit set names this exact path */
  edit?: TreeEdit;
  children: Map<string, EditNode>;
}

function buildTrie(edits: ReadonlyMap<string, TreeEdit>): EditNode {
  const root: EditNode = { children: new Map() };
  for (const [p, edit] of edits) {
    if (edit !== null && (!MODES.has(edit.mode) || !isObjectId(edit.oid))) {
      throw new PatchtxError('internal', `bad tree edit for ${p}: mode ${edit.mode}, oid ${edit.oid}`, { path: p });
    }
    let node = root;
    for (const part of splitPath(p)) {
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = { children: new Map() }));
      node = next;
    }
    node.edit = edit;
  }
  return root;
}

function firstPathBelow(node: EditNode, prefix: string): string {
  for (const [name, child] of node.children) {
    return child.children.size > 0 ? firstPathBelow(child, `${prefix}${name}/`) : `${prefix}${name}`;
  }
  return prefix;
}

const NO_ENTRIES: ReadonlyMap<string, TreeEntry> = new Map();

const sameEntry = (a: TreeEntry | undefined, b: TreeEntry | null): boolean =>
  (a === undefined && b === null) || (a !== undefined && b !== null && a.mode === b.mode && a.oid === b.oid);

/**
 * Applies `edits` (path → new object, or null to delete) to `rootTree` and returns the new root tree
 * oid. A directory left empty disappears. A file may be replaced by a directory (or the reverse) only
 * when the same edit set also deletes what is in the way; otherwise the edit is `path_rejected`.
 */
export async function editTree(store: ObjectStore, rootTree: string | null, edits: ReadonlyMap<string, TreeEdit>): Promise<string> {
  // returns the tree's new oid, or null when nothing is left in it
  const apply = async (treeOid: string | null, node: EditNode, prefix: string): Promise<string | null> => {
    const entries = treeOid === null ? NO_ENTRIES : (store.keptTreeIndex(treeOid) ?? (await store.treeIndex(treeOid)));
    const updates = await Promise.all(
      [...node.children].map(async ([name, child]): Promise<[string, TreeEntry | null]> => {
        const full = prefix + name;
        const existing = entries.get(name);
        const existingIsTree = existing?.mode === '40000';
        if (child.children.size === 0) {
          const edit = child.edit!;
          if (edit !== null && existingIsTree && edit.mode !== '40000') {
            throw new PatchtxError('path_rejected', `cannot replace directory ${full} with a file unless everything below it is deleted in the same patch`, {
              path: full,
            });
          }
          return [name, edit === null ? null : { mode: edit.mode, name, oid: edit.oid }];
        }
        const below = await apply(existingIsTree ? existing!.oid : null, child, `${full}/`);
        if (below === null) {
          // nothing remains below `full`: what the path itself becomes decides
          if (child.edit !== undefined) return [name, child.edit === null ? null : { mode: child.edit.mode, name, oid: child.edit.oid }];
          return [name, existingIsTree ? null : (existing ?? null)];
        }
        if (child.edit) {
          throw new PatchtxError('path_rejected', `${full} cannot be both a file and a directory`, { path: full });
        }
        if (existing && !existingIsTree && child.edit === undefined) {
          throw new PatchtxError(
            'path_rejected',
            `cannot create ${firstPathBelow(child, `${full}/`)}: ${full} is a ${nonTreeKind(existing.mode)} (delete it in the same patch first)`,
            { path: firstPathBelow(child, `${full}/`), blockedBy: full },
          );
        }
        return [name, { mode: '40000', name, oid: below }];
      }),
    );

    // only what differs is written; the rest of the tree is copied as stored (writeEditedTree)
    const changes = new Map<string, TreeEntry | null>();
    let size = entries.size;
    for (const [name, entry] of updates) {
      const existing = entries.get(name);
      if (sameEntry(existing, entry)) continue;
      changes.set(name, entry);
      if (!existing) size++;
      else if (entry === null) size--;
    }
    if (changes.size === 0) return treeOid === null || entries.size === 0 ? null : treeOid;
    if (size === 0) return null;
    return store.writeEditedTree(treeOid, changes);
  };

  const root = await apply(rootTree, buildTrie(edits), '');
  if (root !== null) return root;
  // everything was deleted; git writes the empty tree object too when the index is empty
  return store.writeTree([]);
}
