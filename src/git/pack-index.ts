// Membership and prefix queries over the object ids listed in `objects/pack/*.idx`, answered by
// binary search on the files' sorted id tables (nothing is parsed into maps): deciding whether an
// object already exists, or which objects a short id names, costs O(log n) per pack.
//
// Index layout (v2): "\xfftOc" + version 2, a 256-entry fan-out table of big-endian counts (entry b =
// number of ids whose first byte <= b), then the sorted 20-byte ids. Version 1 (no magic) has the
// fan-out table at offset 0 followed by (4-byte offset, 20-byte id) records.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

interface LoadedIndex {
  file: string;
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
  return { file, data, count, idsAt, stride, fanoutAt };
}

/** Sign of (id number i) - `id`. */
function compareAt(index: LoadedIndex, i: number, id: Buffer): number {
  const at = index.idsAt + i * index.stride;
  return index.data.compare(id, 0, id.length, at, at + id.length);
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

export class PackIndexSet {
  private loaded: Promise<LoadedIndex[]> | null = null;

  constructor(private readonly objectsDir: string) {}

  private load(): Promise<LoadedIndex[]> {
    this.loaded ??= (async () => {
      const packDir = path.join(this.objectsDir, 'pack');
      let names: string[];
      try {
        names = (await readdir(packDir)).filter((n) => n.endsWith('.idx'));
      } catch {
        return [];
      }
      const result: LoadedIndex[] = [];
      for (const name of names.sort()) {
        const file = path.join(packDir, name);
        try {
          const index = loadIndex(file, await readFile(file));
          if (index) result.push(index);
        } catch {
          // a pack removed by a concurrent gc between readdir and read: its objects live elsewhere now
        }
      }
      return result;
    })();
    return this.loaded;
  }

  /** Forget the loaded indexes (after a repack, say); the next query re-reads the pack directory. */
  refresh(): void {
    this.loaded = null;
  }

  async has(oid: string): Promise<boolean> {
    const id = Buffer.from(oid, 'hex');
    for (const index of await this.load()) {
      const i = lowerBound(index, id);
      if (i < index.count && compareAt(index, i, id) === 0) return true;
    }
    return false;
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
