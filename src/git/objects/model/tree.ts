// Tree objects: a sorted list of `<mode> <name>\0<20-byte oid>` records.
//
// Sort order is git's: entries compare bytewise by name, except that a directory compares as if its
// name ended in '/'. So `a.txt` < `a/` < `a0`: a tree named `a` sorts after `a.txt`. Getting this wrong
// produces trees that git reads but `git fsck` flags, and oids that differ from git's.
import { PatchtxError } from '../../../errors.js';
import { isObjectId } from '../object-id.js';

export type TreeMode = '100644' | '100755' | '120000' | '40000' | '160000';

export interface TreeEntry {
  mode: TreeMode;
  name: string;
  oid: string;
  /**
   * The name's bytes, present only when they are not valid UTF-8 (git file names are bytes): lets a
   * tree that is rewritten around such an entry keep the entry exactly.
   */
  rawName?: Uint8Array;
}

export const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/**
 * The mode git would store for `octal`: git canonicalises modes when it builds trees from the index
 * (a regular file is 644 or 755 depending only on the owner-execute bit), so an edited tree must do
 * the same to get git's oid.
 */
export function canonicalMode(octal: string): TreeMode | null {
  if (!/^[0-7]+$/.test(octal)) return null;
  return canonicalModeOf(parseInt(octal, 8));
}

function canonicalModeOf(mode: number): TreeMode | null {
  switch (mode & 0o170000) {
    case 0o040000:
      return '40000';
    case 0o120000:
      return '120000';
    case 0o160000:
      return '160000';
    case 0o100000:
      return mode & 0o100 ? '100755' : '100644';
    default:
      return null;
  }
}

export const isTreeMode = (mode: string): boolean => mode === '40000';

const SLASH = Buffer.from('/');
const NO_BYTES = Buffer.alloc(0);

/**
 * A key that tells entries apart by their name's bytes: the name itself, or for a name that is not
 * valid UTF-8 its raw bytes behind a NUL (which no name contains, so the two kinds never meet).
 * Two such names can decode to the same string (`a\xff` and `a\xfe` both to `a\uFFFD`).
 */
export function entryKey(entry: TreeEntry): string {
  return entry.rawName ? `\0${Buffer.from(entry.rawName).toString('latin1')}` : entry.name;
}

export function nameBytes(entry: TreeEntry): Uint8Array {
  return entry.rawName ?? encoder.encode(entry.name);
}

/**
 * A tree object as read: its bytes, its entries in stored order, and where each entry ends (entry
 * i spans bytes ends[i - 1] (0 for the first) to ends[i]), so that an edit can copy the entries
 * it leaves alone byte for byte (see editTreeBytes).
 */
export interface ParsedTree {
  bytes: Buffer;
  entries: TreeEntry[];
  ends: Uint32Array;
  /**
   * every name is ASCII (so JavaScript's string order is git's byte order), every mode is written
   * as git writes it, and the entries are in git's order, each name once and storable: the
   * entries' bytes can be copied as they are into an edited tree
   */
  copyable: boolean;
}

export const EMPTY_PARSED_TREE: ParsedTree = { bytes: Buffer.alloc(0), entries: [], ends: new Uint32Array(0), copyable: true };

export function parseTree(data: Uint8Array, oid = '(tree)'): TreeEntry[] {
  return parseTreeObject(data, oid).entries;
}

/** Buffer's own slice methods, which toString(encoding, start, end) ends up calling (see parseTreeObject). */
interface SliceMethods {
  latin1Slice(start: number, end: number): string;
  hexSlice(start: number, end: number): string;
}

const GIT_MODES: ReadonlyMap<string, TreeMode> = new Map((['100644', '100755', '120000', '40000', '160000'] as const).map((m) => [m, m]));
const BEYOND_ASCII = /[\x80-\xff]/;

/** Whether `entries`, in git's order with ASCII names, hold a file named `name` (a binary search
 * for its key, which is the name itself). */
