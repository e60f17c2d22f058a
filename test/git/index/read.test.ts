// Reading the index: every entry of the fixture indexes must match what the real git CLI reports
// (`git ls-files -s --debug`), for loose and packed repositories, a linked worktree's own index,
// version 3 (extended flags), conflict stages and very long paths; unsupported formats are refused.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPatchtxError, type PatchtxError } from '../../../src/errors.js';
import { parseIndex, type GitIndex } from '../../../src/git/index/format.js';
import { readIndex } from '../../../src/git/index/read.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { conflictOn, lsFilesDebug, repoAt, writeBlob } from './support.js';

afterAll(cleanupRepos);

function expectSameAsGit(index: GitIndex, cwd: string): void {
  const fromGit = lsFilesDebug(cwd);
  const ours = [...index.entries()];
  expect(ours.length).toBe(fromGit.length);
  expect(index.entryCount).toBe(fromGit.length);
  ours.forEach((e, i) => {
    const g = fromGit[i]!;
    expect({ ...e, flags: (e.flags & ~0xfff) | (e.extendedFlags << 16), extendedFlags: undefined }).toEqual({
      ...g,
      extendedFlags: undefined,
    });
  });
}

async function readError(promise: Promise<unknown>): Promise<PatchtxError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isPatchtxError(e)) throw new Error(`expected a PatchtxError, got ${String(e)}`);
  return e;
}

