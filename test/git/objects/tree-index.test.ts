// The object store's index of a tree's entries by name (treeIndex), cross-checked with git's own
// listing of trees git wrote: names that are prefixes of one another, files and directories of the
// same stem (which git's order puts apart), names absent from the tree, and a tree with a name
// beyond ASCII (indexed another way).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/repo/discover.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

/** git's listing of tree `oid`: each entry's name, mode and id, in the tree's order. */
function lsTree(dir: string, oid: string): { name: string; mode: string; oid: string }[] {
  return git(dir, '-c', 'core.quotePath=false', 'ls-tree', oid)
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta, name] = line.split('\t') as [string, string];
      const [mode, , id] = meta.split(' ') as [string, string, string];
      return { name, mode: mode === '040000' ? '40000' : mode, oid: id };
    });
}

/** A tree holding a file at each of `files` (paths), as git writes it. */
function treeWith(dir: string, files: string[]): string {
  const blob = git(dir, 'hash-object', '-w', '/dev/null').trim();
  git(dir, 'read-tree', '--empty');
  for (const f of files) git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${f}`);
  return git(dir, 'write-tree').trim();
}

const STEMS = ['a/x', 'a.txt', 'a-b', 'a0', 'ab/y', 'ab.c', 'b', 'b!/z', 'c.d/e', 'c', 'z'];
const ABSENT = ['', 'a.', 'a/', 'a-', 'x', 'ab.', 'b!/', 'bb', 'a.txt/', 'é', 'A', 'zz', '0', 'c.'];

describe('treeIndex', () => {
  it('finds every entry of a tree git wrote by its name, files and directories alike, and nothing else', async () => {
    const dir = makeRepo('basic');
    const root = treeWith(dir, STEMS);
    const listed = lsTree(dir, root);
    // a directory sorts as if its name ended in '/': after names that go on with a lesser byte
    expect(listed.map((e) => e.name)).toEqual(['a-b', 'a.txt', 'a', 'a0', 'ab.c', 'ab', 'b', 'b!', 'c', 'c.d', 'z']);
    const store = new ObjectStore(await openRepository({ cwd: dir }));
    try {
      const index = await store.treeIndex(root);
      expect(index.size).toBe(listed.length);
      expect([...index.values()].map((e) => [e.name, e.mode, e.oid])).toEqual(listed.map((e) => [e.name, e.mode, e.oid]));
      expect([...index.keys()]).toEqual(listed.map((e) => e.name));
      expect([...index].map(([k, e]) => [k, e.oid])).toEqual(listed.map((e) => [e.name, e.oid]));
      for (const e of listed) {
        const found = index.get(e.name);
        expect(found && [found.name, found.mode, found.oid], e.name).toEqual([e.name, e.mode, e.oid]);
        expect(index.has(e.name), e.name).toBe(true);
      }
      for (const name of ABSENT) {
        expect(index.get(name), name).toBeUndefined();
        expect(index.has(name), name).toBe(false);
      }
    } finally {
      store.close();
    }
  });

  it('finds every entry of trees of many names, as git lists them', async () => {
    const dir = makeRepo('basic');
    // names of every printable ASCII character around a common stem, as files and as directories
    const chars = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter((c) => c !== '/' && c !== '"' && c !== '\\');
    const files = chars.flatMap((c, i) => (i % 2 === 0 ? [`s${c}`, `s${c}t/f`] : [`s${c}t`, `s${c}/f`]));
    const root = treeWith(dir, [...files, 's', 'sub/f']);
    const listed = lsTree(dir, root);
    const store = new ObjectStore(await openRepository({ cwd: dir }));
    try {
      const index = await store.treeIndex(root);
      for (const e of listed) expect(index.get(e.name)?.oid, e.name).toBe(e.oid);
      for (const c of chars) expect(index.get(`s${c}x`), `s${c}x`).toBeUndefined();
      expect([...index.keys()]).toEqual(listed.map((e) => e.name));
    } finally {
      store.close();
    }
  });

  it('indexes a tree with a name beyond ASCII by name too', async () => {
    const dir = makeRepo('basic');
    const root = treeWith(dir, ['é.txt', 'a/b', 'z']);
    const listed = lsTree(dir, root);
    const store = new ObjectStore(await openRepository({ cwd: dir }));
    try {
      const index = await store.treeIndex(root);
      expect(index.size).toBe(3);
      for (const e of listed) expect(index.get(e.name)?.oid, e.name).toBe(e.oid);
      expect(index.get('e.txt')).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('a tree git would not write, with a file and a directory of one name: the directory, as the last entry of a name', async () => {
    const dir = makeRepo('basic');
    const blob = git(dir, 'hash-object', '-w', '/dev/null').trim();
    const sub = treeWith(dir, ['x']);
    // git mktree writes it as given (git fsck calls it duplicateEntries): a, a-b, a/ is the order
    const root = execFileSync('git', ['mktree'], {
      cwd: dir,
      input: `100644 blob ${blob}\ta\n100644 blob ${blob}\ta-b\n040000 tree ${sub}\ta\n`,
      encoding: 'utf8',
    }).trim();
    const store = new ObjectStore(await openRepository({ cwd: dir }));
    try {
      const index = await store.treeIndex(root);
      expect(index.get('a')).toMatchObject({ mode: '40000', oid: sub });
      expect(index.get('a-b')).toMatchObject({ mode: '100644', oid: blob });
      expect(index.size).toBe(2);
    } finally {
      store.close();
    }
  });
});
