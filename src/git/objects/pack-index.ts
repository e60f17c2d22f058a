// Lookups in `objects/pack/*.idx`, answered by binary search on the files' sorted id tables (nothing
// is parsed into maps): where an object sits in which pack, whether it exists, which objects a short
// id names — O(log n) per pack, whatever the size of the repository.
//
// Index layout (v2): "\xfftOc" + version 2, a 256-entry fan-out table of big-endian counts (entry b =
// number of ids whose first byte <= b), the n sorted 20-byte ids, n CRC32s, n 4-byte pack offsets
// (high bit set: an index into the table of 8-byte offsets that follows, for packs over 2 GiB).
// Version 1 (no magic) has the fan-out table at offset 0 followed by (4-byte offset, 20-byte id)
// records.
import { readdir, readFile } from '../fs/fsx.js';
import path from 'node:path';

interface LoadedIndex {
  file: string;
  /** the .pack file the index describes */
  pack: string;
  data: Buffer;
  count: number;
  /** byte offset of id 0 and distance between consecutive ids */
  idsAt: number;
  stride: number;
  fanoutAt: number;
}

function loadIndex(file: string, data: Buffer): LoadedIndex | null {
  const v2 = data.length >= 8 && data.readUInt32BE(0) === 0xff744f63;
  if (v2 && data.readUInt32BE(4) !== 2) return null;
  const fanoutAt = v2 ? 8 : 0;
  if (data.length < fanoutAt + 1024) return null;
  const count = data.readUInt32BE(fanoutAt + 255 * 4);
  const idsAt = v2 ? fanoutAt + 1024 : 1024 + 4;
  const stride = v2 ? 20 : 24;
  if (data.length < idsAt + (count - 1) * stride + 20) return null;
  return { file, pack: file.replace(/\.idx$/, '.pack'), data, count, idsAt, stride, fanoutAt };
}

/** Byte offset in the pack of the object at sorted position i. */
function packOffset(index: LoadedIndex, i: number): number {
  if (index.stride === 24) return index.data.readUInt32BE(1024 + i * 24); // v1
  const table = index.idsAt + index.count * 24; // after the ids and the CRC32s
  const small = index.data.readUInt32BE(table + i * 4);
  if ((small & 0x80000000) === 0) return small;
  const large = table + index.count * 4 + (small & 0x7fffffff) * 8;
  return Number(index.data.readBigUInt64BE(large));
}

export interface PackLocation {
  /** path of the .pack file */
  pack: string;
  offset: number;
}

/**
 * Sign of (id number i) - `id`. Byte by byte here rather than through Buffer.compare: ids differ
 * within their first bytes, and each of Buffer.compare's calls into the runtime (a dozen or more
 * per lookup, per pack, for each object a transaction writes) costs far more than those bytes.
 */