describe('readIndex', () => {
  it.each(['basic', 'packed'] as const)('reads every entry of the %s fixture as git does', async (kind) => {
    const repo = makeRepo(kind);
    const index = (await readIndex(repoAt(repo)))!;
    expect(index.version).toBe(2);
    expectSameAsGit(index, repo);
    expect(index.extensions.map((e) => e.signature)).toContain('TREE');
    expect(index.timestamp!.seconds).toBeGreaterThan(0);
  });

  it("reads a linked worktree's own index", async () => {
    const repo = makeRepo('worktree');
    const wt = `${repo}-wt`;
    // make the worktree's index differ from the main one
    writeFileSync(path.join(wt, 'feature.txt'), 'only in the worktree\n');
    git(wt, 'add', 'feature.txt');
    const gitdir = path.join(repo, '.git', 'worktrees', path.basename(wt));
    const index = (await readIndex({ gitdir, commonDir: path.join(repo, '.git'), workdir: wt }))!;
    expectSameAsGit(index, wt);
    expect(index.find(['feature.txt']).get('feature.txt')).toHaveLength(1);
    expect((await readIndex(repoAt(repo)))!.find(['feature.txt']).get('feature.txt')).toEqual([]);
  });

  it('returns null when there is no index file', async () => {
    expect(await readIndex({ gitdir: makeRepo('bare'), commonDir: '', workdir: null })).toBeNull();
  });

  it('finds where a key goes from any earlier position as a search of the whole index does', async () => {
    const repo = makeRepo('basic');
    const index = (await readIndex(repoAt(repo)))!;
    const names = [...index.entries()].map((e) => e.path);
    // every entry's own path, and keys that fall before, between and after them
    const keys = [...names, '', '0', 'bin', 'docs/z', 'src/', 'src/math.js.orig', '~'].map((k) => Buffer.from(k));
    let compared = 0;
    for (const key of keys) {
      const expected = index.lowerBound(key);
      for (let from = 0; from <= expected; from++) {
        expect(index.lowerBoundFrom(key, from)).toBe(expected);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(names.length);
  });

  it('finds paths (all stages) and directories by byte order', async () => {
    const repo = makeRepo('basic');
    const index = (await readIndex(repoAt(repo)))!;
    const found = index.find(['src/math.js', 'bin/run.sh', 'docs/src-link', 'vendor/lib', 'nope', 'src']);
    expect(found.get('src/math.js')![0]).toMatchObject({ mode: 0o100644, stage: 0 });
    expect(found.get('bin/run.sh')![0]!.mode).toBe(0o100755);
    expect(found.get('docs/src-link')![0]).toMatchObject({ mode: 0o120000, size: 6 });
    expect(found.get('vendor/lib')![0]).toMatchObject({ mode: 0o160000, oid: '1'.repeat(40) });
    expect(found.get('nope')).toEqual([]);
    expect(found.get('src')).toEqual([]);
    expect(index.entriesUnder('src').map((e) => e.path)).toEqual(['src/math.js', 'src/util/name.js']);
    expect(index.entriesUnder('src/').map((e) => e.path)).toEqual(['src/math.js', 'src/util/name.js']);
    expect(index.entriesUnder('docs').map((e) => e.path)).toEqual(['docs/blob.bin', 'docs/crlf.txt', 'docs/notes.txt', 'docs/src-link']);
    expect(index.entriesUnder('doc')).toEqual([]);
    expect(index.entriesUnder('').length).toBe(index.entryCount);
    expect(index.has('README.md')).toBe(true);
    expect(index.has('README')).toBe(false);
  });

  it('reads version 3 (intent-to-add, skip-worktree) entries', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'later.txt'), 'later\n');
    git(repo, 'add', '-N', 'later.txt');
    git(repo, 'update-index', '--skip-worktree', 'docs/notes.txt');
    const index = (await readIndex(repoAt(repo)))!;
    expect(index.version).toBe(3);
    expectSameAsGit(index, repo);
    expect(index.find(['later.txt']).get('later.txt')![0]!.extendedFlags).toBe(0x2000);
    expect(index.find(['docs/notes.txt']).get('docs/notes.txt')![0]!.extendedFlags).toBe(0x4000);
  });

  it('reads conflict stages', async () => {
    const repo = makeRepo('basic');
    conflictOn(repo, 'src/math.js');
    const index = (await readIndex(repoAt(repo)))!;
    expectSameAsGit(index, repo);
    expect(
      index
        .find(['src/math.js'])
        .get('src/math.js')!
        .map((e) => e.stage),
    ).toEqual([1, 2, 3]);
  });

  it('reads paths of 0xfff bytes and longer', async () => {
    const repo = makeRepo('basic');
    const oid = writeBlob(repo, 'deep\n');
    const long = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(220, 'x')).join('/');
    const exact = `z/${'y'.repeat(0xfff - 2)}`;
    git(repo, 'update-index', '--add', '--cacheinfo', `100644,${oid},${long}`);
    git(repo, 'update-index', '--add', '--cacheinfo', `100644,${oid},${exact}`);
    const index = (await readIndex(repoAt(repo)))!;
    expectSameAsGit(index, repo);
    expect(index.find([long, exact, 'src/math.js']).get(long)![0]!.path).toBe(long);
    expect(index.find([exact]).get(exact)![0]!.path).toBe(exact);
    expect(index.find(['src/math.js']).get('src/math.js')).toHaveLength(1);
  });

  it('finds every path, and no other, whatever its bytes sort next to', async () => {
    // neighbours in byte order: prefixes, '-' '.' '/' (0x2d 0x2e 0x2f), upper before lower case,
    // multi-byte UTF-8 (bytes above 0x7f sort last), and names that are prefixes of directories
    const repo = makeRepo('basic');
    const oid = writeBlob(repo, 'x\n');
    const names = ['a-b', 'a.b', 'a/b', 'a/c/d', 'a0', 'B', 'b', 'é', 'e\u0301', 'z/é/ü', 'zz', '\u{1F600}', '\uFFFD'];
    for (const n of names) git(repo, 'update-index', '--add', '--cacheinfo', `100644,${oid},${n}`);
    const index = (await readIndex(repoAt(repo)))!;
    expectSameAsGit(index, repo);
    const tracked = [...index.entries()].map((e) => e.path);
    const absent = ['', 'a', 'a/', 'a-', 'a/b/', 'a/c', 'A', 'é/', 'z', 'z/é', '\u{1F601}', '~'];
    const found = index.find([...tracked, ...absent]);
    for (const p of tracked) expect(found.get(p)!.map((e) => e.path)).toEqual([p]);
    for (const p of absent) expect({ p, found: found.get(p) }).toEqual({ p, found: [] });
    for (const p of tracked) expect(index.has(p)).toBe(true);
    for (const p of absent) expect(index.has(p)).toBe(false);
    expect(index.entriesUnder('a').map((e) => e.path)).toEqual(['a/b', 'a/c/d']);
    expect(index.entriesUnder('z/é').map((e) => e.path)).toEqual(['z/é/ü']);
  });

  it('refuses index version 4', async () => {
    const repo = makeRepo('basic');
    git(repo, 'update-index', '--index-version', '4');
    const e = await readError(readIndex(repoAt(repo)));
    expect(e.kind).toBe('unsupported_repository');
    expect(e.data.feature).toBe('index-v4');
    expect(e.message).toMatch(/version 4/);
  });

  it('refuses a split index', async () => {
    const repo = makeRepo('basic');
    git(repo, 'update-index', '--split-index');
    const e = await readError(readIndex(repoAt(repo)));
    expect(e.kind).toBe('unsupported_repository');
    expect(e.data.feature).toBe('split-index');
    expect(e.message).toMatch(/split index/);
  });

  it('refuses a sparse index', async () => {
    const repo = makeRepo('basic');
    git(repo, 'sparse-checkout', 'set', '--cone', '--sparse-index', 'src');
    const e = await readError(readIndex(repoAt(repo)));
    expect(e.kind).toBe('unsupported_repository');
    expect(e.data.feature).toBe('sparse-index');
  });

  it('reads an index whose checksum does not match, as git does; verifying it refuses the index', async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, '.git', 'index');
    const bytes = readFileSync(file);
    bytes[20] = bytes[20]! ^ 1; // inside the first entry's stat data
    writeFileSync(file, bytes);
    // git reads it too (it verifies the checksum only in fsck)
    expect(git(repo, 'ls-files', '-s')).toContain('src/math.js');
    expect((await readIndex(repoAt(repo)))!.entryCount).toBeGreaterThan(0);
    let e: unknown;
    try {
      parseIndex(bytes, file, null, { verifyChecksum: true });
    } catch (caught) {
      e = caught;
    }
    expect(isPatchtxError(e) && e.kind).toBe('unsupported_repository');
    expect((e as PatchtxError).data.reason).toBe('corrupt_index');
  });

  it('refuses a damaged index, naming the entry that is wrong', () => {
    const repo = makeRepo('basic');
    const good = readFileSync(path.join(repo, '.git', 'index'));
    const index = parseIndex(good);
    expect(index.version).toBe(2);
    const at = (i: number) => index.entryOffset(i);
    const damaged = (change: (b: Buffer) => Buffer) => {
      try {
        parseIndex(change(Buffer.from(good)));
      } catch (e) {
        expect(isPatchtxError(e) && (e as PatchtxError).data.reason).toBe('corrupt_index');
        return (e as Error).message;
      }
      return 'parsed';
    };
    const flags = (i: number, value: number) => (b: Buffer) => (b.writeUInt16BE(value, at(i) + 60), b);
    // entry 1's name loses its NUL: the name runs into the padding
    expect(damaged((b) => (b.fill(0x78, at(1) + 62, at(2)), b))).toMatch(/entry 1 is malformed/);
    // extended flags (version 3 only) in a version 2 index
    expect(damaged(flags(0, 0x4000 | (good.readUInt16BE(at(0) + 60) & 0xfff)))).toMatch(/entry 0 has extended flags in a version 2 index/);
    // a name of 0xfff bytes or more whose end is never found
    expect(damaged((b) => (flags(2, 0xfff)(b), b.fill(0x78, at(2) + 62), b))).toMatch(/entry 2 has an unterminated path/);
    // a name length that runs past the end of the entries
    expect(damaged(flags(index.entryCount - 1, 0xffe))).toMatch(new RegExp(`entry ${index.entryCount - 1} is malformed`));
    // the file ends inside entry 3 (the count says 4, which the remaining bytes could hold)
    const cut = (b: Buffer) => (b.writeUInt32BE(4, 8), Buffer.concat([b.subarray(0, at(3) + 40), Buffer.alloc(20)]));
    expect(damaged(cut)).toMatch(/entry 3 is truncated/);
    expect(damaged((b) => (b.writeUInt32BE(index.entryCount + 1000, 8), b))).toMatch(/does not fit/);
  });

  it('accepts the zero trailer of index.skipHash', async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, '.git', 'index');
    const bytes = readFileSync(file);
    bytes.fill(0, bytes.length - 20);
    writeFileSync(file, bytes);
    expectSameAsGit((await readIndex(repoAt(repo)))!, repo);
  });

  it('finds racy entries while parsing exactly where isRacyEntry says so', async () => {
    // entries of every kind the racy rule exempts: a gitlink, an empty file (size 0),
    // assume-valid and skip-worktree (extended flags, version 3), and ordinary files
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'empty.txt'), '');
    git(repo, 'add', 'empty.txt');
    git(repo, 'update-index', '--assume-unchanged', 'src/math.js');
    git(repo, 'update-index', '--skip-worktree', 'README.md');
    const file = path.join(repo, '.git', 'index');
    const bytes = readFileSync(file);
    const entries = [...parseIndex(bytes, file, null).entries()];
    expect(entries.some((e) => e.mode === 0o160000)).toBe(true);
    expect(entries.some((e) => e.size === 0)).toBe(true);
    const seconds = [...new Set(entries.map((e) => e.mtimeSeconds))].sort((a, b) => a - b);
    // every cut-off second at which the racy set changes, and one past them all
    for (const cut of [0, ...seconds, seconds.at(-1)! + 1]) {
      const index = parseIndex(bytes, file, { seconds: cut, nanoseconds: 0 });
      const expected = entries.map((_, i) => i).filter((i) => index.isRacyEntry(i));
      expect(index.racyEntries).toEqual(expected);
      const exempt = (i: number) => {
        const e = entries[i]!;
        return e.mode === 0o160000 || e.size === 0 || (e.flags & 0x8000) !== 0 || (e.extendedFlags & 0x4000) !== 0;
      };
      expect(expected).toEqual(entries.map((_, i) => i).filter((i) => entries[i]!.mtimeSeconds >= cut && !exempt(i)));
    }
    expect(parseIndex(bytes, file, { seconds: 0, nanoseconds: 0 }).racyEntries.length).toBeGreaterThan(0);
    expect(parseIndex(bytes, file, null).racyEntries).toEqual([]);
  });
});
