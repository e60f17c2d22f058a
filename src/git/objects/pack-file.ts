// Reading single objects out of a .pack file with positional reads: one read of the entry's header
// and compressed data, one inflate, and for deltas the same for each base down the chain. Nothing
// else of the pack is read, so the cost of a lookup does not grow with the repository (reading and
// checksumming a whole multi-megabyte pack before the first object, as isomorphic-git does, would).
//
// Entry layout: a header of base-128 digits, low bits first — the first byte holds a continuation bit,
// the 3-bit type and the low 4 bits of the inflated size; then for OFS_DELTA a big-endian base-128
// distance back to the base entry (each continuation adds one before shifting), for REF_DELTA the
// base's 20-byte id; then zlib data.
// Delta data: base size and result size (base-128, low bits first), then instructions — high bit set:
// copy from the base (bits 0-3 say which offset bytes follow, bits 4-6 which size bytes; size 0 means
// 0x10000); otherwise: insert the next N bytes literally.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { PatchtxError } from '../../errors.js';
import { compressedBound } from './deflate.js';
import type { ObjectType } from './hash.js';

export interface PackedObject {
  type: ObjectType;
  content: Buffer;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

function corrupt(pack: string, offset: number, why: string): PatchtxError {
  return new PatchtxError('corrupt_repository', `corrupt pack ${pack} at offset ${offset}: ${why}`, { pack, offset });
}

/** Applies a git delta to `base`. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 1;
    let byte;
    do {
      byte = delta[at++]!;
      value += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    return value;
  };
  const baseSize = varint();
  const resultSize = varint();
  if (baseSize !== base.length) throw new PatchtxError('corrupt_repository', `malformed delta: it expects a ${baseSize}-byte base, got ${base.length}`);
  const out = Buffer.allocUnsafe(resultSize);
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += delta[at++]! << (8 * bit);
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || written + size > resultSize) throw new PatchtxError('corrupt_repository', 'malformed delta: it copies out of range');
      base.copy(out, written, offset, offset + size);
      written += size;
    } else if (op !== 0) {
      if (written + op > resultSize || at + op > delta.length) throw new PatchtxError('corrupt_repository', 'malformed delta: it inserts out of range');
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else {
      throw new PatchtxError('corrupt_repository', 'malformed delta: it has a reserved zero instruction');
    }
  }
  if (written !== resultSize) throw new PatchtxError('corrupt_repository', `malformed delta: it produced ${written} of ${resultSize} bytes`);
  return out;
}

/** Delta bases recently inflated, so sibling objects that share a base do not inflate it again. */
export class DeltaBaseCache {
  private readonly entries = new Map<string, PackedObject>();
  private bytes = 0;
  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  get(key: string): PackedObject | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: PackedObject): void {
    if (value.content.length > this.maxBytes / 4 || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.content.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.content.length;
    }
  }
}

/** the largest output piece allocated before inflating an object (see PackFile.read) */
const MAX_INFLATE_PIECE = 16 * 1024 * 1024;

/** Reads packed objects from one .pack file; `open` it, and `close` it when done. */
export class PackFile {
  private readonly size: number;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {
    this.size = fstatSync(fd).size;
  }

  /** Opens the pack. An open pack stays readable after a concurrent repack deletes the file. */
  static open(path: string): PackFile {
    return new PackFile(path, openSync(path, 'r'));
  }

  close(): void {
    closeSync(this.fd);
  }

  private readAt(offset: number, length: number): Buffer {
    const len = Math.max(0, Math.min(length, this.size - 20 - offset));
    const buf = Buffer.allocUnsafe(len);
    let done = 0;
    while (done < len) {
      const n = readSync(this.fd, buf, done, len - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  }

  /**
   * The object whose entry starts at `offset`; `readBase` resolves REF_DELTA bases by id (they may be
   * in another pack or loose).
   */
  async read(offset: number, cache: DeltaBaseCache, readBase: (oid: string) => Promise<PackedObject>, asBase = false): Promise<PackedObject> {
    const key = `${this.path}:${offset}`;
    const cached = cache.get(key);
    // a cached base is shared: a caller reading it as an object of its own gets a copy to keep
    if (cached) return asBase ? cached : { type: cached.type, content: Buffer.from(cached.content) };
    if (offset < 12 || offset >= this.size - 20) throw corrupt(this.path, offset, 'offset outside the pack');

    // header (at most ~30 bytes, incl. a REF_DELTA id) and the compressed data, in one read
    let head = this.readAt(offset, 64);
    let at = 0;
    let byte = head[at++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 0x0f;
    let shift = 16;
    while (byte & 0x80) {
      byte = head[at++]!;
      size += (byte & 0x7f) * shift;
      shift *= 128;
    }
    let baseOffset = -1;
    let baseOid = '';
    if (typeCode === OFS_DELTA) {
      byte = head[at++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = head[at++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      baseOffset = offset - distance;
    } else if (typeCode === REF_DELTA) {
      baseOid = head.toString('hex', at, at + 20);
      at += 20;
    } else if (!TYPES[typeCode]) {
      throw corrupt(this.path, offset, `unknown entry type ${typeCode}`);
    }

    const dataStart = offset + at;
    let want = compressedBound(size);
    let data: Buffer;
    for (;;) {
      head = this.readAt(dataStart, want);
      try {
        // Output sized to the header's length: zlib's default 16 KB output buffer would stay
        // attached to every small object read (most are a few KB) until it is collected. Capped,
        // so a corrupt header cannot ask for a huge buffer up front (larger objects are joined
        // from pieces; a length that disagrees with the header is refused below). One byte more
        // than the object: when the output fills the piece exactly, zlib is called again with a
        // second, unused piece to see the end of the stream.
        data = inflateSync(head, { chunkSize: Math.max(64, Math.min(size + 1, MAX_INFLATE_PIECE)) });
        break;
      } catch (e) {
        // a stream longer than zlib's own bound (another compressor): read more and try again
        const truncated = (e as NodeJS.ErrnoException).code === 'Z_BUF_ERROR' && dataStart + head.length < this.size - 20;
        if (!truncated) throw corrupt(this.path, offset, `cannot inflate: ${(e as Error).message}`);
        want *= 2;
      }
    }
    if (data.length !== size) throw corrupt(this.path, offset, `inflated ${data.length} bytes, header says ${size}`);

    let result: PackedObject;
    if (typeCode === OFS_DELTA || typeCode === REF_DELTA) {
      const base = typeCode === OFS_DELTA ? await this.read(baseOffset, cache, readBase, true) : await readBase(baseOid);
      result = { type: base.type, content: applyDelta(base.content, data) };
    } else {
      result = { type: TYPES[typeCode]!, content: data };
    }
    // only delta bases are kept (as git's delta base cache does): they are what later reads reuse,
    // and caching every object read would hold a large patch's whole base in memory
    if (asBase) cache.set(key, result);
    return result;
  }
}
