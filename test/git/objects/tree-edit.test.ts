import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EMPTY_TREE_OID } from '../../../src/git/objects/model/tree.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { diffTrees } from '../../../src/git/objects/tree-diff.js';
import { editTree, lookupPaths, type TreeEdit } from '../../../src/git/objects/tree-edit.js';
import { cleanupRepos, git, gitEnv } from '../../helpers/repos.js';
import { FIXTURE_KINDS, gitInput, openFixture, type Fixture } from '../util.js';

afterAll(cleanupRepos);

/** What git writes for the same edits: a scratch index loaded from `base`, update-index, write-tree. */
function gitWriteTree(dir: string, base: string | null, edits: Map<string, TreeEdit>): string {
  const scratch = mkdtempSync(path.join(tmpdir(), 'patchtx-index-'));
  const env = { ...gitEnv, GIT_INDEX_FILE: path.join(scratch, 'index') };
  const run = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });
  const runInput = (input: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env, input, encoding: 'utf8' });
  try {
    if (base) run('read-tree', base);
    else run('read-tree', '--empty');
    const removals = [...edits].filter(([, e]) => e === null).map(([p]) => p);
    // removing a directory path removes everything below it, as editTree's null on a tree does
    for (const p of removals) {
      const below = run('ls-files', '-s', '--', p)
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[1]!);
      // --index-info with mode 0 removes an entry, and unlike --force-remove works in a bare repository
      if (below.length > 0) runInput(below.map((b) => `0 ${'0'.repeat(40)}\t${b}\n`).join(''), 'update-index', '--index-info');
    }
    for (const [p, e] of edits) if (e !== null) run('update-index', '--add', '--cacheinfo', `${e.mode === '40000' ? '040000' : e.mode},${e.oid},${p}`);
    return run('write-tree').trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const blobIn = (dir: string, text: string): string => gitInput(dir, text, 'hash-object', '-w', '--stdin').trim();

/** Files next to `src` (a directory) whose names sort around `src/` in git's order, plus `extra`. */
function sortOrderEdits(dir: string, extra: [string, '100644' | '100755'][]): Map<string, TreeEdit> {
  const b = blobIn(dir, 'order\n');
  const files: [string, '100644' | '100755'][] = [
    ['src.js', '100644'],
    ['src-a/x', '100644'],
    ['src0', '100644'],
    ['src/util.js', '100644'],
    ['src/util-x', '100755'],
    ...extra,
  ];
  return new Map<string, TreeEdit>(files.map(([p, mode]) => [p, { oid: b, mode }]));
}