function hasFileNamed(entries: readonly TreeEntry[], name: string): boolean {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = entries[mid]!;
    if ((e.mode === '40000' ? `${e.name}/` : e.name) < name) lo = mid + 1;
    else hi = mid;
  }
  const found = entries[lo];
  return found !== undefined && found.name === name && found.mode !== '40000';
}

export function parseTreeObject(data: Uint8Array, oid = '(tree)'): ParsedTree {
  // Trees are read for every directory on a touched path, mostly before the JIT has compiled this
  // loop, so it makes few calls per entry: the whole tree becomes one latin1 string (a character
  // per byte) searched with the string builtins, and ids come from Buffer's hexSlice directly.
  // Parsing the 100-entry trees of 97 directories in a fresh process took 25-30 ms byte by byte
  // (with toString('hex', start, end) for the ids), 13-14 ms this way (14-15 with the order check
  // below).
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength) as Buffer & Partial<SliceMethods>;
  const text = buf.latin1Slice ? buf.latin1Slice(0, buf.length) : buf.toString('latin1');
  const hexOf = buf.hexSlice ? (at: number) => buf.hexSlice!(at, at + 20) : (at: number) => buf.toString('hex', at, at + 20);
  const entries: TreeEntry[] = [];
  const ends: number[] = [];
  let copyable = true;
  let lastKey = '';
  const end = text.length;
  let i = 0;
  while (i < end) {
    const space = text.indexOf(' ', i);
    const nul = space < 0 ? -1 : text.indexOf('\0', space + 1);
    if (space < 0 || nul < 0 || nul + 21 > end) {
      throw new PatchtxError('corrupt_repository', `malformed tree object ${oid}`, { oid });
    }
    const modeText = text.slice(i, space);
    let mode = GIT_MODES.get(modeText);
    if (mode === undefined) {
      // a mode git would write differently (100664, 040000): read as git reads it, and rewritten
      // in full when the tree is edited
      mode = canonicalMode(modeText) ?? undefined;
      if (!mode) throw new PatchtxError('corrupt_repository', `malformed tree object: tree ${oid} has an entry with mode ${modeText}`, { oid });
      copyable = false;
    }
    let name = text.slice(space + 1, nul);
    let rawName: Uint8Array | undefined;
    if (BEYOND_ASCII.test(name)) {
      copyable = false;
      const raw = buf.subarray(space + 1, nul);
      try {
        name = strictUtf8.decode(raw);
      } catch {
        name = raw.toString('utf8');
        rawName = Uint8Array.from(raw);
      }
    }
    const entry: TreeEntry = { mode, name, oid: hexOf(nul + 1) };
    if (rawName) entry.rawName = rawName;
    // A tree git would not write (entries out of order or twice, a name git cannot store) is not
    // copied either: an edit rewrites it from its entries, as before. While every name is ASCII,
    // the order is the order of the names as strings, with '/' after a directory's.
    if (copyable) {
      const key = mode === '40000' ? `${name}/` : name;
      if (!(key > lastKey) || name === '' || name.includes('/')) copyable = false;
      // a file and a directory of one name are in order (`a` < `a-b` < `a/`) but twice a name
      else if (mode === '40000' && hasFileNamed(entries, name)) copyable = false;
      lastKey = key;
    }
    entries.push(entry);
    i = nul + 21;
    ends.push(i);
  }
  return { bytes: buf, entries, ends: Uint32Array.from(ends), copyable };
}

// eslint-disable-next-line no-control-regex -- the ASCII range is the point
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Entries in git's order: bytewise on the names, a directory's name taken as `name/`. Sorts on
 * keys computed once (the name, plus '/' for a tree) instead of re-encoding both names in every
 * comparison. When every name is ASCII, JavaScript's string order is the byte order and the keys
 * stay strings; otherwise they are the names' UTF-8 bytes.
 */
