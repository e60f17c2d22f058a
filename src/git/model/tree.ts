// Tree objects: a sorted list of `<mode> <name>\0<20-byte oid>` records.
//
// Sort order is git's: entries compare bytewise by name, except that a directory compares as if its
// name ended in '/'. So `a.txt` < `a/` < `a0`: a tree named `a` sorts after `a.txt`. Getting this wrong
// produces trees that git reads but `git fsck` flags, and oids that differ from git's.
import { PatchtxError } from '../../errors.js';

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

export function parseTree(data: Uint8Array, oid = '(tree)'): TreeEntry[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const entries: TreeEntry[] = [];
  const end = buf.length;
  let i = 0;
  while (i < end) {
    // Byte by byte, as trees are read for every directory on a touched path: the mode's octal
    // digits become a number without a string in between, and a name that is all ASCII (nearly
    // every name) is read as latin1 without the UTF-8 decoder.
    let octal = 0;
    let digits = true;
    let space = i;
    for (; space < end && buf[space] !== 0x20; space++) {
      const digit = buf[space]! - 0x30;
      if (digit >= 0 && digit <= 7) octal = octal * 8 + digit;
      else digits = false;
    }
    let nul = space + 1;
    let ascii = true;
    for (; nul < end && buf[nul] !== 0; nul++) if (buf[nul]! >= 0x80) ascii = false;
    if (space >= end || nul >= end || nul + 21 > end) {
      throw new PatchtxError('internal', `malformed tree object ${oid}`, { oid });
    }
    // the numeric path covers modes of up to 7 digits (git's are 5 or 6); anything else is judged
    // by canonicalMode on the text, which refuses it
    const mode = digits && space - i >= 1 && space - i <= 7 ? canonicalModeOf(octal) : canonicalMode(buf.toString('latin1', i, space));
    if (!mode) throw new PatchtxError('internal', `tree ${oid} has an entry with mode ${buf.toString('latin1', i, space)}`, { oid });
    let name: string;
    let rawName: Uint8Array | undefined;
    if (ascii) {
      name = buf.toString('latin1', space + 1, nul);
    } else {
      const raw = buf.subarray(space + 1, nul);
      try {
        name = strictUtf8.decode(raw);
      } catch {
        name = raw.toString('utf8');
        rawName = Uint8Array.from(raw);
      }
    }
    const entry: TreeEntry = { mode, name, oid: buf.toString('hex', nul + 1, nul + 21) };
    if (rawName) entry.rawName = rawName;
    entries.push(entry);
    i = nul + 21;
  }
  return entries;
}

/** git's order: bytewise, with a directory's name taken as `name/`. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const an = nameBytes(a);
  const bn = nameBytes(b);
  const len = Math.min(an.length, bn.length);
  for (let i = 0; i < len; i++) {
    if (an[i] !== bn[i]) return an[i]! - bn[i]!;
  }
  // one name is a prefix of the other: the next "character" is '/' for a tree, end-of-name otherwise
  const ac = an.length > len ? an[len]! : isTreeMode(a.mode) ? 0x2f : 0;
  const bc = bn.length > len ? bn[len]! : isTreeMode(b.mode) ? 0x2f : 0;
  return ac - bc;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Entries in git's order (see compareTreeEntries), sorting on keys computed once (the name, plus
 * '/' for a tree) instead of re-encoding both names in every comparison. When every name is
 * ASCII, JavaScript's string order is the byte order and the keys stay strings; otherwise they are
 * the names' UTF-8 bytes.
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

const OID_HEX = /^[0-9a-f]{40}$/;

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
    if (e.name === '' || e.name.includes('/') || e.name.includes('\0')) {
      throw new PatchtxError('internal', `invalid tree entry name ${JSON.stringify(e.name)}`, { path: e.name });
    }
    const name = e.rawName ? Buffer.from(e.rawName) : Buffer.from(e.name, 'utf8');
    const key = entryKey(e);
    if (seen.has(key)) {
      throw new PatchtxError('internal', `duplicate tree entry ${JSON.stringify(e.name)}`, { path: e.name });
    }
    if (!OID_HEX.test(e.oid)) {
      throw new PatchtxError('internal', `invalid object id ${e.oid} for tree entry ${e.name}`, { path: e.name });
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
