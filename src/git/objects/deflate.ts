// zlib compression of new objects, sized to each object.
//
// Why sized: a zlib stream with the default settings (32 KB window, memLevel 8) allocates and
// clears about 300 KB of state before it compresses a byte. Most objects a patch writes are a few
// KB (source files, trees, a commit), so setting up that state costs more than compressing them.
// A window just large enough to hold the whole object finds the matches the 32 KB window would
// (no back-reference can reach further than the start of the object), so the output stays as small
// (measured on 1,000 generated source files: the same total); it is still ordinary zlib, which git
// and every other reader inflate the same way. The object ids
// never depend on it: they hash the uncompressed bytes.
//
// Why synchronous below a size: for small objects a round trip through libuv's thread pool costs
// more than the compression itself (measured: 1,000 objects of 4 KB, sync about 80 ms, on the pool
// four at a time 90-150 ms). Large objects are compressed on the pool, several at a time.
//
// Why on the main thread, not ahead on a worker thread: a worker deflating a large batch while the
// transaction builds its trees can take some tens of milliseconds off a 1,000-file patch on an idle
// machine, but a second V8 isolate, its heap and its thread's allocator arena add 20-30 MB to the
// peak memory of a process applying such patches, whose target is 200 MB; and on two busy cores
// the overlap buys nothing measurable. Nor can the thread
// pool take the objects as they are staged: a transaction's file calls are synchronous, so the
// event loop seldom turns to start the next piece of work, and handing all of them over at once
// holds a zlib state (tens of KB) per object.
import { promisify } from 'node:util';
import { deflate, deflateSync, type ZlibOptions } from 'node:zlib';

/** objects at least this large are compressed on the thread pool (see above) */
export const ASYNC_DEFLATE_MIN = 256 * 1024;

const deflateAsync = promisify(deflate);

/** The most compressed data zlib can produce for `size` bytes, plus slack (deflateBound, rounded up). */
export const compressedBound = (size: number): number => size + (size >>> 12) + (size >>> 14) + 64;

/** zlib options for `size` bytes at compression `level` (-1: zlib's default). */
export function deflateOptionsFor(size: number, level: number): ZlibOptions {
  // zlib's smallest window is 512 bytes (windowBits 9); it needs the data plus 262 bytes of
  // lookahead in the window to match as the full window would
  let windowBits = 9;
  while (windowBits < 15 && 1 << windowBits < size + 262) windowBits++;
  // memLevel sets the hash table and the block buffer; the default (8) goes with windowBits 15
  const memLevel = Math.max(1, Math.min(8, windowBits - 7));
  // The output buffer: zlib's default is 16 KB, which a small object's compressed bytes would
  // keep alive (unused) until collected; its deflate bound fits it in one piece instead.
  const chunkSize = Math.min(16 * 1024, Math.max(64, compressedBound(size)));
  return { level, windowBits, memLevel, chunkSize };
}

export function deflateObjectSync(data: Uint8Array, level: number): Buffer {
  return deflateSync(data, deflateOptionsFor(data.byteLength, level));
}

export function deflateObject(data: Uint8Array, level: number): Promise<Buffer> {
  return deflateAsync(data, deflateOptionsFor(data.byteLength, level));
}
