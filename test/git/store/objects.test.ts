import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/discover.js';
import { hashObject } from '../../../src/git/hash.js';
import { ObjectStore } from '../../../src/git/objects.js';
import { EMPTY_TREE_OID } from '../../../src/git/model/tree.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { FIXTURE_KINDS, gitInput, openFixture as open } from './util.js';

afterAll(cleanupRepos);

describe.each(FIXTURE_KINDS)('ObjectStore on a $kind repository', ({ kind, pick }) => {
  it('reads commits, trees and blobs exactly as git stores them', async () => {
    const { dir, store } = await open(kind, pick);
    const head = git(dir, 'rev-parse', 'main').trim();
    const commit = await store.readCommit(head);
    expect(commit.tree).toBe(git(dir, 'rev-parse', 'main^{tree}').trim());
    expect(commit.parents).toEqual([git(dir, 'rev-parse', 'main~1').trim()]);
    expect(commit.author).toMatchObject({ name: 'Fixture Author', email: 'author@fixtures.invalid', timestamp: 1767312000, timezoneOffset: 0 });
    expect(commit.message).toBe('Add notes and vendor/lib\n');

    const tree = await store.readTree(commit.tree);
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
    const entries = await store.readTree(base.tree);
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
    expect(await store.readTree(EMPTY_TREE_OID)).toEqual([]);
    expect(await store.writeTree([])).toBe(EMPTY_TREE_OID);
    expect(git(dir, 'cat-file', '-t', EMPTY_TREE_OID).trim()).toBe('tree');
  });

  it('reports missing objects and type mismatches as internal errors naming the oid', async () => {
    const dir = makeRepo('basic');
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    const missing = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';
    await expect(store.readBlob(missing)).rejects.toMatchObject({ kind: 'internal', data: { oid: missing } });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    await expect(store.readBlob(head)).rejects.toMatchObject({ kind: 'internal', data: { oid: head, type: 'commit' } });
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
    const verify = git(dir, 'verify-pack', '-v', ...readdirSync(path.join(dir, '.git/objects/pack')).filter((n) => n.endsWith('.idx')).map((n) => `.git/objects/pack/${n}`));
    expect(verify).toMatch(/chain length = [1-9]/);
    const store = new ObjectStore(await openRepository({ cwd: dir, env: {} }));
    for (const o of oids) expect(Buffer.from(await store.readBlob(o.oid)).toString()).toBe(o.body);
  });
});
