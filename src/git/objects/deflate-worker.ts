// Deflating a large batch's objects on a second thread while the transaction goes on.
//
// A transaction holds its new objects in memory until it writes them as one pack, just before
// its commit point (store.ts beginBatch/flushBatch). For a patch of hundreds of files, deflating
// them is one of the largest costs of the run (zlib at level 1 takes tens of microseconds per
// source file), and it need not wait until then: a blob's bytes are final once it is staged.
// So the batch hands its objects, a chunk at a time, to a worker thread, which deflates them while
// the main thread builds the trees and the commit and checks the checkout. When the pack is built,
// what the worker has not finished yet is taken back: the main thread deflates the chunks not
// returned, last first, until the worker's results have caught up (the same zlib with the same
// options gives the same bytes either way). A failed worker only means the main thread deflates
// everything itself, as it does for a small batch, which never starts one. Only a store kept
// between commands (the library's repository object) deflates ahead (store.ts deflateAheadFrom):
// the worker it starts serves every later command, while a process running one command would pay
// for starting it, and for the memory it holds, each time.
//
// The thread pool of zlib's asynchronous calls is no help here: a trip through it per object costs
// the main thread about as much as deflating a small object itself.
import { Worker } from 'node:worker_threads';
import { deflateObjectSync, deflateOptionsFor } from './deflate.js';

/**
 * The worker's heap: it holds a chunk or two at a time. Without a ceiling V8 sizes a new isolate's
 * heap for a program of its own; with it, a worker that has deflated 1,000 source files adds about
 * 19 MB to the process's resident memory instead of 28 (malloc's arena for the thread and zlib's
 * buffers are most of the rest).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 };
/** objects are sent in chunks of about this many bytes: few messages (each costs the main thread
 * a copy and a post), and little left to take back */
const CHUNK_BYTES = 128 * 1024;
/** an idle worker is ended after this long, giving its memory back */
const IDLE_MS = 10_000;