describe.each(FIXTURE_KINDS)('tree editing on a $kind repository', ({ kind, pick }) => {
  let fx: Fixture;
  let base: string;
  const setup = async () => {
    fx = await openFixture(kind, pick);
    base = git(fx.dir, 'rev-parse', 'main^{tree}').trim();
  };

  it('looks up files, executables, symlinks, gitlinks, trees, missing and blocked paths', async () => {
    await setup();
    const rev = (p: string) => git(fx.dir, 'rev-parse', `main:${p}`).trim();
    const paths = [
      'README.md',
      'bin/run.sh',
      'docs/src-link',
      'vendor/lib',
      'src/util',
      'nope.txt',
      'src/nope/deeper.txt',
      'docs/notes.txt/under',
      'docs/src-link/x',
      'vendor/lib/inner/file',
    ];
    const expected = {
      'README.md': { type: 'blob', oid: rev('README.md'), mode: '100644' },
      'bin/run.sh': { type: 'blob', oid: rev('bin/run.sh'), mode: '100755' },
      'docs/src-link': { type: 'symlink', oid: rev('docs/src-link') },
      'vendor/lib': { type: 'gitlink', oid: '1111111111111111111111111111111111111111' },
      'src/util': { type: 'tree', oid: rev('src/util') },
      'nope.txt': { type: 'missing' },
      'src/nope/deeper.txt': { type: 'missing' },
      'docs/notes.txt/under': { type: 'missing', blockedBy: { path: 'docs/notes.txt', type: 'blob' } },
      'docs/src-link/x': { type: 'missing', blockedBy: { path: 'docs/src-link', type: 'symlink' } },
      'vendor/lib/inner/file': { type: 'missing', blockedBy: { path: 'vendor/lib', type: 'gitlink' } },
    };
    const infos = await lookupPaths(fx.store, base, paths);
    expect(Object.fromEntries(infos)).toEqual(expected);
    expect([...infos.keys()]).toEqual(paths);
    // again through the trees the store now keeps indexed (looked up without reading), and in a
    // fresh store with some of them kept: the same answers, in the order asked
    const again = await lookupPaths(fx.store, base, [...paths].reverse());
    expect(Object.fromEntries(again)).toEqual(expected);
    expect([...again.keys()]).toEqual([...paths].reverse());
    const fresh = new ObjectStore(fx.repo);
    await lookupPaths(fresh, base, ['src/util']);
    const mixed = await lookupPaths(fresh, base, paths);
    expect(Object.fromEntries(mixed)).toEqual(expected);
    expect([...mixed.keys()]).toEqual(paths);
    fresh.close();
    expect(Object.fromEntries(await lookupPaths(fx.store, null, ['a/b']))).toEqual({ 'a/b': { type: 'missing' } });
  });

  it('reads only the trees along the looked-up and edited paths, each once per store', async () => {
    await setup();
    const along = [base, git(fx.dir, 'rev-parse', 'main:src').trim(), git(fx.dir, 'rev-parse', 'main:src/util').trim()].sort();
    // every object read from the repository goes through readRaw
    const spy = vi.spyOn(fx.store, 'readRaw');
    await lookupPaths(fx.store, base, ['src/util/name.js', 'src/math.js', 'src/util/other.js']);
    expect(spy.mock.calls.map((c) => c[0]).sort()).toEqual(along);
    spy.mockClear();
    // the same store already holds them: later lookups and edits read no tree again
    const blob = blobIn(fx.dir, 'edited\n');
    const edits = new Map([['src/util/name.js', { oid: blob, mode: '100644' as const }]]);
    await lookupPaths(fx.store, base, ['src/util/name.js', 'src/util']);
    const edited = await editTree(fx.store, base, edits);
    expect(spy.mock.calls).toEqual([]);
    spy.mockRestore();
    // a fresh store reads the three trees the edit goes through, and gets the same tree
    const fresh = new ObjectStore(fx.repo);
    const freshSpy = vi.spyOn(fresh, 'readRaw');
    expect(await editTree(fresh, base, edits)).toBe(edited);
    expect(freshSpy.mock.calls.map((c) => c[0]).sort()).toEqual(along);
    // the shared index was not changed by the edit: the base still reads as it was
    expect((await lookupPaths(fx.store, base, ['src/util/name.js'])).get('src/util/name.js')).toEqual({
      type: 'blob',
      oid: git(fx.dir, 'rev-parse', 'main:src/util/name.js').trim(),
      mode: '100644',
    });
  });

  const cases: [string, (dir: string) => Map<string, TreeEdit>][] = [
    [
      'modify, add in new directories, delete',
      (dir) =>
        new Map<string, TreeEdit>([
          ['src/util/name.js', { oid: blobIn(dir, 'export const name = "changed";\n'), mode: '100644' }],
          ['new/deep/dir/file.txt', { oid: blobIn(dir, 'new file\n'), mode: '100644' }],
          ['docs/notes.txt', null],
        ]),
    ],
    ['delete the last file of a directory (the directory goes too)', () => new Map([['src/util/name.js', null]])],
    [
      'replace a file by a directory',
      (dir) =>
        new Map<string, TreeEdit>([
          ['README.md', null],
          ['README.md/inner.txt', { oid: blobIn(dir, 'inner\n'), mode: '100644' }],
        ]),
    ],
    [
      'replace a directory by a file',
      (dir) =>
        new Map<string, TreeEdit>([
          ['src/util/name.js', null],
          ['src/util', { oid: blobIn(dir, 'now a file\n'), mode: '100644' }],
        ]),
    ],
    [
      'mode changes, symlinks, gitlinks',
      (dir) => {
        const run = git(dir, 'rev-parse', 'main:bin/run.sh').trim();
        return new Map<string, TreeEdit>([
          ['bin/run.sh', { oid: run, mode: '100644' }],
          ['bin/link', { oid: blobIn(dir, 'run.sh'), mode: '120000' }],
          ['vendor/other', { oid: '2222222222222222222222222222222222222222', mode: '160000' }],
        ]);
      },
    ],
    ["names that test git's sort order, one beyond ASCII (every entry written anew)", (dir) => sortOrderEdits(dir, [['ünïcode/名前.txt', '100644']])],
    [
      "names that test git's sort order, all ASCII (the entries around them copied as stored)",
      (dir) =>
        sortOrderEdits(dir, [
          ['0first', '100644'],
          ['~last', '100644'],
        ]).set('src/util/name.js', null),
    ],
    ['delete a whole directory by its path', () => new Map([['src', null]])],
  ];

  it.each(cases)('gives the tree git writes: %s', async (_name, makeEdits) => {
    await setup();
    const edits = makeEdits(fx.dir);
    const ours = await editTree(fx.store, base, edits);
    expect(ours).toBe(gitWriteTree(fx.dir, base, edits));
    expect(git(fx.dir, 'cat-file', '-t', ours).trim()).toBe('tree');
    const commit = git(fx.dir, 'commit-tree', ours, '-m', 'check').trim();
    git(fx.dir, 'update-ref', 'refs/heads/tree-check', commit);
    expect(git(fx.dir, 'fsck', '--full', '--strict', '--no-dangling')).toBe('');
  });

  it('returns the same tree for edits that change nothing, and the empty tree when all is deleted', async () => {
    await setup();
    const same = git(fx.dir, 'rev-parse', 'main:README.md').trim();
    expect(
      await editTree(
        fx.store,
        base,
        new Map<string, TreeEdit>([
          ['README.md', { oid: same, mode: '100644' }],
          ['not/there', null],
        ]),
      ),
    ).toBe(base);
    const everything = new Map<string, TreeEdit>(
      git(fx.dir, 'ls-tree', '--name-only', base)
        .trim()
        .split('\n')
        .map((n) => [n, null]),
    );
    expect(await editTree(fx.store, base, everything)).toBe(EMPTY_TREE_OID);
  });

  it('rejects a path below a file, and a file over a non-empty directory', async () => {
    await setup();
    const b = blobIn(fx.dir, 'x\n');
    await expect(editTree(fx.store, base, new Map([['bin/run.sh/x', { oid: b, mode: '100644' }]]))).rejects.toMatchObject({
      kind: 'path_rejected',
      data: { path: 'bin/run.sh/x', blockedBy: 'bin/run.sh' },
    });
    await expect(editTree(fx.store, base, new Map([['src', { oid: b, mode: '100644' }]]))).rejects.toMatchObject({
      kind: 'path_rejected',
      data: { path: 'src' },
    });
    await expect(
      editTree(
        fx.store,
        base,
        new Map<string, TreeEdit>([
          ['src/math.js', null],
          ['src', { oid: b, mode: '100644' }],
        ]),
      ),
    ).rejects.toMatchObject({ kind: 'path_rejected' }); // src/util/name.js is still there
    await expect(
      editTree(
        fx.store,
        base,
        new Map<string, TreeEdit>([
          ['x', { oid: b, mode: '100644' }],
          ['x/y', { oid: b, mode: '100644' }],
        ]),
      ),
    ).rejects.toMatchObject({ kind: 'path_rejected', data: { path: 'x' } });
    await expect(editTree(fx.store, base, new Map([['a//b', null]]))).rejects.toMatchObject({ kind: 'path_rejected' });
  });
});