export function sortTreeEntries<T extends TreeEntry>(entries: readonly T[]): T[] {
  if (entries.every((e) => e.rawName === undefined && ASCII.test(e.name))) {
    const keyed = entries.map((e) => ({ e, key: isTreeMode(e.mode) ? `${e.name}/` : e.name }));
    keyed.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    return keyed.map((k) => k.e);
  }
  const keyed = entries.map((e) => ({ e, key: Buffer.concat([nameBytes(e), isTreeMode(e.mode) ? SLASH : NO_BYTES]) }));
  keyed.sort((x, y) => Buffer.compare(x.key, y.key));
  return keyed.map((k) => k.e);
}

/** Serialises entries in git's order; duplicate or unusable names are a caller bug. */
export function serializeTree(entries: readonly TreeEntry[]): Uint8Array {
  return serializeSortedTree(sortTreeEntries(entries));
}

/** serializeTree for entries already in git's order (sortTreeEntries). */
export function serializeSortedTree(sorted: readonly TreeEntry[]): Uint8Array {
  const names: Buffer[] = [];
  const seen = new Set<string>();
  let size = 0;
  for (const e of sorted) {
    checkEntry(e);
    const name = e.rawName ? Buffer.from(e.rawName) : Buffer.from(e.name, 'utf8');
    const key = entryKey(e);
    if (seen.has(key)) {
      throw new PatchtxError('internal', `duplicate tree entry ${JSON.stringify(e.name)}`, { path: e.name });
    }
    seen.add(key);
    names.push(name);
    size += e.mode.length + 1 + name.length + 1 + 20;
  }
  // one buffer, written in place: trees along a patch's paths can hold thousands of entries
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  sorted.forEach((e, i) => {
    at += out.write(e.mode, at, 'latin1');
    out[at++] = 0x20;
    at += names[i]!.copy(out, at);
    out[at++] = 0;
    at += out.write(e.oid, at, 'hex');
  });
  return out;
}

/**
 * git's order for two entries whose names are ASCII, without encoding them: string order is byte
 * order there, and only a name that is a prefix of the other needs the '/' of a tree.
 */
function compareAsciiEntries(a: TreeEntry, b: TreeEntry): number {
  const an = a.name;
  const bn = b.name;
  if (an.length <= bn.length && bn.startsWith(an)) {
    return (isTreeMode(a.mode) ? 0x2f : 0) - (bn.length > an.length ? bn.charCodeAt(an.length) : isTreeMode(b.mode) ? 0x2f : 0);
  }
  if (an.startsWith(bn)) return an.charCodeAt(bn.length) - (isTreeMode(b.mode) ? 0x2f : 0);
  return an < bn ? -1 : 1;
}

/** A name git can store as one tree entry: not empty, no '/' or NUL. */
export const storableName = (name: string): boolean => name !== '' && !name.includes('/') && !name.includes('\0');

/** A name git can store in a tree and a full object id; anything else is a caller bug. */
function checkEntry(e: TreeEntry): void {
  if (!storableName(e.name)) {
    throw new PatchtxError('internal', `invalid tree entry name ${JSON.stringify(e.name)}`, { path: e.name });
  }
  if (!isObjectId(e.oid)) {
    throw new PatchtxError('internal', `invalid object id ${e.oid} for tree entry ${e.name}`, { path: e.name });
  }
}

/** The bytes an entry whose name is ASCII takes in a tree object: `<mode> <name>\0` and its id. */
const storedSize = (e: TreeEntry): number => e.mode.length + 1 + e.name.length + 1 + 20;

/**
 * The bytes of `tree` with `changes` made: each key (an entryKey) names an entry to replace or add
 * (the new entry) or to remove (null). The entries left alone are copied from the old bytes in
 * runs, not parsed back and serialised one by one: a patch usually changes one or two entries of
 * each tree on its paths, and those trees may hold hundreds. The result is what serializeTree
 * gives for the same entries.
 */
