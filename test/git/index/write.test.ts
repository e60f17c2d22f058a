// Writing the index after the branch has moved: only the touched paths change, other staged and
// unstaged changes stay as they were, and the real git CLI agrees (`git status`, `git ls-files -s`,
// `git fsck`, `git write-tree` with the kept cache tree).
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPatchtxError } from '../../../src/errors.js';
import { invalidateCacheTree } from '../../../src/git/index/cache-tree.js';
import { parseIndex, renderIndex, renderIndexPieces } from '../../../src/git/index/format.js';
import { lockIndex } from '../../../src/git/index/lock.js';
import { readIndex } from '../../../src/git/index/read.js';
import { validateIndexUpdates, type IndexUpdate } from '../../../src/git/index/updates.js';
import { removeWorktreeFile, writeWorktreeFile } from '../../../src/git/worktree/worktree.js';
import { cleanupRepos, git, gitWith, makeRepo } from '../../helpers/repos.js';
import { atStartOfSecond, commitWithoutIndex, parseCacheTree, repoAt, settle, treeFromScratch, writeBlob, type TreeChange } from './support.js';

afterAll(cleanupRepos);

/** `git status` as a user runs it: it refreshes the index's stat data (an optional lock). */
const status = (repo: string): string => gitWith(repo, { env: { GIT_OPTIONAL_LOCKS: '1' } }, 'status', '--porcelain');

async function writeIndexUpdates(repo: string, updates: Map<string, IndexUpdate>): Promise<void> {
  const lock = await lockIndex(repoAt(repo));
  try {
    await lock.write(updates);
  } finally {
    await lock.release();
  }
}

/** What patchtx does for one patch: write the files, move the branch, then sync the index. */
async function applyLikePatchtx(repo: string, files: Array<[path: string, content: string | null, executable?: boolean]>): Promise<Map<string, IndexUpdate>> {
  const updates = new Map<string, IndexUpdate>();
  const changes: TreeChange[] = [];
  for (const [p, content, executable = false] of files) {
    if (content === null) {
      await removeWorktreeFile(repo, p);
      updates.set(p, null);
      changes.push([p, null]);
      continue;
    }
    const oid = writeBlob(repo, content);
    const stat = await writeWorktreeFile(repo, p, Buffer.from(content), executable);
    const mode = executable ? 0o100755 : 0o100644;
    updates.set(p, { oid, mode, stat });
    changes.push([p, { mode: mode.toString(8), oid }]);
  }
  commitWithoutIndex(repo, changes);
  await writeIndexUpdates(repo, updates);
  return updates;
}

function treeExtension(repo: string): ReturnType<typeof parseCacheTree> {
  const index = parseIndex(readFileSync(path.join(repo, '.git', 'index')), 'index', null, { verifyChecksum: true });
  const ext = index.extensions.find((e) => e.signature === 'TREE');
  return ext ? parseCacheTree(index.bytes.subarray(ext.start + 8, ext.end)) : [];
}

