// A large batch's objects are deflated ahead on a worker thread (src/git/objects/deflate-worker.ts):
// what comes back must be the very bytes the main thread would have made, for every object sent,
// however far the worker got; a small batch never starts one; and the pack written from them must
// be one git reads.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { deflateObjectSync } from '../../../src/git/objects/deflate.js';
import { DeflateAhead } from '../../../src/git/objects/deflate-worker.js';
import { hashObject } from '../../../src/git/objects/hash.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { cleanupRepos, git } from '../../helpers/repos.js';
import { openFixture as open } from '../util.js';

afterAll(cleanupRepos);

/** `n` distinct source-like files of about 4 KB */
function files(n: number, tag: string): Buffer[] {
  return Array.from({ length: n }, (_, i) =>
    Buffer.from(Array.from({ length: 90 }, (_, k) => `export const ${tag}_${i}_${k} = compute(${(i * 31 + k * 17) % 1009}, 'value ${k}');\n`).join('')),
  );
}

describe('DeflateAhead', () => {
  // first: no worker is running yet
  it('starts the worker from the size it is given (a store kept between commands gives a smaller one)', async () => {
    const contents = files(80, 'kept');
    const ahead = new DeflateAhead(1, 256 * 1024);
    contents.forEach((c) => ahead.add(hashObject('blob', c), c));
    expect(ahead.sent).toBeGreaterThan(0);
    const deflated = await ahead.take();
    expect(deflated.size).toBe(ahead.sent);
    for (const [oid, out] of deflated) expect(hashObject('blob', inflateSync(out))).toBe(oid);
  });

  it('gives, for every object sent, the bytes the main thread would have made', async () => {
    const ahead = new DeflateAhead(1, 2 << 20);
    const contents = files(600, 'big');
    const oids = contents.map((c) => hashObject('blob', c));
    contents.forEach((c, i) => ahead.add(oids[i]!, c));
    // 2.6 MB: at least the first 2 MB went to the worker; only a tail under a chunk (128 KB) stays back
    expect(ahead.sent).toBeGreaterThan(560);
    const deflated = await ahead.take();
    expect(deflated.size).toBe(ahead.sent);
    for (const [i, oid] of oids.entries()) {
      const out = deflated.get(oid);
      if (i < ahead.sent) {
        expect(out).toBeDefined();
        expect(out!.equals(deflateObjectSync(contents[i]!, 1))).toBe(true);
        expect(inflateSync(out!).equals(contents[i]!)).toBe(true);
      } else expect(out).toBeUndefined();
    }
  });

  it('deflates on the main thread what the worker was told to skip', async () => {
    // cancel() is what a dropped batch does; the worker then answers without bytes
    const ahead = new DeflateAhead(1, 256 * 1024);
    const contents = files(200, 'skipped');
    const oids = contents.map((c) => hashObject('blob', c));
    contents.forEach((c, i) => ahead.add(oids[i]!, c));
    expect(ahead.sent).toBeGreaterThan(0);
    ahead.cancel();
    const deflated = await ahead.take();
    expect(deflated.size).toBe(ahead.sent);
    for (const [i, oid] of oids.entries()) {
      if (i < ahead.sent) expect(deflated.get(oid)!.equals(deflateObjectSync(contents[i]!, 1))).toBe(true);
    }
  });

  it('sends nothing for a small batch', async () => {
    const ahead = new DeflateAhead(1, 256 * 1024);
    for (const c of files(20, 'small')) ahead.add(hashObject('blob', c), c);
    expect(ahead.sent).toBe(0);
    expect((await ahead.take()).size).toBe(0);
  });
});

describe('a large batch written as a pack', () => {
  it('is read back by git, object by object', async () => {
    const { dir, store: plain } = await open('basic');
    // a store as the library's repository object keeps between commands
    const store = new ObjectStore(plain.repo, { compression: 1, deflateAheadFrom: 256 * 1024 });
    plain.close();
    const before = readdirSync(path.join(dir, '.git/objects/pack'));
    store.beginBatch();
    const contents = files(300, 'pack');
    const oids = [];
    for (const c of contents) oids.push(await store.writeBlob(c));
    const tree = await store.writeTree(oids.map((oid, i) => ({ mode: '100644' as const, name: `f${String(i).padStart(3, '0')}.ts`, oid })));
    await store.flushBatch('patchtx test');
    const added = readdirSync(path.join(dir, '.git/objects/pack')).filter((n) => !before.includes(n) && n.endsWith('.idx'));
    expect(added).toHaveLength(1);
    expect(git(dir, 'verify-pack', path.join(dir, '.git/objects/pack', added[0]!))).toBe('');
    expect(git(dir, 'ls-tree', '--name-only', tree).trim().split('\n')).toHaveLength(contents.length);
    for (const i of [0, 150, 299]) expect(Buffer.from(git(dir, 'cat-file', 'blob', oids[i]!), 'utf8')).toEqual(contents[i]);
    await store.releaseKept();
    store.close();
  });
});
