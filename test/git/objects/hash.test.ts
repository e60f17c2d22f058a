import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashBlob, hashObject } from '../../../src/git/objects/hash.js';
import { cleanupRepos, makeRepo } from '../../helpers/repos.js';
import { gitInput } from '../util.js';

afterAll(cleanupRepos);

describe('hashObject', () => {
  it("gives git's ids for objects of every type, small and large, one after the other", () => {
    const dir = makeRepo('basic');
    // sizes around the largest object hashed in one call (64 KiB framed), and far beyond it
    const sizes = [0, 1, 100, 65_000, 65_524, 65_525, 65_526, 65_536, 200_000];
    for (const size of sizes) {
      const content = randomBytes(size);
      expect(hashBlob(content), `blob of ${size} bytes`).toBe(gitInput(dir, content, 'hash-object', '--stdin').trim());
      // a view into a larger buffer hashes its own bytes only
      const inside = Buffer.concat([Buffer.from('before'), content, Buffer.from('after')]).subarray(6, 6 + size);
      expect(hashBlob(inside)).toBe(hashBlob(content));
    }
    for (const type of ['tree', 'commit', 'tag'] as const) {
      const content = Buffer.from(`not a real ${type}\n`);
      expect(hashObject(type, content)).toBe(gitInput(dir, content, 'hash-object', '--literally', '-t', type, '--stdin').trim());
    }
  });
});
