// A repository kept between commands keeps the index a transaction wrote (IndexCache.keepWritten)
// instead of reading and parsing that file again. What it keeps must be exactly what a read of
// the written file gives: the same bytes, entry positions, extensions, timestamp and racy entries
// (git's racily-clean rule depends on the last two), and the next read must return it only while
// the file is the one written. The file itself (written from one buffer when kept, from the
// pieces otherwise) must be byte for byte what renderIndex gives.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { timestampOfNs } from '../../../src/git/index/entry.js';
import { parseIndex, renderIndex, type GitIndex } from '../../../src/git/index/format.js';
import { lockIndex } from '../../../src/git/index/lock.js';
import { IndexCache, readIndex } from '../../../src/git/index/read.js';
import type { IndexUpdate } from '../../../src/git/index/updates.js';
import type { Repository } from '../../../src/git/repo/repository.js';
import { writeWorktreeFile } from '../../../src/git/worktree/worktree.js';
import { cleanupRepos, git, gitWith, makeRepo } from '../../helpers/repos.js';
import { atStartOfSecond, lsFilesDebug, repoAt, settle, version3Index, writeBlob } from './support.js';

afterAll(cleanupRepos);

type Kept = Repository & { indexCache: IndexCache };

const keptRepo = (dir: string): Kept => ({ ...repoAt(dir), indexCache: new IndexCache() });

/** Writes the files and returns the index updates for them, as a transaction makes them. */
async function writeFiles(repo: Repository, files: Array<[path: string, content: string | null]>): Promise<Map<string, IndexUpdate>> {
  const updates = new Map<string, IndexUpdate>();
  for (const [p, content] of files) {
    if (content === null) {
      rmSync(path.join(repo.workdir!, p));
      updates.set(p, null);
      continue;
    }
    const stat = await writeWorktreeFile(repo.workdir!, p, Buffer.from(content), false);
    updates.set(p, { oid: writeBlob(repo.workdir!, content), mode: 0o100644, stat });
  }
  return updates;
}

async function writeIndex(repo: Repository, updates: Map<string, IndexUpdate>): Promise<void> {
  const lock = await lockIndex(repo);
  try {
    await lock.write(updates);
  } finally {
    await lock.release();
  }
}

/**
 * Writes the files and the index entries for them, as a transaction does; returns what was kept,
 * made once the write has returned (as between two commands), or at once when `now`.
 */
async function writeKept(repo: Kept, files: Array<[path: string, content: string | null]>, { now = false } = {}): Promise<GitIndex> {
  const updates = await writeFiles(repo, files);
  const lock = await lockIndex(repo);
  try {
    await lock.write(updates);
  } finally {
    await lock.release();
  }
  if (!now) await new Promise((resolve) => setImmediate(resolve));
  const kept = repo.indexCache.kept;
  expect(kept).not.toBeNull();
  return kept!;
}

/** The kept index against a parse of the file as readIndex parses it, field by field. */
function expectAsParsed(kept: GitIndex, dir: string): GitIndex {
  const file = path.join(dir, '.git', 'index');
  const bytes = readFileSync(file);
  const parsed = parseIndex(bytes, file, timestampOfNs(statSync(file, { bigint: true }).mtimeNs), { verifyChecksum: true });
  expect(kept.bytes.equals(bytes)).toBe(true);
  expect(kept.version).toBe(parsed.version);
  expect(kept.timestamp).toEqual(parsed.timestamp);
  expect(kept.entryCount).toBe(parsed.entryCount);
  const offsets = (index: GitIndex): number[] => Array.from({ length: index.entryCount + 1 }, (_, i) => index.entryOffset(i));
  expect(offsets(kept)).toEqual(offsets(parsed));
  expect(kept.extensions).toEqual(parsed.extensions);
  expect(kept.racyEntries).toEqual(parsed.racyEntries);
  expect([...kept.entries()]).toEqual([...parsed.entries()]);
  return parsed;
}