function compareAt(index: LoadedIndex, i: number, id: Buffer): number {
  const data = index.data;
  const at = index.idsAt + i * index.stride;
  for (let k = 0; k < id.length; k++) {
    const d = data[at + k]! - id[k]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** First position whose id is >= `id` (a full or zero-padded 20-byte id) within the fan-out bucket. */
function lowerBound(index: LoadedIndex, id: Buffer): number {
  const first = id[0]!;
  let lo = first === 0 ? 0 : index.data.readUInt32BE(index.fanoutAt + (first - 1) * 4);
  let hi = index.data.readUInt32BE(index.fanoutAt + first * 4);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareAt(index, mid, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Every object a version-2 index lists (id, CRC32, offset in the pack), and the checksum of the
 * pack it describes; null for a version-1 index (it has no CRC32s) or one that does not parse.
 */
export function indexEntries(data: Buffer): { entries: { id: Buffer; crc: number; offset: number }[]; packChecksum: Buffer } | null {
  const index = loadIndex('', data);
  if (!index || index.stride !== 20) return null;
  const crcAt = index.idsAt + index.count * 20;
  if (data.length < crcAt + index.count * 8 + 40) return null;
  const entries = [];
  for (let i = 0; i < index.count; i++) {
    const at = index.idsAt + i * 20;
    entries.push({ id: data.subarray(at, at + 20), crc: data.readUInt32BE(crcAt + i * 4), offset: packOffset(index, i) });
  }
  return { entries, packChecksum: data.subarray(data.length - 40, data.length - 20) };
}

/** The bytes of the id locate looks for, written in place (see idBytes). */
const wanted = Buffer.alloc(20);

/**
 * The bytes of the hex id `oid`: in one buffer shared by every lookup, which uses them
 * synchronously (a transaction looks up each object it writes or reads, and a buffer per lookup
 * was garbage the next scavenge had to sweep); anything but a full id gets its own.
 */
function idBytes(oid: string): Buffer {
  return oid.length === 40 && wanted.write(oid, 'hex') === 20 ? wanted : Buffer.from(oid, 'hex');
}

/** Where `oid` is in `indexes`, the first that has it; null: in none. Synchronous (see idBytes). */
function locateIn(indexes: readonly LoadedIndex[], oid: string): PackLocation | null {
  const id = idBytes(oid);
  for (const index of indexes) {
    const i = lowerBound(index, id);
    if (i < index.count && compareAt(index, i, id) === 0) return { pack: index.pack, offset: packOffset(index, i) };
  }
  return null;
}

export class PackIndexSet {
  private loaded: Promise<LoadedIndex[]> | null = null;
  /** what `loaded` gave, once it has (null: not yet, or refreshed since), for locateLoaded */
  private ready: LoadedIndex[] | null = null;
  /** packs never change under a given name, so a re-scan only reads indexes it has not seen */
  private readonly byFile = new Map<string, LoadedIndex>();

  constructor(private readonly objectsDir: string) {}

  private load(): Promise<LoadedIndex[]> {
    if (this.loaded !== null) return this.loaded;
    const loading = (async () => {
      const packDir = path.join(this.objectsDir, 'pack');
      let names: string[];
      try {
        names = (await readdir(packDir)).filter((n) => n.endsWith('.idx'));
      } catch {
        return [];
      }
      const result: LoadedIndex[] = [];
      // the indexes of packs gone since (a repack) are not kept
      const present = new Set(names.map((n) => path.join(packDir, n)));
      for (const file of this.byFile.keys()) if (!present.has(file)) this.byFile.delete(file);
      for (const name of names.sort()) {
        const file = path.join(packDir, name);
        let index = this.byFile.get(file) ?? null;
        if (!index) {
          try {
            index = loadIndex(file, await readFile(file));
          } catch {
            // a pack removed by a concurrent gc between readdir and read: its objects live elsewhere now
          }
          if (index) this.byFile.set(file, index);
        }
        if (index) result.push(index);
      }
      return result;
    })();
    this.loaded = loading;
    loading.then(
      (indexes) => {
        if (this.loaded === loading) this.ready = indexes;
      },
      () => undefined,
    );
    return loading;
  }

  /** Re-scan the pack directory on the next query (after a concurrent repack, say). */
  refresh(): void {
    this.loaded = null;
    this.ready = null;
  }

  /**
   * A pack this process has just written, with its index as written: the directory is scanned
   * again on the next query, as after refresh(), but the new index is not read back from disk.
   */
  added(indexFile: string, data: Buffer): void {
    const index = loadIndex(indexFile, data);
    if (index) this.byFile.set(indexFile, index);
    this.refresh();
  }

  async locate(oid: string): Promise<PackLocation | null> {
    return locateIn(this.ready ?? (await this.load()), oid);
  }

  /**
   * locate without a promise, when the packs have been looked at since the last refresh; undefined
   * when they have not (locate then looks). A batch writing a thousand objects looks each one up,
   * and a transaction's every promise costs a hook call.
   */
  locateLoaded(oid: string): PackLocation | null | undefined {
    return this.ready === null ? undefined : locateIn(this.ready, oid);
  }

  async has(oid: string): Promise<boolean> {
    return (await this.locate(oid)) !== null;
  }

  /** Ids in any pack that start with the hex `prefix`, up to `limit` of them. */
  async findByPrefix(prefix: string, limit = 16): Promise<string[]> {
    const low = Buffer.from(prefix.padEnd(40, '0'), 'hex');
    const found = new Set<string>();
    for (const index of await this.load()) {
      for (let i = lowerBound(index, low); i < index.count && found.size < limit; i++) {
        const at = index.idsAt + i * index.stride;
        const hex = index.data.toString('hex', at, at + 20);
        if (!hex.startsWith(prefix)) break;
        found.add(hex);
      }
    }
    return [...found];
  }
}
