// Writing a transaction's objects as one pack: git must read every object from it, accept the
// pack and its index (`git verify-pack`, `git fsck --strict`), and patchtx's own reader must find
// them again, for a batch of one object as for many.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GitConfig } from '../../../src/git/repo/config.js';
import { FileHandle } from '../../../src/git/fs/fsx.js';
import { fsyncPolicy } from '../../../src/git/repo/fsync-policy.js';
import { hashObject, type ObjectType } from '../../../src/git/objects/hash.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { DeltaBaseCache, PackFile } from '../../../src/git/objects/pack-file.js';
import { buildPack } from '../../../src/git/objects/pack-write.js';
import { ownPacks, ownPacksDir } from '../../../src/git/objects/own-packs.js';
import { cleanupRepos, git, gitTry, makeRepo } from '../../helpers/repos.js';
import { openFixture as open } from '../util.js';

afterAll(cleanupRepos);

const packsOf = (dir: string) => readdirSync(path.join(dir, '.git/objects/pack')).sort();
const looseDirsOf = (dir: string) => readdirSync(path.join(dir, '.git/objects')).filter((n) => /^[0-9a-f]{2}$/.test(n));

function blobs(n: number, tag: string): Buffer[] {
  // sizes on both sides of the 4-bit / 7-bit steps of the entry header, and one large blob
  return Array.from({ length: n }, (_, i) => Buffer.from(`${tag} ${i}\n`.repeat(i === 0 ? 40_000 : (i * 7) % 300)));
}

describe('buildPack', () => {
  it('writes a pack and index git accepts, entries compressed at the given level', async () => {
    const dir = makeRepo('empty');
    const objects = blobs(20, 'pure').map((content) => ({ oid: hashObject('blob', content), type: 'blob' as ObjectType, content }));
    const { checksum, pack, index } = await buildPack(objects, 1);
    const packBytes = Buffer.concat(pack);
    expect(packBytes.subarray(0, 4).toString()).toBe('PACK');
    expect(packBytes.subarray(-20).toString('hex')).toBe(checksum);
    const base = path.join(dir, '.git/objects/pack', `pack-${checksum}`);
    writeFileSync(`${base}.pack`, packBytes);
    writeFileSync(`${base}.idx`, index);
    const verified = git(dir, 'verify-pack', '-v', `${base}.idx`);
    expect(verified).toContain(`${base}.pack: ok`);
    for (const o of objects) expect(Buffer.from(git(dir, 'cat-file', 'blob', o.oid), 'utf8')).toEqual(o.content);
  });
});