// In: the chunk's objects end to end in one buffer, their sizes and zlib options (level,
// windowBits, memLevel and chunkSize of each, in one array), and a flag the
// main thread sets once it has deflated the chunk itself. Out: the deflated bytes end to end in one
// buffer and their sizes (null: taken back, or it could not). One buffer each way is handed over
// (transferred), not copied.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { deflateSync } = require('node:zlib');
parentPort.on('message', (m) => {
  let data = null;
  let sizes = null;
  try {
    const out = [];
    let at = 0;
    for (let i = 0; i < m.sizes.length && Atomics.load(m.taken, 0) === 0; i++) {
      const o = m.options.subarray(4 * i, 4 * i + 4);
      out.push(deflateSync(m.data.subarray(at, at + m.sizes[i]), { level: o[0], windowBits: o[1], memLevel: o[2], chunkSize: o[3] }));
      at += m.sizes[i];
    }
    if (out.length === m.sizes.length) {
      data = new Uint8Array(Buffer.concat(out));
      sizes = out.map((b) => b.length);
    }
  } catch {
    data = null;
  }
  parentPort.postMessage({ id: m.id, data, sizes }, data ? [data.buffer] : []);
});
`;

interface Request {
  done: (out: Buffer[] | null) => void;
}

/** The one worker of this process, made on first use and ended when idle (IDLE_MS). */
class DeflateThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Request>();
  private nextId = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: WORKER_LIMITS });
    this.worker.on('message', (m: { id: number; data: Uint8Array | null; sizes: number[] | null }) => {
      const r = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      this.settled();
      r?.done(m.data && m.sizes && split(m.data, m.sizes));
    });
    const fail = (): void => {
      if (thread === this) thread = null;
      for (const r of this.waiting.values()) r.done(null);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
    // it never keeps the process alive by itself: only while a request is out (see send)
    this.worker.unref();
  }

  /** `taken`: set to 1 when the main thread no longer needs the answer */
  send(items: Uint8Array[], level: number, taken: Int32Array, done: Request['done']): void {
    const id = this.nextId++;
    // a copy of the items end to end, handed over: a view of a larger buffer would be sent whole
    const data = Buffer.concat(items);
    const buffer = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data.buffer : new Uint8Array(data).buffer;
    const options = new Int32Array(4 * items.length);
    items.forEach((b, i) => {
      const o = deflateOptionsFor(b.byteLength, level);
      options.set([o.level!, o.windowBits!, o.memLevel!, o.chunkSize!], 4 * i);
    });
    this.waiting.set(id, { done });
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    // a transaction awaiting the answer must not see the process exit under it
    if (this.waiting.size === 1) this.worker.ref();
    this.worker.postMessage({ id, data: new Uint8Array(buffer), sizes: items.map((b) => b.byteLength), options, taken }, [buffer]);
  }

  private settled(): void {
    if (this.waiting.size > 0) return;
    this.worker.unref();
    this.idle = setTimeout(() => {
      if (thread === this) thread = null;
      void this.worker.terminate();
    }, IDLE_MS);
    this.idle.unref();
  }
}

let thread: DeflateThread | null = null;

/** `data` cut into pieces of `sizes` (views, no copies). */
function split(data: Uint8Array, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(Buffer.from(data.buffer, data.byteOffset + at, n));
    at += n;
  }
  return out;
}

interface Chunk {
  oids: string[];
  items: Uint8Array[];
  /** the deflated items, once the worker (or the main thread) has them */
  out: Buffer[] | null;
  /** the worker could not deflate it (or is gone) */
  failed?: boolean;
  /** shared with the worker: 1 once the main thread has deflated the chunk itself */
  taken: Int32Array;
}

const newChunk = (): Chunk => ({ oids: [], items: [], out: null, taken: new Int32Array(new SharedArrayBuffer(4)) });

/**
 * The objects of one batch, deflated ahead on the worker once the batch is large enough. `add`
 * each object as it is staged; `take` at the end gives the deflated bytes of those sent.
 */
export class DeflateAhead {
  private readonly chunks: Chunk[] = [];
  private pending: Chunk = newChunk();
  private pendingBytes = 0;
  private total = 0;

  /** `from`: the bytes from which the batch is deflated ahead (starting the worker if none runs) */
  constructor(
    private readonly level: number,
    private readonly from: number,
  ) {}

  /** how many objects were handed to the worker so far */
  get sent(): number {
    return this.chunks.reduce((n, c) => n + c.oids.length, 0);
  }

  add(oid: string, content: Uint8Array): void {
    this.pending.oids.push(oid);
    this.pending.items.push(content);
    this.pendingBytes += content.byteLength;
    this.total += content.byteLength;
    if (this.pendingBytes >= CHUNK_BYTES) this.sendPending();
  }

  /** Sends what is pending, in chunks of about CHUNK_BYTES, once the batch is large enough. */
  private sendPending(): void {
    if (this.total < this.from) return;
    try {
      thread ??= new DeflateThread();
    } catch {
      return; // no worker here: the main thread deflates everything, as for a small batch
    }
    const { oids, items } = this.pending;
    this.pending = newChunk();
    this.pendingBytes = 0;
    let chunk = newChunk();
    let bytes = 0;
    for (const [i, item] of items.entries()) {
      chunk.oids.push(oids[i]!);
      chunk.items.push(item);
      bytes += item.byteLength;
      if (bytes >= CHUNK_BYTES || i === items.length - 1) {
        this.send(thread, chunk);
        chunk = newChunk();
        bytes = 0;
      }
    }
  }

  private send(to: DeflateThread, chunk: Chunk): void {
    this.chunks.push(chunk);
    to.send(chunk.items, this.level, chunk.taken, (out) => {
      if (chunk.out !== null) return;
      if (out !== null && out.length === chunk.items.length) chunk.out = out;
      else chunk.failed = true;
    });
  }

  /** The batch is dropped: the worker skips what it has not deflated yet. */
  cancel(): void {
    for (const c of this.chunks) Atomics.store(c.taken, 0, 1);
  }

  /**
   * The deflated bytes of every object sent to the worker, by id. What the worker has not returned
   * yet is deflated here, from the last chunk back, until the worker's answers cover the rest; a
   * chunk it could not deflate is deflated here too.
   */
  async take(): Promise<Map<string, Buffer>> {
    let last = this.chunks.length - 1;
    for (;;) {
      // the worker answers in order: everything before the first chunk without bytes is done
      let first = 0;
      while (first <= last && this.chunks[first]!.out !== null) first++;
      if (first > last) break;
      // a chunk the worker gave up on, else the last one not taken back yet
      const at = this.chunks[first]!.failed ? first : last;
      if (at === last) last--;
      const chunk = this.chunks[at]!;
      // the worker skips it from now on (or stops in the middle of it)
      Atomics.store(chunk.taken, 0, 1);
      chunk.out ??= chunk.items.map((b) => deflateObjectSync(b, this.level));
      // let the worker's answers in
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const out = new Map<string, Buffer>();
    for (const c of this.chunks) c.oids.forEach((oid, i) => out.set(oid, c.out![i]!));
    return out;
  }
}
