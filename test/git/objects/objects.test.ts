import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/repo/discover.js';
import { hashObject } from '../../../src/git/objects/hash.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { EMPTY_TREE_OID, type TreeEntry } from '../../../src/git/objects/model/tree.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { FIXTURE_KINDS, gitInput, openFixture as open } from '../util.js';

afterAll(cleanupRepos);

/** A tree's entries in stored order, in an array of the caller's own. */
const treeEntries = async (store: ObjectStore, oid: string): Promise<TreeEntry[]> => [...(await store.treeIndex(oid)).values()];

describe.each(FIXTURE_KINDS)('ObjectStore on a $kind repository', ({ kind, pick }) => {
  it('reads commits, trees and blobs exactly as git stores them', async () => {
    const { dir, store } = await open(kind, pick);
    const head = git(dir, 'rev-parse', 'main').trim();
    const commit = await store.readCommit(head);
    expect(commit.tree).toBe(git(dir, 'rev-parse', 'main^{tree}').trim());
    expect(commit.parents).toEqual([git(dir, 'rev-parse', 'main~1').trim()]);
    expect(commit.author).toMatchObject({ name: 'Fixture Author', email: 'author@fixtures.invalid', timestamp: 1767312000, timezoneOffset: 0 });
    expect(commit.message).toBe('Add notes and vendor/lib\n');

    const tree = await treeEntries(store, commit.tree);
    const lsTree = git(dir, 'ls-tree', commit.tree)
      .trim()
      .split('\n')
      .map((l) => {
        const [meta, name] = l.split('\t');
        const [mode, , oid] = meta!.split(' ');
        return { mode: mode === '040000' ? '40000' : mode, name, oid };
      });
    expect(tree.map(({ mode, name, oid }) => ({ mode, name, oid }))).toEqual(lsTree);

    const blobOid = git(dir, 'rev-parse', 'main:docs/blob.bin').trim();
    const blob = await store.readBlob(blobOid);
    expect(Buffer.from(blob)).toEqual(Buffer.from('\xff\xfe\x00binary\x00data', 'latin1'));
    expect(hashObject('blob', blob)).toBe(blobOid);

    const raw = await store.readRaw(head);
    expect(raw.type).toBe('commit');
    expect(hashObject('commit', raw.content)).toBe(head);
  });

  it('writes new loose objects that git reads and fsck accepts, and skips existing ones', async () => {
    const { dir, repo, store } = await open(kind, pick);
    const content = Buffer.from(`new content for ${kind}\n`);
    const oid = await store.writeBlob(content);
    expect(oid).toBe(gitInput(dir, content, 'hash-object', '--stdin', '--no-filters').trim());
    expect(git(dir, 'cat-file', '-p', oid)).toBe(content.toString());
    const loose = path.join(repo.commonDir, 'objects', oid.slice(0, 2), oid.slice(2));
    expect(existsSync(loose)).toBe(true);
    expect(statSync(loose).mode & 0o222).toBe(0); // read-only, as git writes them
    expect(readdirSync(path.dirname(loose)).filter((n) => n.startsWith('tmp_'))).toEqual([]);

    const head = git(dir, 'rev-parse', 'main').trim();
    const base = await store.readCommit(head);
    const entries = await treeEntries(store, base.tree);
    entries.push({ mode: '100644', name: 'added.txt', oid });
    const tree = await store.writeTree(entries);
    const commit = await store.writeCommit({
      tree,
      parents: [head],
      author: { name: 'A U Thor', email: 'a@example.com', timestamp: 1700000000, timezoneOffset: -60 },
      committer: { name: 'C O Mitter', email: 'c@example.com', timestamp: 1700000001, timezoneOffset: 300 },
      message: 'Add added.txt\n\nBody line.\n',
    });
    expect(git(dir, 'cat-file', '-t', commit).trim()).toBe('commit');
    expect(git(dir, 'cat-file', '-p', commit)).toBe(
      `tree ${tree}\nparent ${head}\nauthor A U Thor <a@example.com> 1700000000 +0100\n` +
        `committer C O Mitter <c@example.com> 1700000001 -0500\n\nAdd added.txt\n\nBody line.\n`,
    );
    expect(git(dir, 'ls-tree', '--name-only', commit)).toContain('added.txt');
    git(dir, 'update-ref', 'refs/heads/check', commit); // make it reachable so fsck checks connectivity
    expect(git(dir, 'fsck', '--full', '--strict', '--no-dangling')).toBe('');

    // writing an object that exists (packed or loose) does not touch the object database
    const existingBlob = git(dir, 'rev-parse', 'main:README.md').trim();
    const existingContent = await store.readBlob(existingBlob);
    const before = kind === 'packed' || kind === 'bare' ? readdirSync(path.join(repo.commonDir, 'objects')).sort() : null;
    expect(await store.writeBlob(existingContent)).toBe(existingBlob);
    if (before) {
      expect(readdirSync(path.join(repo.commonDir, 'objects')).sort()).toEqual(before);
      expect(existsSync(path.join(repo.commonDir, 'objects', existingBlob.slice(0, 2), existingBlob.slice(2)))).toBe(false);
    }
  });

  it('answers hasObject and findByPrefix for loose and packed objects', async () => {
    const { dir, store } = await open(kind, pick);
    const head = git(dir, 'rev-parse', 'main').trim();
    expect(await store.hasObject(head)).toBe(true);
    expect(await store.hasObject('0123456789012345678901234567890123456789')).toBe(false);
    expect(await store.findByPrefix(head.slice(0, 7))).toEqual([head]);
    const written = await store.writeBlob(Buffer.from('prefix probe\n'));
    const fresh = new ObjectStore(store.repo);
    expect(await fresh.hasObject(written)).toBe(true);
    expect(await fresh.findByPrefix(written.slice(0, 6))).toEqual([written]);
  });
});

