import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareBytes } from '../../src/git/byte-order.js';

describe('compareBytes', () => {
  it('orders as Buffer.compare does: unsigned bytes, a prefix first', () => {
    const samples = [Buffer.alloc(0), Buffer.from([0]), Buffer.from([0x7f]), Buffer.from([0x80]), Buffer.from([0xff, 0])];
    for (let i = 0; i < 200; i++) samples.push(randomBytes(i % 4));
    for (const a of samples) {
      for (const b of samples) expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(a, b));
    }
  });
});
