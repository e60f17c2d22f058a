// The working tree side: inspecting, writing and removing touched paths without ever going through
// a symbolic link, git's directory pruning, and git's way of telling whether a file changed.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPatchtxError, type PatchtxError } from '../../../src/errors.js';
import { statDataOf, type IndexEntry } from '../../../src/git/index/entry.js';
import { readIndex } from '../../../src/git/index/read.js';
import {
  inspectWorktreePath,
  readWorktreeFile,
  isWorktreeFileModified,
  removeWorktreeFile,
  writeWorktreeFile,
  writeWorktreeSymlink,
} from '../../../src/git/worktree/worktree.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { repoAt, settle } from '../index/support.js';

afterAll(cleanupRepos);

async function failure(promise: Promise<unknown>): Promise<PatchtxError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isPatchtxError(e)) throw new Error(`expected a PatchtxError, got ${String(e)}`);
  return e;
}

/** Every name under `dir`, recursively (symlinks not followed). */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort();
}

describe('inspectWorktreePath', () => {
  const repo = makeRepo('basic');

  it('tells files, executables, symlinks, directories and missing paths apart', async () => {
    expect(await inspectWorktreePath(repo, 'src/math.js')).toMatchObject({ kind: 'file', executable: false });
    expect(await readWorktreeFile(repo, 'src/math.js')).toEqual(readFileSync(path.join(repo, 'src/math.js')));
    expect(await inspectWorktreePath(repo, 'bin/run.sh')).toMatchObject({ kind: 'file', executable: true });
    expect(await inspectWorktreePath(repo, 'docs/src-link')).toMatchObject({ kind: 'symlink', target: '../src' });
    expect(await inspectWorktreePath(repo, 'src/util')).toMatchObject({ kind: 'dir' });
    expect(await inspectWorktreePath(repo, 'vendor/lib')).toMatchObject({ kind: 'dir' });
    expect(await inspectWorktreePath(repo, 'src/nope.js')).toEqual({ kind: 'missing' });
    expect(await inspectWorktreePath(repo, 'nope/deeper/x')).toEqual({ kind: 'missing' });
  });

  it('reports a symlink or a file among the leading directories as blocking', async () => {
    expect(await inspectWorktreePath(repo, 'docs/src-link/math.js')).toEqual({ kind: 'blocked', by: 'docs/src-link' });
    expect(await inspectWorktreePath(repo, 'README.md/x/y')).toEqual({ kind: 'blocked', by: 'README.md' });
  });

  it('never reads a FIFO', async () => {
    execFileSync('mkfifo', [path.join(repo, 'pipe')]);
    expect(await inspectWorktreePath(repo, 'pipe')).toMatchObject({ kind: 'other' });
  });

  it('refuses paths that leave the working tree or reach into .git', async () => {
    for (const p of ['../x', 'a/../../x', '.git/config', 'src/.GIT/x', '/etc/passwd', 'a//b', '']) {
      expect((await failure(inspectWorktreePath(repo, p))).kind).toBe('path_rejected');
    }
  });
});