describe('tree editing from nothing', () => {
  it('builds a tree from an unborn branch like git does from an empty index', async () => {
    const fx = await openFixture('empty');
    const b = blobIn(fx.dir, 'first\n');
    const edits = new Map<string, TreeEdit>([
      ['a/b/c.txt', { oid: b, mode: '100644' }],
      ['a.txt', { oid: b, mode: '100755' }],
      ['z', { oid: b, mode: '120000' }],
    ]);
    expect(await editTree(fx.store, null, edits)).toBe(gitWriteTree(fx.dir, null, edits));
    expect(await editTree(fx.store, null, new Map())).toBe(EMPTY_TREE_OID);
  });
});

describe('names that are not valid UTF-8', () => {
  it('two that decode to the same string stay two entries when the tree is edited around them', async () => {
    // a\xff and a\xfe both decode to "a\uFFFD"; keyed by the decoded name, one would replace the other
    const fx = await openFixture('basic');
    const blob = blobIn(fx.dir, 'x\n');
    const listing = Buffer.concat([
      Buffer.from(`100644 blob ${blob}\ta`),
      Buffer.from([0xff]),
      Buffer.from(`\n100644 blob ${blob}\ta`),
      Buffer.from([0xfe]),
      Buffer.from('\n'),
    ]);
    const tree = gitInput(fx.dir, listing, 'mktree').trim();
    const edits = new Map<string, TreeEdit>([['b', { oid: blob, mode: '100644' }]]);
    const edited = await editTree(fx.store, tree, edits);
    expect(edited).toBe(gitWriteTree(fx.dir, tree, edits));
    const names = execFileSync('git', ['ls-tree', '-z', '--name-only', edited], { cwd: fx.dir, env: gitEnv }).toString('latin1').split('\0').filter(Boolean);
    expect(names.sort()).toEqual(['a\xfe', 'a\xff', 'b']);
    // a patch path is a string: the decoded name reaches neither entry, and is a new, valid name
    expect((await lookupPaths(fx.store, tree, ['a\uFFFD'])).get('a\uFFFD')).toEqual({ type: 'missing' });
  });
});

