// A tree's entries looked up by entryKey (ObjectStore.treeIndex), without a Map of them. A tree in
// git's order with ASCII names only (ParsedTree.copyable, nearly every tree) is searched in place:
// its entries are sorted by name, a directory's taken as `name/`, so a name is found by a binary
// search for it as a file and, failing that, as a directory. The trees along a transaction's paths
// are indexed again each time a kept store has written new ones; a Map per tree was most of what a
// warm transaction kept beyond its end, and what each scavenge then had to copy. Any other tree
// (names beyond ASCII, modes git would write otherwise, entries out of order) gets a Map, keyed as
// before, the last entry of a name winning.
import { entryKey, isTreeMode, type ParsedTree, type TreeEntry } from './tree.js';

/** A tree's entries by entryKey: shared between callers, so read-only. */
export type ParsedTreeIndex = ReadonlyMap<string, Readonly<TreeEntry>>;

/**
 * git's order of entry `e` against a name `name` taken as a directory or not, for ASCII names
 * (string order is byte order there; only a name that is a prefix of the other needs the '/').
 */
function compareTo(e: TreeEntry, name: string, asTree: boolean): number {
  const an = e.name;
  const aSlash = isTreeMode(e.mode) ? 0x2f : 0;
  const bSlash = asTree ? 0x2f : 0;
  if (an.length <= name.length && name.startsWith(an)) return aSlash - (name.length > an.length ? name.charCodeAt(an.length) : bSlash);
  if (an.startsWith(name)) return an.charCodeAt(name.length) - bSlash;
  return an < name ? -1 : 1;
}

/** The entry of `entries` (in git's order) that compares equal to `name` as a tree or not. */
function search(entries: readonly TreeEntry[], name: string, asTree: boolean): TreeEntry | undefined {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareTo(entries[mid]!, name, asTree);
    if (c === 0) return entries[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

/** The entries of a copyable tree (see the top of this file), keyed by name. */
class SortedTreeIndex implements ReadonlyMap<string, Readonly<TreeEntry>> {
  constructor(private readonly list: readonly TreeEntry[]) {}

  get size(): number {
    return this.list.length;
  }

  get(name: string): Readonly<TreeEntry> | undefined {
    // a name with a '/' in it can compare equal to a directory's key (`a/` to directory `a`)
    const found = search(this.list, name, false) ?? search(this.list, name, true);
    return found?.name === name ? found : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  forEach(fn: (value: Readonly<TreeEntry>, key: string, map: ReadonlyMap<string, Readonly<TreeEntry>>) => void, thisArg?: unknown): void {
    for (const e of this.list) fn.call(thisArg, e, e.name, this);
  }

  *entries(): IterableIterator<[string, Readonly<TreeEntry>]> {
    for (const e of this.list) yield [e.name, e];
  }

  *keys(): IterableIterator<string> {
    for (const e of this.list) yield e.name;
  }

  values(): IterableIterator<Readonly<TreeEntry>> {
    return this.list[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, Readonly<TreeEntry>]> {
    return this.entries();
  }
}

/** The index of `tree`'s entries by entryKey (see the top of this file). */
export function indexTree(tree: ParsedTree): ParsedTreeIndex {
  if (tree.copyable) return new SortedTreeIndex(tree.entries);
  const byKey = new Map<string, TreeEntry>();
  for (const e of tree.entries) byKey.set(e.rawName ? entryKey(e) : e.name, e);
  return byKey;
}