describe('writeWorktreeFile', () => {
  it('creates leading directories and returns the lstat of the result', async () => {
    const repo = makeRepo('basic');
    const stat = await writeWorktreeFile(repo, 'new/deep/file.txt', Buffer.from('hello\n'), false);
    const file = path.join(repo, 'new/deep/file.txt');
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
    expect(Number(stat.ino)).toBe(lstatSync(file).ino);
    expect(Number(stat.size)).toBe(6);
    expect(stat.isFile()).toBe(true);
    expect(readdirSync(path.join(repo, 'new/deep'))).toEqual(['file.txt']); // no temp file left
  });

  it('replaces an existing file (never writing through it) and sets or clears the exec bit', async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, 'src/math.js');
    const before = readFileSync(file);
    // a hard link to the old file: a write through the old inode would show up there
    const link = path.join(repo, '..', `${path.basename(repo)}-math-link`);
    linkSync(file, link);
    const umask = process.umask();
    await writeWorktreeFile(repo, 'src/math.js', Buffer.from('x\n'), true);
    expect(readFileSync(file, 'utf8')).toBe('x\n');
    expect(readFileSync(link)).toEqual(before);
    rmSync(link);
    expect(statSync(file).mode & 0o777).toBe(0o777 & ~umask);
    await writeWorktreeFile(repo, 'bin/run.sh', Buffer.from('#!/bin/sh\n'), false);
    expect(statSync(path.join(repo, 'bin/run.sh')).mode & 0o777).toBe(0o666 & ~umask);
    expect(readdirSync(path.join(repo, 'src')).sort()).toEqual(['math.js', 'util']);
  });

  it('keeps the permissions of an existing file when core.fileMode is false', async () => {
    const repo = makeRepo('basic');
    chmodSync(path.join(repo, 'src/math.js'), 0o600);
    await writeWorktreeFile(repo, 'src/math.js', Buffer.from('x\n'), true, { trustExecutableBit: false });
    expect(statSync(path.join(repo, 'src/math.js')).mode & 0o777).toBe(0o600);
    await writeWorktreeFile(repo, 'src/fresh.sh', Buffer.from('x\n'), true, { trustExecutableBit: false });
    expect(statSync(path.join(repo, 'src/fresh.sh')).mode & 0o100).toBe(0o100);
  });

  it('replaces a symlink at the target instead of writing through it', async () => {
    const repo = makeRepo('basic');
    const before = listing(path.join(repo, 'src'));
    await writeWorktreeFile(repo, 'docs/src-link', Buffer.from('now a file\n'), false);
    expect(lstatSync(path.join(repo, 'docs/src-link')).isFile()).toBe(true);
    expect(listing(path.join(repo, 'src'))).toEqual(before);
  });

  it('refuses to write below a symlink, and writes nothing where it points', async () => {
    const repo = makeRepo('basic');
    const before = listing(path.join(repo, 'src'));
    const e = await failure(writeWorktreeFile(repo, 'docs/src-link/evil.js', Buffer.from('x'), false));
    expect(e.kind).toBe('path_rejected');
    expect(e.data).toMatchObject({ path: 'docs/src-link/evil.js', by: 'docs/src-link', reason: 'symlink_prefix' });
    const deeper = await failure(writeWorktreeFile(repo, 'docs/src-link/util/new/x.js', Buffer.from('x'), false));
    expect(deeper.kind).toBe('path_rejected');
    expect(listing(path.join(repo, 'src'))).toEqual(before);
    expect(existsSync(path.join(repo, 'src/evil.js'))).toBe(false);
  });

  it('refuses to write below a file, or onto a directory', async () => {
    const repo = makeRepo('basic');
    const e = await failure(writeWorktreeFile(repo, 'README.md/x.txt', Buffer.from('x'), false));
    expect(e.kind).toBe('path_rejected');
    expect(e.data).toMatchObject({ by: 'README.md', reason: 'file_prefix' });
    expect((await failure(writeWorktreeFile(repo, 'src/util', Buffer.from('x'), false))).kind).toBe('is_directory');
    expect(readdirSync(path.join(repo, 'src/util'))).toEqual(['name.js']);
  });

  it('writes and replaces symlinks', async () => {
    const repo = makeRepo('basic');
    const stat = await writeWorktreeSymlink(repo, 'docs/readme-link', '../README.md');
    expect(stat.isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(repo, 'docs/readme-link'))).toBe('../README.md');
    await writeWorktreeSymlink(repo, 'src/math.js', 'util/name.js');
    expect(readlinkSync(path.join(repo, 'src/math.js'))).toBe('util/name.js');
    expect(readFileSync(path.join(repo, 'src/util/name.js'), 'utf8')).toBe('export const name = "util";\n');
    expect((await failure(writeWorktreeSymlink(repo, 'docs/src-link/l', 'x'))).kind).toBe('path_rejected');
  });
});