describe('trees whose modes git would write differently', () => {
  it('an edit rewrites them with the modes git gives them (100664 -> 100644), as git does', async () => {
    const fx = await openFixture('basic');
    const blob = blobIn(fx.dir, 'x\n');
    const raw = (mode: string, name: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(blob, 'hex')]);
    // git mktree would canonicalise the mode itself; an old tool's tree is written literally
    const tree = gitInput(
      fx.dir,
      Buffer.concat([raw('100664', 'a.txt'), raw('100644', 'c.txt')]),
      'hash-object',
      '-t',
      'tree',
      '-w',
      '--literally',
      '--stdin',
    ).trim();
    const stored = (oid: string) => execFileSync('git', ['cat-file', 'tree', oid], { cwd: fx.dir, env: gitEnv }).toString('latin1');
    expect(stored(tree)).toContain('100664 a.txt');
    const edits = new Map<string, TreeEdit>([['b.txt', { oid: blob, mode: '100644' }]]);
    const edited = await editTree(fx.store, tree, edits);
    expect(edited).toBe(gitWriteTree(fx.dir, tree, edits));
    expect(stored(edited)).toContain('100644 a.txt');
  });
});

describe('diffTrees and names that are not valid UTF-8', () => {
  it('reports a change to one of two names that decode alike, and only that one', async () => {
    const fx = await openFixture('basic');
    const x = blobIn(fx.dir, 'x\n');
    const y = blobIn(fx.dir, 'y\n');
    const tree = (ff: string, fe: string) =>
      gitInput(
        fx.dir,
        Buffer.concat([
          Buffer.from(`100644 blob ${ff}\ta`),
          Buffer.from([0xff]),
          Buffer.from(`\n100644 blob ${fe}\ta`),
          Buffer.from([0xfe]),
          Buffer.from('\n'),
        ]),
        'mktree',
      ).trim();
    const deltas = await diffTrees(fx.store, tree(x, x), tree(x, y));
    expect(deltas).toEqual([{ path: 'a\uFFFD', before: { oid: x, mode: '100644' }, after: { oid: y, mode: '100644' } }]);
    expect(await diffTrees(fx.store, tree(x, y), tree(x, y))).toEqual([]);
  });
});
