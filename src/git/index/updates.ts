// The changes a transaction makes to the index, and the checks they pass before anything is
// written: paths git would accept, object ids and modes, and no path both a file and a directory.
import type { BigIntStats, Stats } from 'node:fs';
import { PatchtxError } from '../../errors.js';
import { compareBytes } from '../byte-order.js';
import { isObjectId } from '../objects/object-id.js';
import { ENTRY_MODES } from './entry.js';
import type { GitIndex } from './format.js';

/** New state of one path: a stage-0 entry (stat from lstat after writing the file, or null when
 * unknown: zeroed stat makes git compare the content), or null to remove every stage. */
export type IndexUpdate = { oid: string; mode: number; stat: Stats | BigIntStats | null } | null;

export interface SortedUpdate {
  path: string;
  key: Buffer;
  update: IndexUpdate;
}

/** Throws what IndexLock.write would throw for these updates ('dirty' when a new entry clashes
 * with one the index keeps, as directory against file; 'internal' for malformed updates), without
 * writing: lets a caller find out before it moves the branch. */
export function validateIndexUpdates(index: GitIndex | null, updates: ReadonlyMap<string, IndexUpdate>): void {
  sortedValidUpdates(index, updates);
}

export function sortedValidUpdates(index: GitIndex | null, updates: ReadonlyMap<string, IndexUpdate>): SortedUpdate[] {
  const sorted: SortedUpdate[] = [...updates].map(([p, update]) => ({ path: checkIndexPath(p), key: Buffer.from(p, 'utf8'), update }));
  sorted.sort((a, b) => compareBytes(a.key, b.key));
  for (const u of sorted) if (u.update) checkUpdate(u.path, u.update);
  checkDirectoryFileConflicts(index, sorted);
  return sorted;
}

/**
 * `updates` in the order of an earlier check of the same paths, each new or removed as then (the
 * checkout sync writes exactly the paths the transaction checked before it moved the ref, now with
 * stat data): sorting and the file/directory clash checks need not run again, only the entries'
 * own checks. Null when the paths differ in any way.
 */
export function withCheckedOrder(checked: readonly SortedUpdate[], updates: ReadonlyMap<string, IndexUpdate>): SortedUpdate[] | null {
  if (checked.length !== updates.size) return null;
  const sorted: SortedUpdate[] = [];
  for (const u of checked) {
    const update = updates.get(u.path);
    if (update === undefined || (update === null) !== (u.update === null)) return null;
    if (update) checkUpdate(u.path, update);
    sorted.push({ path: u.path, key: u.key, update });
  }
  return sorted;
}

function checkIndexPath(p: string): string {
  const ok = p !== '' && !p.startsWith('/') && !p.endsWith('/') && !p.includes('\0') && !p.split('/').some((c) => c === '' || c === '.' || c === '..');
  if (!ok) throw new PatchtxError('internal', `not a valid index path: ${JSON.stringify(p)}`, { path: p });
  return p;
}

function checkUpdate(p: string, update: NonNullable<IndexUpdate>): void {
  if (!isObjectId(update.oid)) throw new PatchtxError('internal', `bad object id ${JSON.stringify(update.oid)} for ${p}`, { path: p });
  if (!ENTRY_MODES.has(update.mode)) throw new PatchtxError('internal', `bad mode ${update.mode.toString(8)} for ${p}`, { path: p });
}

/** A path cannot be both a file and a directory in the index: the new entries must not sit below
 * a remaining file entry, nor above remaining entries. Such a clash with entries already in the
 * index means the index holds staged changes the patch would collide with. Each leading directory
 * is looked up once, however many updates share it. */
function checkDirectoryFileConflicts(index: GitIndex | null, sorted: SortedUpdate[]): void {
  const planned = new Map(sorted.map((u) => [u.path, u.update]));
  const remains = (p: string): boolean => {
    const update = planned.get(p);
    return update === undefined ? (index?.has(p) ?? false) : update !== null;
  };
  // every leading directory of a new entry -> the first new entry below it
  const newBelow = new Map<string, string>();
  for (const u of sorted) {
    if (!u.update) continue;
    for (let slash = u.path.indexOf('/'); slash >= 0; slash = u.path.indexOf('/', slash + 1)) {
      const dir = u.path.slice(0, slash);
      if (newBelow.has(dir)) continue;
      newBelow.set(dir, u.path);
      if (remains(dir)) throw directoryFileConflict(u.path, dir, planned.has(dir));
    }
  }
  for (const u of sorted) {
    if (!u.update) continue;
    const below = newBelow.get(u.path);
    if (below !== undefined) throw directoryFileConflict(u.path, below, true);
    if (!index) continue;
    const [from, to] = index.rangeUnder(u.path);
    for (let i = from; i < to; i++) {
      const other = index.entryAt(i).path;
      if (remains(other)) throw directoryFileConflict(u.path, other, planned.has(other));
    }
  }
}

function directoryFileConflict(p: string, other: string, bothPlanned: boolean): PatchtxError {
  if (bothPlanned) {
    return new PatchtxError('internal', `index update would hold both ${p} and ${other}`, { path: p, paths: [p, other] });
  }
  return new PatchtxError('dirty', `cannot stage ${p}: the index also holds ${other}`, { path: p, paths: [p, other] });
}