describe('removeWorktreeFile', () => {
  it('removes a file and the directories it leaves empty, up to the first non-empty one', async () => {
    const repo = makeRepo('basic');
    mkdirSync(path.join(repo, 'a/b/c'), { recursive: true });
    writeFileSync(path.join(repo, 'a/keep.txt'), 'k');
    writeFileSync(path.join(repo, 'a/b/c/gone.txt'), 'g');
    expect(await removeWorktreeFile(repo, 'a/b/c/gone.txt')).toBe(true);
    expect(existsSync(path.join(repo, 'a/b'))).toBe(false);
    expect(readdirSync(path.join(repo, 'a'))).toEqual(['keep.txt']);
    expect(await removeWorktreeFile(repo, 'a/keep.txt')).toBe(true);
    expect(existsSync(path.join(repo, 'a'))).toBe(false);
    expect(existsSync(repo)).toBe(true);
    expect(await removeWorktreeFile(repo, 'src/util/name.js')).toBe(true);
    expect(existsSync(path.join(repo, 'src/util'))).toBe(false);
    expect(readdirSync(path.join(repo, 'src'))).toEqual(['math.js']);
  });

  it('removes a symlink itself, never what it points to', async () => {
    const repo = makeRepo('basic');
    expect(await removeWorktreeFile(repo, 'docs/src-link')).toBe(true);
    expect(existsSync(path.join(repo, 'docs/src-link'))).toBe(false);
    expect(readdirSync(path.join(repo, 'src')).sort()).toEqual(['math.js', 'util']);
  });

  it('refuses to remove through a symlinked directory', async () => {
    const repo = makeRepo('basic');
    const e = await failure(removeWorktreeFile(repo, 'docs/src-link/math.js'));
    expect(e.kind).toBe('path_rejected');
    expect(e.data.by).toBe('docs/src-link');
    expect(existsSync(path.join(repo, 'src/math.js'))).toBe(true);
  });

  it('reports missing paths and refuses directories', async () => {
    const repo = makeRepo('basic');
    expect(await removeWorktreeFile(repo, 'src/nope.js')).toBe(false);
    expect(await removeWorktreeFile(repo, 'nope/x.js')).toBe(false);
    expect(await removeWorktreeFile(repo, 'README.md/x')).toBe(false);
    expect((await failure(removeWorktreeFile(repo, 'src/util'))).kind).toBe('is_directory');
    expect(existsSync(path.join(repo, 'src/util/name.js'))).toBe(true);
  });
});