describe('IndexLock.write', () => {
  it('syncs modified, added, removed and re-moded paths and leaves other changes alone', async () => {
    const repo = makeRepo('basic');
    settle(repo);
    // another staged change, and an unstaged one, that must survive
    writeFileSync(path.join(repo, 'README.md'), '# Staged elsewhere\n');
    git(repo, 'add', 'README.md');
    writeFileSync(path.join(repo, 'docs/notes.txt'), 'unstaged edit\n');
    const before = status(repo);
    expect(before).toBe('M  README.md\n M docs/notes.txt\n');

    const nameJs = readFileSync(path.join(repo, 'src/util/name.js'), 'utf8');
    await applyLikePatchtx(repo, [
      ['src/math.js', 'export const add = (a, b) => a + b;\n'],
      ['src/new.js', 'export const fresh = true;\n'], // between src/math.js and src/util/name.js
      ['docs/crlf.txt', null],
      ['src/util/name.js', nameJs, true], // exec bit only
      ['bin/run.sh', '#!/bin/sh\necho bye\n', true],
    ]);

    expect(status(repo)).toBe(before);
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('README.md\n');
    const ls = git(repo, 'ls-files', '-s');
    for (const p of ['src/math.js', 'src/new.js', 'src/util/name.js', 'bin/run.sh']) {
      const head = git(repo, 'ls-tree', 'HEAD', p).split('\t')[0]!.replace(' blob ', ' ');
      expect(ls).toContain(`${head} 0\t${p}\n`);
    }
    expect(ls).toMatch(/^100755 \S+ 0\tsrc\/util\/name\.js$/m);
    expect(ls).not.toContain('docs/crlf.txt');
    expect(git(repo, 'ls-files').split('\n').filter(Boolean)).toEqual([
      'README.md',
      'bin/run.sh',
      'docs/blob.bin',
      'docs/notes.txt',
      'docs/src-link',
      'src/math.js',
      'src/new.js',
      'src/util/name.js',
      'vendor/lib',
    ]);
    git(repo, 'fsck', '--strict', '--no-progress');
    expect(git(repo, 'fsck', '--no-progress', '--no-dangling')).toBe('');
    // the lock is gone and the written stat data let git skip re-reading the touched files
    expect(() => statSync(path.join(repo, '.git', 'index.lock'))).toThrow();
    expect(git(repo, 'diff-files', '--name-only')).toBe('docs/notes.txt\n');
  });

  it('keeps the cache tree, invalidated along the changed paths only', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'README.md'), '# Staged elsewhere\n');
    git(repo, 'add', 'README.md');
    git(repo, 'write-tree'); // make the cache tree complete again, including README's change
    expect(treeExtension(repo).every((r) => r.entryCount >= 0)).toBe(true);

    await applyLikePatchtx(repo, [
      ['src/util/name.js', 'export const name = "renamed";\n'],
      ['docs/extra/new.txt', 'new dir\n'],
    ]);

    const records = new Map(treeExtension(repo).map((r) => [r.path, r]));
    expect(records.get('')!.entryCount).toBe(-1);
    expect(records.get('src')!.entryCount).toBe(-1);
    expect(records.get('src/util')!.entryCount).toBe(-1);
    expect(records.get('docs')!.entryCount).toBe(-1);
    expect(records.get('bin')!.oid).toBe(git(repo, 'rev-parse', 'HEAD:bin').trim());
    expect(records.has('docs/extra')).toBe(false);
    // git fills the invalid records from the index and trusts the valid ones
    const tree = git(repo, 'write-tree').trim();
    expect(tree).toBe(treeFromScratch(repo));
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('README.md\n');
  });

  it('a cache tree that does not parse is dropped whole, as git treats it as absent', () => {
    const repo = makeRepo('basic');
    git(repo, 'write-tree');
    const index = parseIndex(readFileSync(path.join(repo, '.git', 'index')));
    const ext = index.extensions.find((e) => e.signature === 'TREE')!;
    const data = Buffer.from(index.bytes.subarray(ext.start + 8, ext.end));
    const target = [Buffer.from('src/util/name.js')];
    expect(parseCacheTree(invalidateCacheTree(data, target)!).find((r) => r.path === 'src')!.entryCount).toBe(-1);
    const text = data.toString('latin1');
    const broken = (from: string, to: string) => Buffer.from(text.replace(from, to), 'latin1');
    const firstCounts = text.slice(1, text.indexOf('\n')); // the root's name is empty
    expect(invalidateCacheTree(broken(firstCounts, firstCounts.replace(' ', 'x')), target)).toBeNull();
    expect(invalidateCacheTree(broken(firstCounts, `${firstCounts.split(' ')[0]} -1`), target)).toBeNull();
    expect(invalidateCacheTree(broken(firstCounts, `1234567890 ${firstCounts.split(' ')[1]}`), target)).toBeNull();
    expect(invalidateCacheTree(data.subarray(0, data.length - 5), target)).toBeNull();
    expect(invalidateCacheTree(Buffer.concat([data, Buffer.from('x')]), target)).toBeNull();
  });

  it('drops the cache-tree record of a directory that became a file', async () => {
    const repo = makeRepo('basic');
    await applyLikePatchtx(repo, [
      ['src/util/name.js', null],
      ['src/util', 'now a file\n'],
    ]);
    expect(treeExtension(repo).some((r) => r.path === 'src/util')).toBe(false);
    expect(git(repo, 'write-tree').trim()).toBe(git(repo, 'rev-parse', 'HEAD^{tree}').trim());
    expect(status(repo)).toBe('');
  });

  it('removes the directories a removal emptied, and only those', async () => {
    const repo = makeRepo('basic');
    await applyLikePatchtx(repo, [
      ['src/util/name.js', null],
      ['bin/run.sh', null],
      ['docs/notes.txt', null],
    ]);
    expect(() => statSync(path.join(repo, 'src/util'))).toThrow();
    expect(statSync(path.join(repo, 'src')).isDirectory()).toBe(true);
    expect(() => statSync(path.join(repo, 'bin'))).toThrow();
    expect(statSync(path.join(repo, 'docs')).isDirectory()).toBe(true);
    expect(status(repo)).toBe('');
    expect(git(repo, 'write-tree').trim()).toBe(git(repo, 'rev-parse', 'HEAD^{tree}').trim());
  });

  it('replaces every conflict stage of an updated path and keeps other extensions', async () => {
    const repo = makeRepo('basic');
    git(repo, 'checkout', '-q', '-b', 'other');
    writeFileSync(path.join(repo, 'src/math.js'), 'other side\n');
    writeFileSync(path.join(repo, 'README.md'), 'other readme\n');
    git(repo, 'commit', '-qam', 'other');
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(path.join(repo, 'src/math.js'), 'main side\n');
    writeFileSync(path.join(repo, 'README.md'), 'main readme\n');
    git(repo, 'commit', '-qam', 'main');
    expect(() => git(repo, 'merge', '-q', 'other')).toThrow();
    // resolving README with git records resolve-undo (REUC) information
    writeFileSync(path.join(repo, 'README.md'), 'resolved readme\n');
    git(repo, 'add', 'README.md');
    const before = (await readIndex(repoAt(repo)))!;
    expect(before.extensions.map((e) => e.signature)).toContain('REUC');

    const content = 'resolved\n';
    const oid = writeBlob(repo, content);
    const stat = await writeWorktreeFile(repo, 'src/math.js', Buffer.from(content), false);
    await writeIndexUpdates(repo, new Map([['src/math.js', { oid, mode: 0o100644, stat }]]));

    expect(git(repo, 'ls-files', '-s', 'src/math.js')).toBe(`100644 ${oid} 0\tsrc/math.js\n`);
    expect(status(repo)).toBe('M  README.md\nM  src/math.js\n');
    const after = (await readIndex(repoAt(repo)))!;
    expect(after.extensions.map((e) => e.signature)).toContain('REUC');
    // the resolve-undo record still lets git bring README's conflict back
    git(repo, 'checkout', '-m', 'README.md');
    expect(git(repo, 'ls-files', '-s', 'README.md').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('turns an intent-to-add entry into a real one', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'later.txt'), 'x\n');
    git(repo, 'add', '-N', 'later.txt');
    expect((await readIndex(repoAt(repo)))!.version).toBe(3);
    await applyLikePatchtx(repo, [['later.txt', 'later\n']]);
    expect(status(repo)).toBe('');
    git(repo, 'fsck', '--no-progress');
  });

  it('creates the index when there is none', async () => {
    const repo = makeRepo('empty');
    rmSync(path.join(repo, '.git', 'index'));
    expect(await readIndex(repoAt(repo))).toBeNull();
    await applyLikePatchtx(repo, [['a/b.txt', 'first\n']]);
    expect(status(repo)).toBe('');
    expect(git(repo, 'ls-files', '-s')).toMatch(/^100644 \S+ 0\ta\/b\.txt\n$/);
  });

  it('writes a symlink entry and an entry with unknown stat data', async () => {
    const repo = makeRepo('basic');
    settle(repo);
    const content = 'no stat\n';
    const oid = writeBlob(repo, content);
    writeFileSync(path.join(repo, 'src/math.js'), content);
    const linkOid = writeBlob(repo, '../README.md');
    const { writeWorktreeSymlink } = await import('../../../src/git/worktree/worktree.js');
    const linkStat = await writeWorktreeSymlink(repo, 'docs/readme-link', '../README.md');
    commitWithoutIndex(repo, [
      ['src/math.js', { mode: '100644', oid }],
      ['docs/readme-link', { mode: '120000', oid: linkOid }],
    ]);
    await writeIndexUpdates(
      repo,
      new Map<string, IndexUpdate>([
        ['src/math.js', { oid, mode: 0o100644, stat: null }],
        ['docs/readme-link', { oid: linkOid, mode: 0o120000, stat: linkStat }],
      ]),
    );
    // zeroed stat: plumbing sees it as stat-dirty, porcelain compares content and finds it clean
    expect(git(repo, 'diff-files', '--name-only')).toBe('src/math.js\n');
    expect(status(repo)).toBe('');
  });

  it('refuses to stage a path that clashes with a remaining entry (directory/file)', async () => {
    const repo = makeRepo('basic');
    const oid = writeBlob(repo, 'x\n');
    const lock = await lockIndex(repoAt(repo));
    try {
      await expect(lock.write(new Map([['src', { oid, mode: 0o100644, stat: null }]]))).rejects.toMatchObject({ kind: 'dirty' });
    } finally {
      await lock.release();
    }
    expect(() => statSync(path.join(repo, '.git', 'index.lock'))).toThrow();
    const index = (await readIndex(repoAt(repo)))!;
    expect(() => renderIndex(index, new Map([['README.md/x', { oid, mode: 0o100644, stat: null }]]))).toThrow(/README\.md/);
    expect(() => validateIndexUpdates(index, new Map([['src/util', { oid, mode: 0o100644, stat: null }]]))).toThrow(/src\/util\/name\.js/);
    expect(() => validateIndexUpdates(index, new Map([['src/x', { oid: 'nope', mode: 0o100644, stat: null }]]))).toThrow(/bad object id/);
    validateIndexUpdates(
      index,
      new Map<string, IndexUpdate>([
        ['src/util/name.js', null],
        ['src/util', { oid, mode: 0o100644, stat: null }],
      ]),
    );
    // two new entries of one update that clash with each other, in either order, among others
    const entry = { oid, mode: 0o100644, stat: null };
    for (const order of [
      ['new/a', 'new', 'new/b/c'],
      ['new/b/c', 'other', 'new/b'],
    ]) {
      expect(() => validateIndexUpdates(index, new Map(order.map((p) => [p, entry])))).toThrow(/index update would hold both new/);
    }
    // a remaining file found below several new entries that share its directory
    expect(() =>
      validateIndexUpdates(
        index,
        new Map([
          ['README.md/a', entry],
          ['README.md/b', entry],
        ]),
      ),
    ).toThrow(/README\.md/);
    // fine once the clashing entries go in the same update
    const merged = renderIndex(
      index,
      new Map<string, IndexUpdate>([
        ['README.md', null],
        ['README.md/x', { oid, mode: 0o100644, stat: null }],
      ]),
    );
    expect([...parseIndex(merged, 'index', null, { verifyChecksum: true }).entries()].map((e) => e.path)).toContain('README.md/x');
  });

  it('writes after check() exactly what it writes without, and checks again when the paths differ', async () => {
    const repo = makeRepo('basic');
    const oid = writeBlob(repo, 'x\n');
    const entry = { oid, mode: 0o100644, stat: null };
    // checked without stat data, written with it, in another insertion order: as the transaction does
    const checked = new Map<string, IndexUpdate>([
      ['src/math.js', entry],
      ['README.md', null],
      ['new/z.txt', entry],
      ['a.txt', entry],
    ]);
    const stat = statSync(path.join(repo, 'src/math.js'), { bigint: true });
    const written = new Map<string, IndexUpdate>([...checked].reverse().map(([p, u]) => [p, u && { ...u, stat }]));
    const expected = renderIndex((await readIndex(repoAt(repo)))!, written);
    const lock = await lockIndex(repoAt(repo));
    lock.check(checked);
    await lock.write(written);
    expect(readFileSync(path.join(repo, '.git', 'index')).equals(expected)).toBe(true);
    expect(git(repo, 'ls-files', '-s', 'new/z.txt', 'README.md')).toBe(`100644 ${oid} 0\tnew/z.txt\n`);

    // a write of other paths than the checked ones gets the full checks: here a file/directory clash
    const again = await lockIndex(repoAt(repo));
    try {
      again.check(new Map([['src/x', entry]]));
      await expect(again.write(new Map([['src', entry]]))).rejects.toMatchObject({ kind: 'dirty' });
    } finally {
      await again.release();
    }
    // the same paths, but one removed where the check had it written: checked again too
    const third = await lockIndex(repoAt(repo));
    try {
      third.check(
        new Map<string, IndexUpdate>([
          ['src', null],
          ['src/math.js', entry],
        ]),
      );
      await expect(
        third.write(
          new Map<string, IndexUpdate>([
            ['src', entry],
            ['src/math.js', entry],
          ]),
        ),
      ).rejects.toThrow(/index update would hold both src\/math\.js and src/);
    } finally {
      await third.release();
    }
    expect(git(repo, 'fsck', '--no-progress')).toBe('');

    // the write really takes the checked order rather than sorting again: handed a list in the
    // wrong order (which check() never makes), it writes the entries in that order
    const index = (await readIndex(repoAt(repo)))!;
    const pair = new Map<string, IndexUpdate>([
      ['a1.txt', entry],
      ['z1.txt', entry],
    ]);
    const wrongOrder = ['z1.txt', 'a1.txt'].map((p) => ({ path: p, key: Buffer.from(p), update: entry }));
    const trusting = parseIndex(Buffer.concat(renderIndexPieces(index, pair, wrongOrder)));
    const paths = [...trusting.entries()].map((e) => e.path);
    expect(paths.indexOf('z1.txt')).toBeLessThan(paths.indexOf('a1.txt'));
    const sorting = [...parseIndex(renderIndex(index, pair)).entries()].map((e) => e.path);
    expect(sorting.indexOf('a1.txt')).toBeLessThan(sorting.indexOf('z1.txt'));
  });

  it('smudges untouched entries that were racily clean, so git still sees their edits', async () => {
    const repo = makeRepo('basic');
    const other = path.join(repo, 'docs/notes.txt');
    // record notes.txt and edit it again (same size) within the second the index was written
    let sameSecond = false;
    for (let attempt = 0; attempt < 3 && !sameSecond; attempt++) {
      await atStartOfSecond();
      writeFileSync(other, 'aaaa\n');
      git(repo, 'add', 'docs/notes.txt');
      writeFileSync(other, 'bbbb\n');
      const indexSecond = Math.floor(statSync(path.join(repo, '.git', 'index')).mtimeMs / 1000);
      sameSecond = indexSecond === Math.floor(statSync(other).mtimeMs / 1000);
    }
    expect(sameSecond).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await applyLikePatchtx(repo, [['src/math.js', 'changed\n']]);
    expect(status(repo)).toBe('MM docs/notes.txt\n');
  });

  it('leaves git status truthful when a written file is edited again within the same second', async () => {
    const repo = makeRepo('basic');
    let sameSecond = false;
    for (let attempt = 0; attempt < 3 && !sameSecond; attempt++) {
      git(repo, 'reset', '-q', '--hard');
      await atStartOfSecond();
      await applyLikePatchtx(repo, [['src/math.js', 'first\n']]);
      writeFileSync(path.join(repo, 'src/math.js'), 'other\n'); // same size, same inode
      const entry = (await readIndex(repoAt(repo)))!.find(['src/math.js']).get('src/math.js')![0]!;
      const indexSecond = Math.floor(statSync(path.join(repo, '.git', 'index')).mtimeMs / 1000);
      const fileSecond = Math.floor(statSync(path.join(repo, 'src/math.js')).mtimeMs / 1000);
      sameSecond = entry.mtimeSeconds === indexSecond && fileSecond === indexSecond;
    }
    expect(sameSecond).toBe(true);
    expect(status(repo)).toBe(' M src/math.js\n');
  });

  it('does not keep extensions that describe entry positions or untracked files', async () => {
    const repo = makeRepo('basic');
    git(repo, 'config', 'core.untrackedCache', 'true');
    git(repo, 'config', 'index.threads', '2');
    git(repo, 'config', 'index.recordOffsetTable', 'true');
    git(repo, 'config', 'index.recordEndOfIndexEntries', 'true');
    git(repo, 'update-index', '--untracked-cache');
    git(repo, 'status', '--porcelain');
    git(repo, 'update-index', '--force-write-index');
    const signatures = (await readIndex(repoAt(repo)))!.extensions.map((e) => e.signature);
    expect(signatures).toEqual(expect.arrayContaining(['UNTR', 'EOIE']));

    await applyLikePatchtx(repo, [['src/math.js', 'changed\n']]);
    expect((await readIndex(repoAt(repo)))!.extensions.map((e) => e.signature)).toEqual(['TREE']);
    writeFileSync(path.join(repo, 'untracked.txt'), 'u\n');
    expect(status(repo)).toBe('?? untracked.txt\n');
  });

  it('syncs 10 paths of a 20,000-entry index', async () => {
    const repo = makeRepo('empty');
    const blob = writeBlob(repo, 'same\n');
    const lines = Array.from({ length: 20_000 }, (_, i) => `100644 ${blob}\tdir${i % 100}/file${i}.txt\n`).join('');
    gitWith(repo, { input: lines }, 'update-index', '--index-info');
    const touched = Array.from({ length: 10 }, (_, i) => `dir${i * 7}/file${i * 1000 + i * 7}.txt`);
    const updates = new Map<string, IndexUpdate>(touched.map((p, i) => [p, i === 3 ? null : { oid: writeBlob(repo, `${p}\n`), mode: 0o100644, stat: null }]));
    updates.set('dir5/zzz-new.txt', { oid: blob, mode: 0o100755, stat: null });

    const lock = await lockIndex(repoAt(repo));
    lock.index!.find(touched);
    await lock.write(updates);

    expect(git(repo, 'ls-files').split('\n').filter(Boolean)).toHaveLength(20_000);
    const ls = git(repo, 'ls-files', '-s', ...touched, 'dir5/zzz-new.txt');
    for (const [p, u] of updates) {
      if (u) expect(ls).toContain(`${u.mode.toString(8)} ${u.oid} 0\t${p}\n`);
      else expect(ls).not.toContain(p);
    }
    git(repo, 'fsck', '--no-progress', '--no-dangling');
  });

  it('writes an index of about 3,000 pieces (1,500 updates between kept entries)', async () => {
    // every other entry changes, so the new index is about 3,000 pieces: kept runs, new entries
    const repo = makeRepo('empty');
    const blob = writeBlob(repo, 'same\n');
    const paths = Array.from({ length: 3_000 }, (_, i) => `d${i % 30}/f${String(i).padStart(4, '0')}.txt`);
    gitWith(repo, { input: paths.map((p) => `100644 ${blob}\t${p}\n`).join('') }, 'update-index', '--index-info');
    const other = writeBlob(repo, 'other\n');
    const changed = [...paths].sort().filter((_, i) => i % 2 === 1);
    const updates = new Map<string, IndexUpdate>(changed.map((p) => [p, { oid: other, mode: 0o100755, stat: null }]));
    const lock = await lockIndex(repoAt(repo));
    await lock.write(updates);
    const expected = [...paths].sort().map((p) => (updates.has(p) ? `100755 ${other} 0\t${p}` : `100644 ${blob} 0\t${p}`));
    expect(git(repo, 'ls-files', '-s').trim().split('\n')).toEqual(expected);
    expect(parseIndex(readFileSync(path.join(repo, '.git', 'index')), 'index', null, { verifyChecksum: true }).entryCount).toBe(3_000);
  });
});