describe('ObjectStore details', () => {
  it('reads the empty tree without it being stored, and writes it when asked', async () => {
    const dir = makeRepo('basic');
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    expect(await treeEntries(store, EMPTY_TREE_OID)).toEqual([]);
    expect(await store.writeTree([])).toBe(EMPTY_TREE_OID);
    expect(git(dir, 'cat-file', '-t', EMPTY_TREE_OID).trim()).toBe('tree');
  });

  it('reports a missing object as missing_object and a type mismatch as corrupt_repository, naming the oid', async () => {
    const dir = makeRepo('basic');
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    const missing = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';
    await expect(store.readBlob(missing)).rejects.toMatchObject({ kind: 'missing_object', data: { oid: missing } });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    await expect(store.readBlob(head)).rejects.toMatchObject({ kind: 'corrupt_repository', data: { oid: head, type: 'commit' } });
  });

  it('finds every object of a pack by its id, and no id that differs from one in its last byte', async () => {
    const dir = makeRepo('basic');
    for (let i = 0; i < 300; i++) gitInput(dir, `object ${i}\n`, 'hash-object', '-w', '--stdin');
    git(dir, 'repack', '-adq');
    git(dir, 'prune-packed');
    const all = git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').trim().split('\n');
    expect(all.length).toBeGreaterThan(300);
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    const stored = new Set(all);
    for (const oid of all) {
      expect(await store.hasObject(oid)).toBe(true);
      for (const last of ['00', 'ff', (parseInt(oid.slice(38), 16) ^ 1).toString(16).padStart(2, '0')]) {
        const near = oid.slice(0, 38) + last;
        if (!stored.has(near)) expect(await new ObjectStore(store.repo).hasObject(near)).toBe(false);
      }
    }
  });

  it('a batch leaves out objects of kept packs only, whether or not the packs were looked at before', async () => {
    for (const lookedAtFirst of [false, true]) {
      const dir = makeRepo('basic');
      const packDir = path.join(dir, '.git/objects/pack');
      // each in a pack of its own (unreachable: repack would leave them loose)
      const packed = (text: string): string => {
        const oid = gitInput(dir, text, 'hash-object', '-w', '--stdin').trim();
        gitInput(dir, `${oid}\n`, 'pack-objects', '-q', path.join(packDir, 'pack'));
        return oid;
      };
      const inKept = packed(`in a kept pack ${lookedAtFirst}\n`);
      for (const n of readdirSync(packDir).filter((n) => n.endsWith('.pack'))) writeFileSync(path.join(packDir, n.replace(/\.pack$/, '.keep')), '');
      const inUnkept = packed(`in a pack without .keep ${lookedAtFirst}\n`);
      git(dir, 'prune-packed');
      const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
      if (lookedAtFirst) expect(await store.hasObject(inKept)).toBe(true);
      store.beginBatch();
      const written = [
        await store.writeBlob(Buffer.from(`in a kept pack ${lookedAtFirst}\n`)),
        await store.writeBlob(Buffer.from(`in a pack without .keep ${lookedAtFirst}\n`)),
        await store.writeBlob(Buffer.from(`new ${lookedAtFirst}\n`)),
      ];
      expect(written.slice(0, 2)).toEqual([inKept, inUnkept]);
      const before = new Set(readdirSync(packDir));
      await store.flushBatch('batch test');
      const idx = readdirSync(packDir).find((n) => n.endsWith('.idx') && !before.has(n))!;
      const ids = gitInput(dir, readFileSync(path.join(packDir, idx)), 'show-index')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[1]);
      expect(ids.sort(), `packs looked at first: ${lookedAtFirst}`).toEqual([inUnkept, written[2]].sort());
    }
  });

  it('reads packed objects stored as deltas', async () => {
    const dir = makeRepo('basic');
    // many similar versions of one file make git pack most of them as deltas
    const oids = [];
    for (let i = 0; i < 20; i++) {
      const body = `${'shared line of text\n'.repeat(50)}version ${i}\n`;
      oids.push({ body, oid: gitInput(dir, body, 'hash-object', '-w', '--stdin').trim() });
    }
    git(dir, 'repack', '-adq', '--window=50');
    git(dir, 'prune-packed');
    const verify = git(
      dir,
      'verify-pack',
      '-v',
      ...readdirSync(path.join(dir, '.git/objects/pack'))
        .filter((n) => n.endsWith('.idx'))
        .map((n) => `.git/objects/pack/${n}`),
    );
    expect(verify).toMatch(/chain length = [1-9]/);
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    for (const o of oids) expect(Buffer.from(await store.readBlob(o.oid)).toString()).toBe(o.body);
  });

  it.each(['loose', 'packed'])('reads a %s object into a buffer about its own size, not a 16 KB zlib chunk', async (where) => {
    const dir = makeRepo('basic');
    const body = randomBytes(3000).toString('hex'); // 6,000 bytes that no other object resembles
    writeFileSync(path.join(dir, 'random.txt'), body);
    git(dir, 'add', 'random.txt');
    git(dir, 'commit', '-qm', 'random');
    const oid = git(dir, 'rev-parse', 'HEAD:random.txt').trim();
    const loose = path.join(dir, '.git/objects', oid.slice(0, 2), oid.slice(2));
    if (where === 'packed') {
      git(dir, 'repack', '-adq');
      git(dir, 'prune-packed');
    }
    expect(existsSync(loose)).toBe(where === 'loose');
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    const content = await store.readBlob(oid);
    expect(Buffer.from(content).toString()).toBe(body);
    // every object a patch reads stays alive until the commit: a 16 KB buffer each adds up
    expect(content.buffer.byteLength).toBeLessThan(8 * 1024);
  });

  it.each([
    ['offset deltas', []],
    ['ref deltas', ['-c', 'repack.useDeltaBaseOffset=false']],
  ])('reads every object of a pack with %s, as git and isomorphic-git do', async (_name, config) => {
    const dir = makeRepo('basic');
    // large and incompressible content makes multi-byte copy offsets, 64 KiB copies and stored blocks
    const big = randomBytes(300_000);
    writeFileSync(path.join(dir, 'big.bin'), big);
    git(dir, 'add', 'big.bin');
    git(dir, 'commit', '-q', '-m', 'big');
    for (let i = 0; i < 3; i++) {
      big.write(`edit ${i}`, 100_000 * i + 5);
      writeFileSync(path.join(dir, 'big.bin'), Buffer.concat([big, Buffer.from(`tail ${i}`)]));
      writeFileSync(path.join(dir, 'src/math.js'), `export const v = ${i};\n`.repeat(40));
      git(dir, 'commit', '-q', '-am', `edit ${i}`);
    }
    git(dir, ...config, 'repack', '-adfq', '--depth=50', '--window=50');
    git(dir, 'prune-packed');
    const listing = git(dir, 'cat-file', '--batch-all-objects', '--batch-check')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string, string]);
    const ours = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    const theirs = new ObjectStore(await openRepository({ cwd: dir, env: {} }), { reader: 'isomorphic-git' });
    for (const [oid, type, size] of listing) {
      const a = await ours.readRaw(oid);
      expect(a.type).toBe(type);
      expect(a.content.byteLength).toBe(Number(size));
      const b = await theirs.readRaw(oid);
      expect(Buffer.from(a.content).equals(Buffer.from(b.content))).toBe(true);
    }
    const verify = git(
      dir,
      'verify-pack',
      '-v',
      ...readdirSync(path.join(dir, '.git/objects/pack'))
        .filter((n) => n.endsWith('.idx'))
        .map((n) => `.git/objects/pack/${n}`),
    );
    expect(verify).toMatch(/chain length = [1-9]/);
  });

  it('hands out copies: changing a returned blob does not change later reads', async () => {
    const fx = await open('packed', (d) => d);
    const oid = git(fx.dir, 'rev-parse', 'main:README.md').trim();
    const first = await fx.store.readBlob(oid);
    first.fill(0);
    expect(hashObject('blob', await fx.store.readBlob(oid))).toBe(oid);
  });

  it('finds objects a concurrent gc moved into a new pack after the store looked', async () => {
    const fx = await open('basic', (d) => d);
    const head = git(fx.dir, 'rev-parse', 'HEAD').trim();
    await fx.store.readCommit(head); // the store has now scanned objects/pack (empty)
    const readme = git(fx.dir, 'rev-parse', 'HEAD:README.md').trim();
    git(fx.dir, 'gc', '-q', '--prune=now');
    expect(existsSync(path.join(fx.repo.commonDir, 'objects', readme.slice(0, 2), readme.slice(2)))).toBe(false);
    expect(Buffer.from(await fx.store.readBlob(readme)).toString()).toBe('# Sample\n\nA small repository for patchtx tests.\n');
  });
});