describe('the index a transaction wrote, kept between commands', () => {
  it('is what a read of the written file gives, racy entries included, and is what the next read returns', async () => {
    const dir = makeRepo('basic');
    const repo = keptRepo(dir);
    await atStartOfSecond();
    // written within the second the index is: racily clean in the new index
    const first = await writeKept(repo, [
      ['src/math.js', 'changed\n'],
      ['new/dir/added.txt', 'added\n'],
      ['docs/notes.txt', null],
    ]);
    const parsed = expectAsParsed(first, dir);
    expect(parsed.racyEntries.length).toBeGreaterThan(0);
    expect(first.extensions.map((e) => e.signature)).toEqual(['TREE']);
    expect(await readIndex(repo)).toBe(first);

    // the next write starts from the kept index (smudging what was racy) and is kept in turn
    const second = await writeKept(repo, [['README.md', 'readme again\n']], { now: true });
    expectAsParsed(second, dir);
    expect(await readIndex(repo)).toBe(second);
    expect(lsFilesDebug(dir).map((e) => [e.path, e.oid, e.size])).toEqual([...second.entries()].map((e) => [e.path, e.oid, e.size]));
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
    expect(git(dir, 'status', '--porcelain')).toBe('M  README.md\nD  docs/notes.txt\nA  new/dir/added.txt\nM  src/math.js\n');
  });

  it('is what a read gives for version 3 entries, conflicts resolved, resolve-undo and a long path', async () => {
    const dir = makeRepo('basic');
    const long = `${'d'.repeat(200)}/${'n'.repeat(4200)}`;
    version3Index(dir, long);
    const repo = keptRepo(dir);
    const before = (await readIndex(repo))!;
    expect(before.version).toBe(3);
    expect(before.extensions.map((e) => e.signature)).toContain('REUC');

    const kept = await writeKept(repo, [
      ['src/math.js', 'changed\n'],
      ['a-first.txt', 'sorts first\n'],
      ['zz/last.txt', 'sorts last\n'],
    ]);
    expectAsParsed(kept, dir);
    expect(kept.extensions.map((e) => e.signature)).toContain('REUC');
    expect(kept.has(long)).toBe(true);
    expect(git(dir, 'ls-files', '-s', 'README.md')).toMatch(/^100644 [0-9a-f]{40} 0\tREADME\.md\n$/);
    git(dir, 'checkout', '-m', 'README.md'); // the resolve-undo record brings the conflict back
    expect(git(dir, 'ls-files', '-s', 'README.md').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('is what a read gives for an index without a cache tree, stamped later than the new one (a clock set back)', async () => {
    const dir = makeRepo('basic');
    rmSync(path.join(dir, '.git', 'index'));
    gitWith(dir, { input: git(dir, 'ls-tree', '-r', 'HEAD') }, 'update-index', '--index-info');
    settle(dir);
    // README.md recorded with a later mtime than the new index will have, an earlier one than the old
    const tomorrow = new Date(Date.now() + 86_400_000);
    utimesSync(path.join(dir, 'README.md'), tomorrow, tomorrow);
    git(dir, 'update-index', '-q', '--refresh');
    const later = new Date(Date.now() + 3 * 86_400_000);
    utimesSync(path.join(dir, '.git', 'index'), later, later);
    const before = (await readIndex(repoAt(dir)))!;
    expect(before.extensions).toEqual([]);
    expect(before.racyEntries).toEqual([]);

    const kept = await writeKept(keptRepo(dir), [['src/math.js', 'changed\n']]);
    const parsed = expectAsParsed(kept, dir);
    expect(kept.timestamp!.seconds).toBeLessThan(Math.floor(later.getTime() / 1000));
    expect(parsed.racyEntries.map((i) => parsed.entryAt(i).path)).toEqual(['README.md', 'src/math.js']);
  });

  it('is not returned once the file changed: git add, git reset, an index written by another process', async () => {
    const dir = makeRepo('basic');
    const repo = keptRepo(dir);
    const kept = await writeKept(repo, [['src/math.js', 'changed\n']]);
    expect(await readIndex(repo)).toBe(kept);

    writeFileSync(path.join(dir, 'README.md'), 'staged\n');
    git(dir, 'add', 'README.md');
    const afterAdd = (await readIndex(repo))!;
    expect(afterAdd).not.toBe(kept);
    expect(afterAdd.find(['README.md']).get('README.md')![0]!.oid).toBe(writeBlob(dir, 'staged\n'));

    git(dir, 'reset', '-q');
    const afterReset = (await readIndex(repo))!;
    expect(afterReset).not.toBe(afterAdd);
    expect(afterReset.find(['src/math.js']).get('src/math.js')![0]!.oid).toBe(git(dir, 'rev-parse', 'HEAD:src/math.js').trim());

    // another writer of the same index (a second repository object stands for another process)
    const again = await writeKept(repo, [['src/math.js', 'changed once more\n']]);
    await writeKept(keptRepo(dir), [['src/math.js', 'changed by another\n']]);
    const seen = (await readIndex(repo))!;
    expect(seen).not.toBe(again);
    expect(seen.find(['src/math.js']).get('src/math.js')![0]!.oid).toBe(writeBlob(dir, 'changed by another\n'));
  });

  // indexes as git writes them: after `git add` (with a cache tree), built without one, and
  // version 3 with resolve-undo and a path of more than 0xfff bytes (version 4 is refused on read)
  const setups: Array<[name: string, make: (dir: string) => void]> = [
    [
      'git add, cache tree',
      (dir) => {
        writeFileSync(path.join(dir, 'docs/notes.txt'), 'staged notes\n');
        git(dir, 'add', 'docs/notes.txt');
        git(dir, 'write-tree');
      },
    ],
    [
      'no cache tree',
      (dir) => {
        rmSync(path.join(dir, '.git', 'index'));
        gitWith(dir, { input: git(dir, 'ls-tree', '-r', 'HEAD') }, 'update-index', '--index-info');
      },
    ],
    ['version 3, resolve-undo, long path', (dir) => version3Index(dir, `${'p'.repeat(90)}/${'q'.repeat(4100)}`)],
  ];

  it.each(setups)('writes what renderIndex renders, kept or not: %s', async (_name, make) => {
    const signatures = new Set<string>();
    for (const kept of [false, true]) {
      const dir = makeRepo('basic');
      make(dir);
      const repo = kept ? keptRepo(dir) : repoAt(dir);
      const updates = await writeFiles(repo, [
        ['src/math.js', 'changed\n'],
        ['a/new/first.txt', 'first\n'],
        ['zz/last.txt', 'last\n'],
        ['bin/run.sh', null],
      ]);
      const before = (await readIndex(repoAt(dir)))!;
      for (const e of before.extensions) signatures.add(e.signature);
      const expected = renderIndex(before, updates);
      await writeIndex(repo, updates);
      const file = path.join(dir, '.git', 'index');
      expect(readFileSync(file).equals(expected)).toBe(true);
      if (kept) expectAsParsed((repo as Kept).indexCache.kept!, dir);
      parseIndex(readFileSync(file), file, null, { verifyChecksum: true });
      expect(lsFilesDebug(dir).map((e) => e.path)).toEqual([...parseIndex(expected).entries()].map((e) => e.path));
      expect(git(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
      expect(git(dir, 'diff', '--cached', '--name-only', 'HEAD', '--', 'src/math.js', 'a', 'zz', 'bin')).toBe(
        'a/new/first.txt\nbin/run.sh\nsrc/math.js\nzz/last.txt\n',
      );
      expect(git(dir, 'diff-files', '--name-only', '--', 'src/math.js', 'a', 'zz')).toBe('');
    }
    expect([...signatures].length > 0).toBe(_name !== 'no cache tree');
  });
});