describe('lockIndex', () => {
  it("fails with 'stale' and leaves another holder's lock alone", async () => {
    const repo = makeRepo('basic');
    const lockFile = path.join(repo, '.git', 'index.lock');
    writeFileSync(lockFile, 'held by someone else');
    chmodSync(lockFile, 0o600);
    const before = statSync(lockFile);
    const e = await lockIndex(repoAt(repo)).catch((err: unknown) => err);
    expect(isPatchtxError(e) && e.kind).toBe('stale');
    expect(isPatchtxError(e) && e.message).toContain(lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe('held by someone else');
    expect(statSync(lockFile).mtimeMs).toBe(before.mtimeMs);
  });

  it('is exclusive while held, and release leaves the index untouched', async () => {
    const repo = makeRepo('basic');
    const indexFile = path.join(repo, '.git', 'index');
    const bytes = readFileSync(indexFile);
    const lock = await lockIndex(repoAt(repo));
    expect(lock.index!.entryCount).toBe(9);
    await expect(lockIndex(repoAt(repo))).rejects.toMatchObject({ kind: 'stale' });
    expect(() => git(repo, 'add', 'README.md')).toThrow(/index\.lock/);
    await lock.release();
    await lock.release();
    expect(() => statSync(`${indexFile}.lock`)).toThrow();
    expect(readFileSync(indexFile).equals(bytes)).toBe(true);
    await expect(lock.write(new Map())).rejects.toMatchObject({ kind: 'internal' });
  });

  it('reads the index as it is once the lock is taken', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'new.txt'), 'n\n');
    git(repo, 'add', 'new.txt');
    const lock = await lockIndex(repoAt(repo));
    try {
      expect(lock.index!.has('new.txt')).toBe(true);
    } finally {
      await lock.release();
    }
  });

  it('rewrites an index without updates or racy entries byte for byte', async () => {
    const repo = makeRepo('packed');
    settle(repo);
    const indexFile = path.join(repo, '.git', 'index');
    const bytes = readFileSync(indexFile);
    await writeIndexUpdates(repo, new Map());
    expect(readFileSync(indexFile).equals(bytes)).toBe(true);
    expect(status(repo)).toBe('');
  });
});
