// What a process kept up between patches holds must stay under a ceiling whatever the number of
// patches: the ByteCache itself (least recently used out first, never above its ceiling), and the
// object store's parsed trees, read one after another from a real repository with a small ceiling.
import { afterAll, describe, expect, it } from 'vitest';
import { ByteCache } from '../../../src/git/objects/byte-cache.js';
import { openRepository } from '../../../src/git/repo/discover.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

describe('ByteCache', () => {
  it('never holds more than its ceiling, and lets the least recently used go first', () => {
    const cache = new ByteCache<string, number>(100);
    for (let i = 0; i < 1000; i++) {
      cache.set(`k${i}`, i, 30);
      expect(cache.bytes).toBeLessThanOrEqual(100);
    }
    expect(cache.size).toBe(3);
    expect([997, 998, 999].map((i) => cache.get(`k${i}`))).toEqual([997, 998, 999]);
    // k997 was used last but two: using it keeps it, and k998 goes when room is needed
    cache.get('k997');
    cache.get('k999');
    cache.set('new', -1, 30);
    expect(cache.has('k998')).toBe(false);
    expect(cache.has('k997') && cache.has('k999') && cache.has('new')).toBe(true);
    expect(cache.bytes).toBe(90);
  });

  it('keeps no entry larger than its ceiling, and counts a replaced entry once', () => {
    const cache = new ByteCache<string, string>(100);
    cache.set('a', 'small', 40);
    cache.set('huge', 'too big', 101);
    expect(cache.has('huge')).toBe(false);
    expect(cache.bytes).toBe(40);
    cache.set('a', 'again', 50);
    expect(cache.bytes).toBe(50);
    cache.delete('a');
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
  });
});

describe('the object store keeps its parsed trees under a ceiling', () => {
  it('reading many trees, one after another, never keeps more than the ceiling', async () => {
    const dir = makeRepo('basic');
    // 60 small trees (a directory of one file each), read through one store with room for a few
    const empty = git(dir, 'hash-object', '-w', '/dev/null').trim();
    for (let d = 0; d < 60; d++) git(dir, 'update-index', '--add', '--cacheinfo', `100644,${empty},many/d${d}/file${d}.txt`);
    const trees = git(dir, 'write-tree').trim();
    const subtrees = git(dir, 'ls-tree', `${trees}:many`)
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[2]!);
    expect(new Set(subtrees).size).toBe(60);
    const store = new ObjectStore(await openRepository({ cwd: dir }), { treeCacheBytes: 4096 });
    const ceiling = 4096;
    for (const oid of subtrees) {
      const entries = await store.treeIndex(oid);
      expect(entries.size).toBe(1);
      expect(store.treeCacheBytes).toBeGreaterThan(0);
      expect(store.treeCacheBytes).toBeLessThanOrEqual(ceiling);
    }
    // and what was let go is read again when asked for
    expect([...(await store.treeIndex(subtrees[0]!)).keys()]).toEqual(['file0.txt']);
    store.close();
  });
});