describe('ObjectStore batches', () => {
  it('writes a batch of objects as one pack that git and patchtx read', async () => {
    const { dir, store } = await open('basic');
    const packsBefore = packsOf(dir);
    const looseBefore = looseDirsOf(dir).length;
    store.beginBatch();
    const contents = blobs(20, 'batch');
    const oids = [];
    for (const c of contents) oids.push(await store.writeBlob(c));
    const tree = await store.writeTree(oids.map((oid, i) => ({ mode: '100644' as const, name: `f${i}.txt`, oid })));
    // readable before the flush, from memory
    expect(Buffer.from(await store.readBlob(oids[3]!))).toEqual(contents[3]);
    await store.flushBatch('patchtx test');
    const added = packsOf(dir).filter((n) => !packsBefore.includes(n));
    expect(added.filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(added.filter((n) => n.endsWith('.idx'))).toHaveLength(1);
    expect(added.some((n) => n.startsWith('tmp_'))).toBe(false);
    expect(looseDirsOf(dir).length).toBe(looseBefore);
    expect(git(dir, 'ls-tree', '--name-only', tree).trim().split('\n')).toHaveLength(contents.length);
    expect(git(dir, 'fsck', '--strict', '--no-dangling')).toBe('');
    // a fresh store (another process) finds every object in the new pack
    const again = new ObjectStore(store.repo);
    for (const [i, oid] of oids.entries()) expect(Buffer.from(await again.readBlob(oid))).toEqual(contents[i]);
    again.close();
    store.close();
  });

  it("fsyncs the pack and its index when loose objects would be or core.fsync asks, not by git's default", async () => {
    // the pack holds what a commit would write loose, which git's default does not fsync
    const { store } = await open('basic');
    const sync = vi.spyOn(FileHandle.prototype, 'sync');
    try {
      const flush = async (configText: string, tag: string) => {
        store.repo.fsync = fsyncPolicy(GitConfig.fromText(configText));
        sync.mockClear();
        store.beginBatch();
        for (const c of blobs(16, tag)) await store.writeBlob(c);
        await store.flushBatch('patchtx test');
        return sync.mock.calls.length;
      };
      expect(await flush('', 'default')).toBe(0);
      expect(await flush('[core]\n\tfsync = loose-object\n', 'loose')).toBe(2);
      expect(await flush('[core]\n\tfsyncObjectFiles = true\n', 'older setting')).toBe(2);
      // a core.fsync the user set keeps the pack components unless it removes them
      expect(await flush('[core]\n\tfsync = pack\n', 'pack')).toBe(2);
      expect(await flush('[core]\n\tfsync = reference\n', 'reference')).toBe(2);
      expect(await flush('[core]\n\tfsync = -pack-metadata\n', 'no idx')).toBe(1);
      expect(await flush('[core]\n\tfsync = none\n', 'none')).toBe(0);
    } finally {
      sync.mockRestore();
      store.close();
    }
  });

  it('looks the trees it wrote up again without reading them back from their pack', async () => {
    // a kept repository object's next transaction starts from the tree the last one wrote
    const { dir, store } = await open('basic');
    store.beginBatch();
    const contents = blobs(6, 'trees');
    const oids = [];
    for (const c of contents) oids.push(await store.writeBlob(c));
    const sub = await store.writeTree(oids.map((oid, i) => ({ mode: '100644' as const, name: `f${i}.txt`, oid })));
    const top = await store.writeTree([{ mode: '40000' as const, name: 'sub', oid: sub }]);
    // and one edited from another (as a transaction makes them), kept parsed
    const edited = await store.writeEditedTree(sub, new Map([['f0.txt', null]]));
    await store.flushBatch('patchtx test');
    const read = vi.spyOn(PackFile.prototype, 'read');
    try {
      const entries = await store.treeIndex(sub);
      expect([...entries.keys()].sort()).toEqual(git(dir, 'ls-tree', '--name-only', sub).trim().split('\n').sort());
      expect(entries.get('f2.txt')?.oid).toBe(oids[2]);
      expect((await store.treeIndex(top)).get('sub')?.oid).toBe(sub);
      const left = await store.treeIndex(edited);
      expect([...left.keys()].sort()).toEqual(git(dir, 'ls-tree', '--name-only', edited).trim().split('\n').sort());
      expect(left.has('f0.txt')).toBe(false);
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
      await store.releaseKept();
      store.close();
    }
  });

  it('writes a batch of one object as a pack too (no loose object), and nothing for a discarded one', async () => {
    const { dir, store } = await open('basic');
    const packsBefore = packsOf(dir);
    const looseBefore = git(dir, 'count-objects', '-v').match(/^count: (\d+)$/m)![1];
    store.beginBatch();
    const oid = await store.writeBlob(Buffer.from('one small object\n'));
    await store.flushBatch('patchtx test');
    expect(packsOf(dir).filter((n) => !packsBefore.includes(n) && n.endsWith('.pack'))).toHaveLength(1);
    expect(git(dir, 'count-objects', '-v').match(/^count: (\d+)$/m)![1]).toBe(looseBefore);
    expect(git(dir, 'cat-file', '-t', oid).trim()).toBe('blob');
    await store.releaseKept();
    store.beginBatch();
    const dropped = await store.writeBlob(Buffer.from('never written\n'));
    store.discardBatch();
    expect(gitTry(dir, 'cat-file', '-e', dropped).status).not.toBe(0);
  });

  it('writes a large batch (600 files: over a megabyte, and more pieces than one writev takes) as one pack git reads object by object', async () => {
    const { dir, store } = await open('basic');
    const before = packsOf(dir);
    store.beginBatch();
    const contents = Array.from({ length: 600 }, (_, i) =>
      Buffer.from(Array.from({ length: 90 }, (_, k) => `export const v_${i}_${k} = compute(${(i * 31 + k * 17) % 1009}, 'value ${k}');\n`).join('')),
    );
    const oids = [];
    for (const c of contents) oids.push(await store.writeBlob(c));
    const tree = await store.writeTree(oids.map((oid, i) => ({ mode: '100644' as const, name: `f${String(i).padStart(3, '0')}.ts`, oid })));
    await store.flushBatch('patchtx test');
    const added = packsOf(dir).filter((n) => !before.includes(n) && n.endsWith('.idx'));
    expect(added).toHaveLength(1);
    expect(git(dir, 'verify-pack', path.join(dir, '.git/objects/pack', added[0]!))).toBe('');
    expect(git(dir, 'ls-tree', '--name-only', tree).trim().split('\n')).toHaveLength(contents.length);
    for (const i of [0, 300, 599]) expect(Buffer.from(git(dir, 'cat-file', 'blob', oids[i]!), 'utf8')).toEqual(contents[i]);
    await store.releaseKept();
    store.close();
  });
});

describe('the index of a pack the store wrote', () => {
  it('is taken as written, not read back from disk', async () => {
    const { dir, store } = await open('basic');
    const before = packsOf(dir);
    store.beginBatch();
    const content = Buffer.from('found through the index as written\n');
    const oid = await store.writeBlob(content);
    await store.flushBatch('patchtx test');
    const idx = packsOf(dir).find((n) => !before.includes(n) && n.endsWith('.idx'))!;
    // the file on disk no longer lists anything: only the index kept in memory finds the object
    const file = path.join(dir, '.git/objects/pack', idx);
    const size = readFileSync(file).length;
    rmSync(file);
    writeFileSync(file, Buffer.alloc(size));
    expect(Buffer.from(await store.readBlob(oid))).toEqual(content);
    const fresh = new ObjectStore(store.repo);
    await expect(fresh.readBlob(oid)).rejects.toMatchObject({ kind: 'missing_object' });
    fresh.close();
    await store.releaseKept();
    store.close();
  });
});

describe('a batch where the directories of packs are missing', () => {
  it("makes objects/pack and the record directory, and records the pack as patchtx's own", async () => {
    const { dir, store } = await open('empty');
    const packDir = path.join(dir, '.git/objects/pack');
    rmSync(packDir, { recursive: true });
    expect(existsSync(ownPacksDir(path.join(dir, '.git')))).toBe(false);
    store.beginBatch();
    const oid = await store.writeBlob(Buffer.from('into a pack directory made anew\n'));
    await store.flushBatch('patchtx test');
    const packs = readdirSync(packDir);
    expect(packs.filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(packs.filter((n) => n.endsWith('.keep'))).toHaveLength(1);
    const checksum = /^pack-([0-9a-f]{40})\.pack$/.exec(packs.find((n) => n.endsWith('.pack'))!)![1];
    expect(await ownPacks(path.join(dir, '.git'))).toEqual([checksum]);
    expect(git(dir, 'cat-file', 'blob', oid)).toBe('into a pack directory made anew\n');
    await store.releaseKept();
    expect(readdirSync(packDir).filter((n) => n.endsWith('.keep'))).toHaveLength(0);
    store.close();
  });
});

describe('releaseKept', () => {
  it('removes the .keep files of the packs the store wrote, and takes one already gone as removed', async () => {
    const { dir, store } = await open('basic');
    const packDir = path.join(dir, '.git/objects/pack');
    const keepsBefore = readdirSync(packDir).filter((n) => n.endsWith('.keep'));
    for (const text of ['first', 'second']) {
      store.beginBatch();
      await store.writeBlob(Buffer.from(`${text} kept pack\n`));
      await store.flushBatch(`patchtx test ${text}`);
    }
    const kept = readdirSync(packDir).filter((n) => n.endsWith('.keep') && !keepsBefore.includes(n));
    expect(kept).toHaveLength(2);
    rmSync(path.join(packDir, kept[0]!));
    await store.releaseKept();
    expect(readdirSync(packDir).filter((n) => n.endsWith('.keep'))).toEqual(keepsBefore);
    store.close();
  });
});

describe('PackFile.read of a corrupt entry', () => {
  it('refuses an entry whose header claims a huge size, without allocating that size first', async () => {
    // one blob entry: type 3, a size varint claiming 2^40 bytes, then a zlib stream of 5 bytes
    const dir = mkdtempSync(path.join(os.tmpdir(), 'patchtx-pack-'));
    const size = 2 ** 40;
    const header = [0x80 | (3 << 4) | (size & 0x0f)];
    for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
      header.push((rest >= 128 ? 0x80 : 0) | (rest % 128));
    }
    const head = Buffer.alloc(12);
    head.write('PACK', 0, 'latin1');
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(1, 8);
    const file = path.join(dir, 'corrupt.pack');
    writeFileSync(file, Buffer.concat([head, Buffer.from(header), deflateSync('hello'), Buffer.alloc(20)]));
    const pack = PackFile.open(file);
    try {
      await expect(pack.read(12, new DeltaBaseCache(), () => Promise.reject(new Error('no base')))).rejects.toMatchObject({
        kind: 'corrupt_repository',
        message: expect.stringMatching(/inflated 5 bytes, header says 1099511627776/),
      });
    } finally {
      pack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