export function editTreeBytes(tree: ParsedTree, changes: ReadonlyMap<string, TreeEntry | null>): Uint8Array {
  return editParsedTree(tree, changes).bytes;
}

/**
 * editTreeBytes, with the result as parseTreeObject would give it: the entries left alone are the
 * old tree's own (read-only) entry objects, the new ones those of `changes`. A process that keeps
 * its trees between transactions then has the tree it wrote without parsing it back.
 */
export function editParsedTree(tree: ParsedTree, changes: ReadonlyMap<string, TreeEntry | null>): ParsedTree {
  const added: TreeEntry[] = [];
  for (const e of changes.values()) if (e !== null) added.push(e);
  if (!tree.copyable || added.some((e) => e.rawName !== undefined || !ASCII.test(e.name))) {
    // a name beyond ASCII, a mode to canonicalise or a tree git would not write: the general
    // path (rare), which sorts on the names' bytes and writes every entry anew
    // by key, the last entry of a name winning, as edits of such a tree always did
    const byKey = new Map<string, TreeEntry>();
    for (const e of tree.entries) byKey.set(entryKey(e), e);
    const kept = [...byKey].filter(([key]) => !changes.has(key)).map(([, e]) => e);
    return parseTreeObject(serializeSortedTree(sortTreeEntries([...kept, ...added])));
  }
  for (const e of added) checkEntry(e);
  const inserts = added.length > 1 ? added.sort(compareAsciiEntries) : added;
  const { entries, ends } = tree;
  /** where entry i starts in the old bytes (i = entries.length: where they end) */
  const startOf = (i: number): number => (i === 0 ? 0 : ends[i - 1]!);
  // pieces of the result, in order, as numbers (no object per piece): a run of old entries
  // [from, to) as the two numbers from, to; the new entry inserts[k] as -1 - k
  const pieces: number[] = [];
  let size = 0;
  let count = 0;
  let next = 0; // the next insert
  let runStart = -1;
  const closeRun = (at: number) => {
    if (runStart >= 0) {
      pieces.push(runStart, at);
      size += startOf(at) - startOf(runStart);
      count += at - runStart;
      runStart = -1;
    }
  };
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    while (next < inserts.length && compareAsciiEntries(inserts[next]!, e) < 0) {
      closeRun(i);
      pieces.push(-1 - next);
      size += storedSize(inserts[next]!);
      next++;
    }
    if (changes.has(e.name)) closeRun(i);
    else if (runStart < 0) runStart = i;
  }
  closeRun(entries.length);
  for (; next < inserts.length; next++) {
    pieces.push(-1 - next);
    size += storedSize(inserts[next]!);
  }
  count += inserts.length;
  const out = Buffer.allocUnsafe(size);
  // as large as it ends, so that filling it never grows it
  const outEntries = new Array<TreeEntry>(count);
  const outEnds = new Uint32Array(count);
  let n = 0;
  let at = 0;
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    if (piece < 0) {
      // `<mode> <name>\0<20-byte id>`: every name here is ASCII, so latin1 writes its UTF-8
      const e = inserts[-1 - piece]!;
      at += out.write(e.mode, at, 'latin1');
      out[at++] = 0x20;
      at += out.write(e.name, at, 'latin1');
      out[at++] = 0;
      at += out.write(e.oid, at, 'hex');
      outEnds[n] = at;
      outEntries[n++] = e;
    } else {
      const from = piece;
      const to = pieces[++p]!;
      const shift = at - startOf(from);
      at += tree.bytes.copy(out, at, startOf(from), startOf(to));
      for (let k = from; k < to; k++) {
        outEnds[n] = ends[k]! + shift;
        outEntries[n++] = entries[k]!;
      }
    }
  }
  return { bytes: out, entries: outEntries, ends: outEnds, copyable: true };
}
