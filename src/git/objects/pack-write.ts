// Serialising a set of objects as one pack file and its version-2 index: the format git itself
// reads (see pack-index.ts and pack-file.ts for the layouts). Every object is stored whole (no
// deltas): the pack exists to replace dozens of small files with two, not to save space, and
// `git gc` re-deltifies everything when it repacks.
//
// Pack: "PACK", version 2, object count (big-endian), then per object a header (type and inflated
// size, base-128 low bits first, the first byte holding the 3-bit type and 4 bits of size) followed
// by the zlib-deflated content; last, the SHA-1 of everything before it.
// Index: see pack-index.ts; the CRC32 of each entry covers its header and compressed bytes, and the
// file ends with the pack's checksum and the SHA-1 of the index itself.
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { inParallel } from '../../in-parallel.js';
import { compareBytes } from '../byte-order.js';
import { ASYNC_DEFLATE_MIN, deflateObject, deflateObjectSync } from './deflate.js';
import type { ObjectType } from './hash.js';

export interface PackInput {
  oid: string;
  type: ObjectType;
  content: Uint8Array;
}

export interface PackFiles {
  /** hex checksum of the pack, which names both files (`pack-<checksum>.pack` / `.idx`) */
  checksum: string;
  /** the pack file's bytes, in pieces to be written in order (one copy fewer of a large pack) */
  pack: Buffer[];
  index: Buffer;
}

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
/** the order git writes a pack in: what a reader walks first comes first */
const TYPE_ORDER: Record<ObjectType, number> = { commit: 0, tag: 1, tree: 2, blob: 3 };

function entryHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (TYPE_CODES[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** large objects compressed on the thread pool at once: each zlib stream holds a few hundred KB of
 * state, so the number is kept small */
const COMPRESSING_AT_ONCE = 4;

/**
 * Every object's content deflated at `level` (see deflate.ts): the large ones on libuv's thread
 * pool, several at a time, while the small ones are compressed here meanwhile.
 */
async function compressAll(objects: readonly PackInput[], level: number): Promise<Buffer[]> {
  const out = new Array<Buffer>(objects.length);
  const large: number[] = [];
  objects.forEach((o, i) => {
    if (o.content.byteLength >= ASYNC_DEFLATE_MIN) large.push(i);
  });
  const pooled = inParallel(large, COMPRESSING_AT_ONCE, async (i) => {
    out[i] = await deflateObject(objects[i]!.content, level);
  });
  try {
    for (const [i, o] of objects.entries()) {
      if (out[i] === undefined && o.content.byteLength < ASYNC_DEFLATE_MIN) out[i] = deflateObjectSync(o.content, level);
    }
  } finally {
    await pooled; // nothing left compressing, whatever happened here
  }
  return out;
}

/** A pack entry holding `content` whole (no delta), deflated at git's default level. */
export function wholeEntry(type: ObjectType, content: Uint8Array): Buffer {
  return Buffer.concat([entryHeader(type, content.byteLength), deflateObjectSync(content, -1)]);
}

/** The 12 bytes a pack of `count` objects starts with. */
export function packHeader(count: number): Buffer {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(count, 8);
  return head;
}

/** An object of a pack, as its index lists it: id, CRC32 of its entry's bytes, offset in the pack. */
export interface IndexEntry {
  id: Buffer;
  offset: number;
  crc: number;
}

export async function buildPack(objects: readonly PackInput[], level = -1): Promise<PackFiles> {
  const ordered = [...objects].sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type]);
  const head = packHeader(ordered.length);
  const parts: Buffer[] = [head];
  const entries: IndexEntry[] = [];
  let offset = head.length;
  const compressed = await compressAll(ordered, level);
  for (const [i, o] of ordered.entries()) {
    const header = entryHeader(o.type, o.content.byteLength);
    const data = compressed[i]!;
    entries.push({ id: Buffer.from(o.oid, 'hex'), offset, crc: crc32(data, crc32(header)) });
    parts.push(header, data);
    offset += header.length + data.length;
  }
  const hash = createHash('sha1');
  for (const p of parts) hash.update(p);
  const packChecksum = hash.digest();
  parts.push(packChecksum);
  return { checksum: packChecksum.toString('hex'), pack: parts, index: buildIndex(entries, packChecksum) };
}

/** The version-2 index of a pack whose objects are `entries` and whose checksum is `packChecksum`. */
export function buildIndex(entries: readonly IndexEntry[], packChecksum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => compareBytes(a.id, b.id));
  const n = sorted.length;
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const size = 8 + 1024 + n * (20 + 4 + 4) + large.length * 8 + 40;
  const out = Buffer.alloc(size);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const e of sorted) fanout[e.id[0]!]!++;
  let running = 0;
  for (let b = 0; b < 256; b++) {
    running += fanout[b]!;
    out.writeUInt32BE(running, 8 + b * 4);
  }
  const idsAt = 8 + 1024;
  const crcAt = idsAt + n * 20;
  const offsetAt = crcAt + n * 4;
  const largeAt = offsetAt + n * 4;
  let largeCount = 0;
  sorted.forEach((e, i) => {
    e.id.copy(out, idsAt + i * 20);
    out.writeUInt32BE(e.crc >>> 0, crcAt + i * 4);
    if (e.offset < 0x80000000) {
      out.writeUInt32BE(e.offset, offsetAt + i * 4);
    } else {
      out.writeUInt32BE((0x80000000 | largeCount) >>> 0, offsetAt + i * 4);
      out.writeBigUInt64BE(BigInt(e.offset), largeAt + largeCount * 8);
      largeCount++;
    }
  });
  const tail = largeAt + largeCount * 8;
  packChecksum.copy(out, tail);
  createHash('sha1')
    .update(out.subarray(0, tail + 20))
    .digest()
    .copy(out, tail + 20);
  return out;
}
