// Folding patchtx's own packs together, as git's repack does, so that a long session does not
// leave one pack per transaction. Git runs `git gc --auto` after a commit, and it repacks
// everything once a repository holds more than gc.autoPackLimit (50) packs without a .keep file:
// a session of 150 patches used to set that off at the user's next commit.
//
// Only packs recorded as patchtx's own (own-packs.ts) are taken in, and of those none with a
// .keep file (a transaction still writing it, or one the user or git keeps), none git has made a
// bitmap, promisor or mtimes file for, and none a multi-pack-index names. The new pack holds the
// folded packs' entries byte for byte (patchtx's packs store whole objects, no deltas, so an entry
// can be copied without being inflated; each is checked against the CRC32 its index records);
// the packs of patchtx's fetches (fetch.ts) hold deltas, whose offsets would not hold in the new
// pack: such an entry is written whole instead, its object read through the store. The new pack
// is written in full and made visible (its .idx renamed into place last) before any folded
// pack is removed, index first: a crash at any point leaves every object readable, and at worst
// some objects in two packs, which the next fold takes in again. Folds of several processes
// exclude each other by a lock file; any pack patchtx writes, folds included, has a .keep file from
// before it is recorded until its .idx is in place, so a recorded pack without either is one whose
// writer died, and its remains are removed.
//
// How often, and how much: when patchtx's own packs reach FOLD_AT, the smallest of them are folded
// so that the rest form a geometric progression of factor FACTOR by size (git's `repack
// --geometric` picks packs the same way): each fold copies mostly small, recent packs, and an
// object is copied again only when the packs after it add up to FACTOR times its pack, so the
// bytes copied stay a small multiple (about the number of levels) of the bytes written. Simulated
// over 20,000 transactions of mixed sizes, FOLD_AT 8 and FACTOR 4 folded every 4 transactions on
// average, nearly always a few small packs, each byte copied about 12 times in all; FACTOR 2
// (git's default) folded twice as often, and FOLD_AT 16 four times less often but left up to 15
// packs. Measured in 500 transactions of 1 to 40 files: a fold every 6 transactions, 19 ms median
// on a disk and 6 ms on tmpfs, where fsync costs nothing: the new pack and index are fsynced as git
// fsyncs a pack it writes (else a power cut after the folded packs' removal reached the disk could
// lose objects that were safe). FOLD_AT is 16: most of a fold's cost is fixed (its lock, two
// fsyncs, the renames and removals), not the bytes copied, which stay about the same per
// transaction; so folding less often made a warm session of small patches measurably faster, and
// 15 packs are still far below the 50 at which `git gc --auto` repacks.
// Whatever the progression, a fold takes in at least the two smallest packs, so fewer than
// FOLD_AT packs are left after every transaction.
import * as fs from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { PatchtxError } from '../../errors.js';
import { crashPoint } from '../../test-points.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import { forgetOwnPack, ownPacks, ownPacksDir, recordOwnPack } from './own-packs.js';
import { indexEntries } from './pack-index.js';
import { buildIndex, packHeader, wholeEntry, type IndexEntry } from './pack-write.js';
import type { ObjectStore } from './store.js';

/** a fold starts when patchtx's own packs number this many (see the top of this file) */
export const FOLD_AT = 16;
/** the packs left after a fold are each at least this many times the size of the next smaller */
const FACTOR = 4;
/** where a test may kill a fold (PATCHTX_TEST_CRASH_AT), in the order a fold reaches them */
export const FOLD_CRASH_POINTS = ['fold-written', 'fold-pack-renamed', 'fold-visible', 'fold-removing'] as const;
/** how a fold's .keep file starts (the rest names the process), told apart from a transaction's */
const FOLD_KEEP = 'patchtx fold ';
/** a lock file still empty after this long was left by a process killed as it took the lock */
const EMPTY_LOCK_STALE_MS = 60_000;
/** the folded entries are read and written in pieces of about this size */
const WRITE_PIECE = 1 << 20;

export interface FoldOwner {
  /** names this process: written into the fold's lock and its new pack's .keep file */
  text: string;
  /** whether the process a lock's or .keep file's `text` names is gone */
  gone(text: string): boolean;
}

export interface FoldResult {
  /** how many packs were folded into one */
  packs: number;
  /** how many objects the new pack holds */
  objects: number;
  /** the new pack's checksum */
  pack: string;
}