describe('isWorktreeFileModified', () => {
  async function entryOf(
    repo: string,
    p: string,
  ): Promise<{ entry: IndexEntry; options: { indexTimestamp: { seconds: number; nanoseconds: number } | null } }> {
    const index = (await readIndex(repoAt(repo)))!;
    return { entry: index.find([p]).get(p)![0]!, options: { indexTimestamp: index.timestamp } };
  }

  it('agrees with git status on edits, deletions, exec bits, symlinks and type changes', async () => {
    const repo = makeRepo('basic');
    settle(repo);
    const check = async (p: string, opts: { trustExecutableBit?: boolean } = {}): Promise<boolean> => {
      const { entry, options } = await entryOf(repo, p);
      return isWorktreeFileModified(repo, entry, undefined, { ...options, ...opts });
    };
    for (const p of ['README.md', 'bin/run.sh', 'docs/src-link', 'docs/blob.bin', 'vendor/lib']) expect(await check(p)).toBe(false);

    writeFileSync(path.join(repo, 'README.md'), 'different size\n');
    unlinkSync(path.join(repo, 'docs/notes.txt'));
    chmodSync(path.join(repo, 'bin/run.sh'), 0o644);
    unlinkSync(path.join(repo, 'docs/src-link'));
    symlinkSync('../bin', path.join(repo, 'docs/src-link'));
    unlinkSync(path.join(repo, 'src/math.js'));
    mkdirSync(path.join(repo, 'src/math.js'));
    // touched but identical: stat differs, content does not
    const crlf = path.join(repo, 'docs/crlf.txt');
    writeFileSync(crlf, readFileSync(crlf));

    expect(await check('README.md')).toBe(true);
    expect(await check('docs/notes.txt')).toBe(true);
    expect(await check('bin/run.sh')).toBe(true);
    expect(await check('bin/run.sh', { trustExecutableBit: false })).toBe(false);
    expect(await check('docs/src-link')).toBe(true);
    expect(await check('src/math.js')).toBe(true);
    expect(await check('docs/crlf.txt')).toBe(false);
    const changed = git(repo, 'status', '--porcelain')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3))
      .sort();
    expect(changed).toEqual(['README.md', 'bin/run.sh', 'docs/notes.txt', 'docs/src-link', 'src/math.js']);
  });

  it('treats a path whose leading directory became a symlink as deleted', async () => {
    const repo = makeRepo('basic');
    const { entry, options } = await entryOf(repo, 'src/util/name.js');
    execFileSync('mv', [path.join(repo, 'src/util'), path.join(repo, 'util-moved')]);
    symlinkSync('../util-moved', path.join(repo, 'src/util'));
    expect(await isWorktreeFileModified(repo, entry, undefined, options)).toBe(true);
  });

  it('a FIFO that replaced a file after its stat is a change, and is never read', async () => {
    // opening a FIFO for reading would wait for a writer forever; the file counts as changed
    const repo = makeRepo('basic');
    const file = path.join(repo, 'src/math.js');
    const stat = lstatSync(file, { bigint: true });
    const { entry } = await entryOf(repo, 'src/math.js');
    const racy: IndexEntry = { ...entry, ...statDataOf(stat) }; // forces a read of the content
    unlinkSync(file);
    execFileSync('mkfifo', [file]);
    expect(await isWorktreeFileModified(repo, racy, stat, { indexTimestamp: { seconds: racy.mtimeSeconds, nanoseconds: 0 } })).toBe(true);
    await expect(readWorktreeFile(repo, 'src/math.js')).rejects.toMatchObject({ code: 'ENOTREG' });
  });

  it('trusts matching stat data unless the entry is racily clean', async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, 'src/math.js');
    writeFileSync(file, 'export function add(a, b) {\n  return b + a;\n}\n'); // same size, new content
    const stat = lstatSync(file, { bigint: true });
    const { entry } = await entryOf(repo, 'src/math.js');
    // an entry whose stat data matches the file exactly but whose content is the old one: what a
    // same-second edit after `git add` leaves behind
    const racy: IndexEntry = { ...entry, ...statDataOf(stat) };
    const recordedAt = { seconds: racy.mtimeSeconds, nanoseconds: 0 };
    const longAfter = { seconds: racy.mtimeSeconds + 10, nanoseconds: 0 };
    expect(await isWorktreeFileModified(repo, racy, stat, { indexTimestamp: recordedAt })).toBe(true);
    // not racy: stat data alone decides, without reading the file
    expect(await isWorktreeFileModified(repo, racy, stat, { indexTimestamp: longAfter })).toBe(false);
    // and an entry smudged to size 0 is never trusted for a non-empty blob
    writeFileSync(file, '');
    const empty = lstatSync(file, { bigint: true });
    const smudged: IndexEntry = { ...entry, ...statDataOf(empty), size: 0 };
    expect(await isWorktreeFileModified(repo, smudged, empty, { indexTimestamp: longAfter })).toBe(true);
  });

  it("hands over the bytes it read only when they are the entry's blob", async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, 'src/math.js');
    const stat = lstatSync(file, { bigint: true });
    const { entry } = await entryOf(repo, 'src/math.js');
    const racy: IndexEntry = { ...entry, ...statDataOf(stat) };
    const recordedAt = { seconds: racy.mtimeSeconds, nanoseconds: 0 };
    const handed: Buffer[] = [];
    const unchanged = (bytes: Buffer): number => handed.push(bytes);
    expect(await isWorktreeFileModified(repo, racy, stat, { indexTimestamp: recordedAt, unchanged })).toBe(false);
    expect(handed.map((b) => b.toString())).toEqual([readFileSync(file, 'utf8')]);
    // stat data alone decided: nothing read, nothing handed over
    const longAfter = { seconds: racy.mtimeSeconds + 10, nanoseconds: 0 };
    expect(await isWorktreeFileModified(repo, racy, stat, { indexTimestamp: longAfter, unchanged })).toBe(false);
    expect(handed).toHaveLength(1);
    // read, but not the entry's blob
    writeFileSync(file, 'export function add(a, b) {\n  return b + a;\n}\n');
    const edited = lstatSync(file, { bigint: true });
    const stale: IndexEntry = { ...entry, ...statDataOf(edited) };
    expect(await isWorktreeFileModified(repo, stale, edited, { indexTimestamp: { seconds: stale.mtimeSeconds, nanoseconds: 0 }, unchanged })).toBe(true);
    expect(handed).toHaveLength(1);
  });

  it('compares a symlink entry with a plain file when core.symlinks is false', async () => {
    const repo = makeRepo('basic');
    const { entry, options } = await entryOf(repo, 'docs/src-link');
    unlinkSync(path.join(repo, 'docs/src-link'));
    writeFileSync(path.join(repo, 'docs/src-link'), '../src');
    expect(await isWorktreeFileModified(repo, entry, undefined, { ...options, symlinks: false })).toBe(false);
    expect(await isWorktreeFileModified(repo, entry, undefined, options)).toBe(true);
  });

  it('sees a same-second edit after git add, as git status does', async () => {
    const repo = makeRepo('basic');
    const file = path.join(repo, 'docs/notes.txt');
    writeFileSync(file, 'aaaa\n');
    git(repo, 'add', 'docs/notes.txt');
    writeFileSync(file, 'bbbb\n');
    const { entry, options } = await entryOf(repo, 'docs/notes.txt');
    expect(await isWorktreeFileModified(repo, entry, undefined, options)).toBe(true);
    expect(git(repo, 'status', '--porcelain')).toBe('MM docs/notes.txt\n');
  });
});
