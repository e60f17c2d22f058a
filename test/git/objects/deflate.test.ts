// Objects are deflated with a window sized to each object (src/git/objects/deflate.ts): the bytes must
// inflate back exactly, git must read them, and the output must not grow against zlib's defaults.
import { deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ASYNC_DEFLATE_MIN, deflateObject, deflateObjectSync, deflateOptionsFor } from '../../../src/git/objects/deflate.js';

function sourceLike(size: number, seed: number): Buffer {
  const words = ['const', 'value', 'return', 'function', 'if (x) {', '}', 'export', 'import', '=>', 'await'];
  let s = '';
  let n = seed;
  while (s.length < size) {
    n = (n * 1103515245 + 12345) & 0x7fffffff;
    s += `${words[n % words.length]} v${n % 977}${n % 5 === 0 ? '\n' : ' '}`;
  }
  return Buffer.from(s.slice(0, size));
}

describe('sized deflate', () => {
  it('picks the smallest window that holds the object, up to the 32 KB default', () => {
    expect(deflateOptionsFor(0, 1)).toEqual({ level: 1, windowBits: 9, memLevel: 2, chunkSize: 64 });
    expect(deflateOptionsFor(4096 - 262, 1).windowBits).toBe(12);
    expect(deflateOptionsFor(4096 - 261, 1).windowBits).toBe(13);
    expect(deflateOptionsFor(10_000_000, -1)).toEqual({ level: -1, windowBits: 15, memLevel: 8, chunkSize: 16 * 1024 });
  });

  it("does not leave a small object's compressed bytes in a 16 KB output buffer", () => {
    // zlib's default output buffer is 16 KB; a 6 KB object compresses to ~2 KB and would keep it
    const data = sourceLike(6000, 7);
    const out = deflateObjectSync(data, 1);
    expect(out.buffer.byteLength).toBeLessThan(8 * 1024);
    expect(deflateSync(data, { level: 1 }).buffer.byteLength).toBe(16 * 1024);
    expect(inflateSync(out).equals(data)).toBe(true);
  });

  it('round-trips every size and stays within 1% of zlib defaults in total', async () => {
    let sized = 0;
    let plain = 0;
    for (const [i, size] of [0, 1, 100, 511, 512, 3000, 4000, 9000, 40_000, 70_000, ASYNC_DEFLATE_MIN + 1].entries()) {
      const data = sourceLike(size, i + 1);
      const out = deflateObjectSync(data, 1);
      expect(inflateSync(out).equals(data)).toBe(true);
      expect((await deflateObject(data, 1)).equals(out)).toBe(true);
      sized += out.length;
      plain += deflateSync(data, { level: 1 }).length;
    }
    expect(sized).toBeLessThanOrEqual(plain * 1.01);
  });
});