/**
 * How many of the packs of sizes `sizes` (ascending) to fold, the smallest first, so that the
 * rest and the new one form a geometric progression (see the top of this file); at least two.
 */
export function packsToFold(sizes: readonly number[]): number {
  let i = sizes.length - 1;
  while (i > 0 && sizes[i]! >= FACTOR * sizes[i - 1]!) i--;
  // packs [0, i] break the progression (none do if i reached 0)
  let count = i === 0 ? 0 : i + 1;
  let total = sizes.slice(0, count).reduce((a, b) => a + b, 0);
  // the new pack may be too large for the next one up: that one joins too, and so on
  while (count < sizes.length && sizes[count]! < FACTOR * total) total += sizes[count++]!;
  return Math.min(sizes.length, Math.max(count, 2));
}

interface OwnPack {
  checksum: string;
  /** the path without its extension */
  base: string;
  size: number;
}

/**
 * Folds patchtx's own packs into one when they number FOLD_AT or more; null when there was
 * nothing to do, or another process is folding.
 */
export async function foldOwnPacks(store: ObjectStore, owner: FoldOwner): Promise<FoldResult | null> {
  const commonDir = store.repo.commonDir;
  const recorded = await ownPacks(commonDir);
  if (recorded.length < FOLD_AT) return null;
  const lock = path.join(ownPacksDir(commonDir), 'fold.lock');
  if (!takeLock(lock, owner)) return null;
  try {
    const packDir = path.join(store.objectsDir, 'pack');
    const packs = await foldable(commonDir, packDir, recorded, owner);
    if (packs.length < FOLD_AT) return null;
    packs.sort((a, b) => a.size - b.size);
    const folded = packs.slice(0, packsToFold(packs.map((p) => p.size)));
    const result = await writeFolded(store, packDir, folded, owner);
    store.packsChanged();
    for (const [n, p] of folded.entries()) {
      // the index first: without it the pack is no longer looked in
      fs.rmSync(`${p.base}.idx`, { force: true });
      if (n === 0) crashPoint('fold-removing');
      fs.rmSync(`${p.base}.pack`, { force: true });
      fs.rmSync(`${p.base}.rev`, { force: true });
      await forgetOwnPack(commonDir, p.checksum);
    }
    return result;
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Takes the fold's lock; false if another process holds it. One left by a dead process is taken over. */
function takeLock(lock: string, owner: FoldOwner): boolean {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, 'wx');
      try {
        fs.writeSync(fd, `${owner.text}\n`);
      } finally {
        fs.closeSync(fd);
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const text = readText(lock)?.trim();
    if (text === undefined) continue; // released meanwhile
    const mtime = fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const stale = text === '' ? Date.now() - mtime > EMPTY_LOCK_STALE_MS : owner.gone(text);
    if (!stale) return false;
    // should two processes take over the same dead lock at once, both may fold: harmless, as
    // neither removes a pack before its own new one is in place, nor touches a kept one
    fs.rmSync(lock, { force: true });
  }
  return false;
}

/** The recorded packs a fold may take in; records of packs that are gone, and remains of packs
 * whose writer died, are removed on the way. */
async function foldable(commonDir: string, packDir: string, recorded: readonly string[], owner: FoldOwner): Promise<OwnPack[]> {
  removeDeadTemps(packDir, owner);
  const midxFile = path.join(packDir, 'multi-pack-index');
  const midx = fs.existsSync(midxFile) ? fs.readFileSync(midxFile) : null;
  const packs: OwnPack[] = [];
  for (const checksum of recorded) {
    const base = path.join(packDir, `pack-${checksum}`);
    const keep = readText(`${base}.keep`);
    if (keep !== null) {
      // a transaction's (recovery removes it if the run died), git's, the user's, a live fold's
      if (!keep.startsWith(FOLD_KEEP) || !owner.gone(keep.slice(FOLD_KEEP.length).trim())) continue;
      fs.rmSync(`${base}.keep`, { force: true });
    }
    const pack = fs.statSync(`${base}.pack`, { throwIfNoEntry: false });
    if (!fs.existsSync(`${base}.idx`) || !pack) {
      // no .keep and no index: its writer died before the index was in place (or git removed it)
      fs.rmSync(`${base}.pack`, { force: true });
      await forgetOwnPack(commonDir, checksum);
      continue;
    }
    if (['.bitmap', '.promisor', '.mtimes'].some((ext) => fs.existsSync(base + ext))) continue;
    if (midx?.includes(`pack-${checksum}.idx\0`)) continue;
    packs.push({ checksum, base, size: pack.size });
  }
  return packs;
}

/** Removes the temporary files of folds whose process is gone (killed while writing). */
function removeDeadTemps(packDir: string, owner: FoldOwner): void {
  for (const name of fs.readdirSync(packDir)) {
    const m = /^tmp_(?:pack|idx)_patchtx_fold_(\d+)_[0-9a-f]+$/.exec(name);
    if (m && owner.gone(`pid=${m[1]}`)) fs.rmSync(path.join(packDir, name), { force: true });
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Writes the objects of `folded` as one new pack, visible when this returns. */
async function writeFolded(store: ObjectStore, packDir: string, folded: readonly OwnPack[], owner: FoldOwner): Promise<FoldResult> {
  const tag = `${process.pid}_${randomBytes(6).toString('hex')}`;
  // "tmp_" is the prefix git's prune cleans up; the next fold removes them too (removeDeadTemps)
  const tempPack = path.join(packDir, `tmp_pack_patchtx_fold_${tag}`);
  const tempIdx = path.join(packDir, `tmp_idx_patchtx_fold_${tag}`);
  let checksum: string | null = null;
  let visible = false;
  try {
    const written = await copyEntries(store, folded, tempPack);
    checksum = written.checksum.toString('hex');
    writeFileSynced(tempIdx, buildIndex(written.entries, written.checksum), shouldFsync(store.repo, 'pack-metadata'));
    const base = path.join(packDir, `pack-${checksum}`);
    fs.writeFileSync(`${base}.keep`, `${FOLD_KEEP}${owner.text}\n`);
    await recordOwnPack(store.repo.commonDir, checksum);
    crashPoint('fold-written');
    fs.renameSync(tempPack, `${base}.pack`);
    crashPoint('fold-pack-renamed');
    fs.renameSync(tempIdx, `${base}.idx`);
    visible = true;
    crashPoint('fold-visible');
    fs.rmSync(`${base}.keep`, { force: true });
    return { packs: folded.length, objects: written.entries.length, pack: checksum };
  } finally {
    fs.rmSync(tempPack, { force: true });
    fs.rmSync(tempIdx, { force: true });
    if (!visible && checksum !== null) {
      const base = path.join(packDir, `pack-${checksum}`);
      if (!fs.existsSync(`${base}.idx`)) {
        fs.rmSync(`${base}.pack`, { force: true });
        await forgetOwnPack(store.repo.commonDir, checksum);
      }
      fs.rmSync(`${base}.keep`, { force: true });
    }
  }
}

/** Copies the entries of `folded` (each object once) into a new pack file at `temp`. */
async function copyEntries(store: ObjectStore, folded: readonly OwnPack[], temp: string): Promise<{ checksum: Buffer; entries: IndexEntry[] }> {
  const plans = folded.map((p) => entriesOf(p));
  // the same object is often in several of them (a transaction packs every object it made, even
  // one stored already: see inKeptPack in store.ts), and a pack should hold each object once: git's
  // `index-pack --strict` refuses one that holds an object twice
  // (keyed by the id's bytes as a latin1 string, half the length of its hex: a fold may take in
  // thousands of objects)
  const seen = new Set<string>();
  const chosen = plans.map((plan) =>
    plan.filter((e) => {
      const key = e.id.toString('latin1');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
  );
  const out = fs.openSync(temp, 'wx', 0o444);
  try {
    const hash = createHash('sha1');
    // the entries are views of the pieces read (readWindows): hashed and handed to writev as they
    // are, no copy
    let pending: Buffer[] = [];
    let pendingSize = 0;
    const flush = (): void => {
      for (const b of pending) hash.update(b);
      writeAllSync(out, pending);
      pending = [];
      pendingSize = 0;
    };
    const put = (b: Buffer): void => {
      pending.push(b);
      pendingSize += b.length;
      if (pendingSize >= WRITE_PIECE) flush();
    };
    put(packHeader(seen.size));
    let offset = 12;
    const entries: IndexEntry[] = [];
    for (const [n, p] of folded.entries()) {
      const fd = fs.openSync(`${p.base}.pack`, 'r');
      try {
        for (const { entry: e, bytes } of readWindows(fd, p, chosen[n]!)) {
          if (crc32(bytes) >>> 0 !== e.crc) throw corrupt(p, e.offset, 'its CRC32 differs from the one its index records');
          const type = (bytes[0]! >> 4) & 7;
          if (type >= 1 && type <= 4) {
            put(bytes);
            entries.push({ id: e.id, offset, crc: e.crc });
            offset += e.length;
            continue;
          }
          if (type !== 6 && type !== 7) throw corrupt(p, e.offset, `its type (${type}) is none a pack has`);
          // a delta (a fetched pack's): the object whole
          const raw = await store.readRaw(e.id.toString('hex'));
          const whole = wholeEntry(raw.type, raw.content);
          put(whole);
          entries.push({ id: e.id, offset, crc: crc32(whole) >>> 0 });
          offset += whole.length;
        }
      } finally {
        fs.closeSync(fd);
      }
    }
    flush();
    const checksum = hash.digest();
    fs.writeSync(out, checksum);
    if (shouldFsync(store.repo, 'pack')) fs.fsyncSync(out);
    return { checksum, entries };
  } finally {
    fs.closeSync(out);
  }
}

type PackEntry = { id: Buffer; crc: number; offset: number; length: number };

/**
 * The bytes of `entries` (in the order they sit in the pack), read a piece of up to WRITE_PIECE
 * bytes at a time, each piece covering as many entries as fit (the gaps of entries left out
 * included): one read per piece instead of one per entry. An entry larger than a piece is read
 * alone.
 */
function* readWindows(fd: number, p: OwnPack, entries: readonly PackEntry[]): Generator<{ entry: PackEntry; bytes: Buffer }> {
  for (let i = 0; i < entries.length;) {
    const start = entries[i]!.offset;
    let end = i + 1;
    while (end < entries.length && entries[end]!.offset + entries[end]!.length - start <= WRITE_PIECE) end++;
    const last = entries[end - 1]!;
    const window = Buffer.allocUnsafe(last.offset + last.length - start);
    let got = 0;
    while (got < window.length) {
      const n = fs.readSync(fd, window, got, window.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    for (; i < end; i++) {
      const e = entries[i]!;
      const at = e.offset - start;
      if (at + e.length > got) throw corrupt(p, e.offset, 'the pack ends inside it');
      yield { entry: e, bytes: window.subarray(at, at + e.length) };
    }
  }
}

/** Writes `buffers` one after the other at the file's position (writev; short writes go on). */
function writeAllSync(fd: number, buffers: readonly Buffer[]): void {
  let rest = buffers.filter((b) => b.length > 0);
  while (rest.length > 0) {
    let written = fs.writevSync(fd, rest);
    let done = 0;
    while (done < rest.length && written >= rest[done]!.length) written -= rest[done++]!.length;
    rest = rest.slice(done);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}

/** The entries of pack `p` in the order they sit in it, each with its length. */
function entriesOf(p: OwnPack): PackEntry[] {
  const parsed = indexEntries(fs.readFileSync(`${p.base}.idx`));
  if (!parsed) throw corrupt(p, 0, 'its index is not a version-2 index');
  const trailer = Buffer.alloc(20);
  const fd = fs.openSync(`${p.base}.pack`, 'r');
  try {
    fs.readSync(fd, trailer, 0, 20, p.size - 20);
  } finally {
    fs.closeSync(fd);
  }
  if (!trailer.equals(parsed.packChecksum) || trailer.toString('hex') !== p.checksum)
    throw corrupt(p, p.size - 20, 'its checksum differs from its name or index');
  // the parsed entries are this call's own: sorted in place, and each copied once with its length
  const sorted = parsed.entries.sort((a, b) => a.offset - b.offset);
  return sorted.map((e, i) => ({ id: e.id, crc: e.crc, offset: e.offset, length: (i + 1 < sorted.length ? sorted[i + 1]!.offset : p.size - 20) - e.offset }));
}

function corrupt(p: OwnPack, offset: number, why: string): PatchtxError {
  return new PatchtxError('corrupt_repository', `pack ${p.base}.pack at offset ${offset}: ${why}`, { pack: p.checksum, offset });
}

function writeFileSynced(file: string, data: Buffer, sync: boolean): void {
  const fd = fs.openSync(file, 'wx', 0o444);
  try {
    fs.writeSync(fd, data);
    if (sync) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
