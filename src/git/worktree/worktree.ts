// Reading and writing files of the working tree for the paths a patch touches, and nothing else.
// Paths are repo-relative with `/`. Nothing is ever written or deleted through a symbolic link:
// each leading directory is lstat'ed, a symlink (or a file) there stops us, and a symlink at the
// target itself is replaced, never followed. (Between the check and the write another process
// could still swap a directory for a symlink; Node has no openat() to close that window.)
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  statfsSync,
  writeSync,
  open as openWithCallback,
  promises as pooledFs,
  write as writeWithCallback,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { promisify } from 'node:util';
import { chmod, lstat, readKnownSizeSync, readlink, rename, rmdir, statData, symlink, unlink, unlinkIfThereSync } from '../fs/fsx.js';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { fsError } from '../fs/io-error.js';
import { hashBlob } from '../objects/hash.js';
import { MODE_EXECUTABLE, MODE_GITLINK, MODE_SYMLINK, isRacilyClean, statDataOf, type IndexEntry, type Timestamp } from '../index/entry.js';

export type WorktreePathState =
  /** the content is not read here (most callers need only the stat): see readWorktreeFile */
  | { kind: 'file'; executable: boolean; stat: BigIntStats }
  | { kind: 'symlink'; target: string; stat: BigIntStats }
  | { kind: 'dir'; stat: BigIntStats }
  | { kind: 'missing' }
  /** a leading directory of the path is a symlink or not a directory: `by` is that prefix */
  | { kind: 'blocked'; by: string }
  /** a FIFO, socket or device: never read, never replaced */
  | { kind: 'other'; stat: BigIntStats };

const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/** The components of a repo-relative path; anything that could leave the working tree or reach
 * into .git is refused here too, whatever the callers checked before. */
function componentsOf(repoPath: string): string[] {
  const parts = repoPath.split('/');
  const bad = parts.find((c) => c === '' || c === '.' || c === '..' || (c.length === 4 && c.toLowerCase() === '.git') || c.includes('\0'));
  if (bad !== undefined || repoPath.includes('\\')) {
    throw new PatchtxError('path_rejected', `not a usable working tree path: ${JSON.stringify(repoPath)}`, { path: repoPath });
  }
  return parts;
}

let lastWorkdir = '';
let lastBase = '';

/**
 * `workdir/parts[0]/.../parts[count - 1]`. The parts come from componentsOf, so only the working
 * tree root needs normalising, once: path.join normalises the whole string at every call, and its
 * cost showed in profiles (about 9 ms of a 1,000-file patch, with two to five joins per file).
 */
function joinUnder(workdir: string, parts: readonly string[], count = parts.length): string {
  if (workdir !== lastWorkdir) {
    lastBase = path.join(workdir, '/').replace(/\/+$/, '');
    lastWorkdir = workdir;
  }
  let out = lastBase;
  for (let i = 0; i < count; i++) out += `/${parts[i]}`;
  return out;
}

/**
 * lstat, null for nothing there. Synchronous, as are the other steps of looking at a path and of
 * replacing a file one after the other (the pooled replacement aside): a transaction runs with an
 * AsyncLocalStorage (tx/interrupt.ts), which makes every promise cost a hook call, and the checks
 * and writes of a 100-file patch made about a dozen promises per file.
 */
function lstatOrNull(file: string): BigIntStats | null {
  try {
    return lstatSync(file, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw fsError(e, 'inspect', file);
  }
}

type LeadingDirs = { kind: 'ok' } | { kind: 'missing'; from: number } | { kind: 'blocked'; by: string; symlink: boolean };

/** lstat of each leading directory of `parts`, stopping at the first that is missing or is not a
 * real directory. Directories in `knownDirs` (already checked or created by this run) are not
 * looked at again, as git's checkout caches its leading-path checks. */
function checkLeadingDirs(workdir: string, parts: string[], knownDirs?: Set<string>): LeadingDirs {
  // a directory is only ever recorded after all of its own leading directories: when the parent
  // is known, so is everything above it (the common case when a patch touches many files of one
  // directory)
  if (knownDirs && parts.length > 1 && knownDirs.has(joinUnder(workdir, parts, parts.length - 1))) return { kind: 'ok' };
  for (let i = 0; i < parts.length - 1; i++) {
    const dir = joinUnder(workdir, parts, i + 1);
    if (knownDirs?.has(dir)) continue;
    const st = lstatOrNull(dir);
    if (!st) return { kind: 'missing', from: i };
    if (!st.isDirectory()) return { kind: 'blocked', by: parts.slice(0, i + 1).join('/'), symlink: st.isSymbolicLink() };
    knownDirs?.add(dir);
  }
  return { kind: 'ok' };
}

/** What is at `repoPath` in the working tree. `knownDirs`: as for WriteFileOptions. */
export async function inspectWorktreePath(workdir: string, repoPath: string, knownDirs?: Set<string>): Promise<WorktreePathState> {
  const parts = componentsOf(repoPath);
  const leading = checkLeadingDirs(workdir, parts, knownDirs);
  if (leading.kind === 'missing') return { kind: 'missing' };
  if (leading.kind === 'blocked') return { kind: 'blocked', by: leading.by };
  const file = joinUnder(workdir, parts);
  const stat = lstatOrNull(file);
  if (!stat) return { kind: 'missing' };
  if (stat.isSymbolicLink()) return { kind: 'symlink', target: await readlink(file), stat };
  if (stat.isDirectory()) return { kind: 'dir', stat };
  if (!stat.isFile()) return { kind: 'other', stat };
  return { kind: 'file', executable: (stat.mode & 0o100n) !== 0n, stat };
}

/**
 * A path's lstat data as one string ('' for nothing there, or a leading directory that is not
 * one): what a transaction saw when it read the path, to tell whether anyone has changed it since.
 * File type and permissions, size, inode and both times: a save changes at least one of them. A
 * directory is only a directory (files appearing in it do not change the path itself).
 */
export function statStamp(st: BigIntStats | null): string {
  if (!st) return '';
  if (st.isDirectory()) return 'dir';
  return statData(st);
}

/** Whether `st` is of another file type than the path a statStamp `stamp` was taken of (its mode
 * comes first); false for a stamp of nothing ('') or of a directory ('dir'), which name no mode. */
export function otherFileType(stamp: string, st: BigIntStats): boolean {
  const colon = stamp.indexOf(':');
  return colon > 0 && (BigInt(stamp.slice(0, colon)) & 0o170000n) !== (st.mode & 0o170000n);
}

/** statStamp of what inspectWorktreePath found. */
export const stampOf = (wt: WorktreePathState): string => (wt.kind === 'missing' || wt.kind === 'blocked' ? '' : statStamp(wt.stat));

/**
 * The object id of what is at `repoPath` given its lstat `st`: a regular file's content, a
 * symlink's target; null for nothing there; undefined for anything else, or when it cannot be read
 * (changed again meanwhile).
 */
export async function worktreeContentOid(workdir: string, repoPath: string, st: BigIntStats | null): Promise<string | null | undefined> {
  if (!st) return null;
  const file = joinUnder(workdir, componentsOf(repoPath));
  try {
    if (st.isSymbolicLink()) return hashBlob(await readlink(file, { encoding: 'buffer' }));
    if (st.isFile()) return hashBlob(readRegularFile(file));
  } catch {
    /* gone or replaced meanwhile: cannot tell */
  }
  return undefined;
}

/** The bytes of the regular file at `repoPath` (never through a symlink). */
export async function readWorktreeFile(workdir: string, repoPath: string): Promise<Buffer> {
  return readRegularFile(joinUnder(workdir, componentsOf(repoPath)));
}

/** The error code readRegularFile gives when the path is no longer a regular file. */
const NOT_REGULAR = 'ENOTREG';

/** Reads a regular file without following a symlink that may have appeared since the lstat. A
 * FIFO or device that has appeared there is refused (code ENOTREG) instead of read: O_NONBLOCK
 * keeps the open of a FIFO from waiting for a writer (it changes nothing for a regular file).
 * Synchronous calls, as for lstat (see lstatOrNull): the dirty check and the load read a file per
 * touched path, and the open, stat, read and close as promises cost five hook calls each time. */
function readRegularFile(file: string): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_REGULAR });
    return readKnownSizeSync(fd, stat.size);
  } finally {
    closeSync(fd);
  }
}

/** Creates the missing leading directories of `parts`; refuses (path_rejected) when one of them is
 * a symlink, or a file the caller did not remove first. */
function makeLeadingDirs(workdir: string, repoPath: string, parts: string[], knownDirs?: Set<string>): void {
  const leading = checkLeadingDirs(workdir, parts, knownDirs);
  if (leading.kind === 'blocked') {
    const what = leading.symlink ? 'a symbolic link' : 'not a directory';
    throw new PatchtxError('path_rejected', `cannot write ${repoPath}: ${leading.by} is ${what}`, {
      path: repoPath,
      by: leading.by,
      reason: leading.symlink ? 'symlink_prefix' : 'file_prefix',
    });
  }
  if (leading.kind === 'missing') {
    for (let i = leading.from; i < parts.length - 1; i++) {
      const dir = joinUnder(workdir, parts, i + 1);
      try {
        mkdirSync(dir, 0o777);
      } catch (e) {
        // someone else made it meanwhile: fine if it is a real directory
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatOrNull(dir)?.isDirectory()) throw fsError(e, 'create', dir);
      }
      knownDirs?.add(dir);
    }
  }
}

/** A name next to the target for writing the new content before it is renamed into place. */
function tempPathFor(file: string): string {
  const base = path.basename(file).slice(0, 64);
  return path.join(path.dirname(file), `.${base}.patchtx-${process.pid}-${randomBytes(4).toString('hex')}`);
}

export interface WriteFileOptions {
  /** core.fileMode: when false the exec bit on disk means nothing to git, so an existing file
   * keeps its permissions and only new files get them from `executable` */
  trustExecutableBit?: boolean;
  /** leading directories already checked (or created) by this run; filled in as it goes. Only
   * for a run of writes that removes nothing in between */
  knownDirs?: Set<string>;
  /** replace the file through libuv's thread pool instead of synchronous calls, so that several
   * writes can be under way at once (see syncCheckout); the checks before it stay synchronous */
  pooled?: boolean;
  /** called with the lstat of what is at the path (null: nothing) just before it is replaced:
   * false leaves it as it is, and the write returns null (a file saved while a transaction ran) */
  unchanged?: (existing: BigIntStats | null) => boolean | Promise<boolean>;
}

/** What replacing a file through the thread pool needs (see pooledIo; replaceNow is the synchronous way). */
interface ReplaceIo {
  unlink(file: string): Promise<void>;
  open(
    file: string,
    flags: string,
    mode: number,
  ): Promise<{
    writeFile(data: Uint8Array): Promise<void>;
    stat(opts: { bigint: true }): Promise<BigIntStats>;
    close(): Promise<void>;
  }>;
}

/** Replaces `file` (see writeWorktreeFile) with synchronous calls: unlink, create, write, fstat. */
function replaceNow(file: string, existing: boolean, data: Uint8Array, mode: number): BigIntStats {
  if (existing) unlinkIfThereSync(file);
  const fd = openSync(file, 'wx', mode);
  try {
    for (let done = 0; done < data.byteLength;) done += writeSync(fd, data, done, data.byteLength - done);
    return fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
}

/** replaceNow through the thread pool (see pooledIo). */
async function replaceOnPool(file: string, existing: boolean, data: Uint8Array, mode: number): Promise<BigIntStats> {
  if (existing)
    await pooledIo.unlink(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  const handle = await pooledIo.open(file, 'wx', mode);
  try {
    await handle.writeFile(data);
    return await handle.stat({ bigint: true });
  } finally {
    await handle.close();
  }
}

const openOnPool = promisify(openWithCallback);
const writeOnPool = promisify(writeWithCallback);

/**
 * The thread pool for what costs the kernel real work (unlink, create, write), synchronous calls
 * for the fstat and the close of the new file: each trip through the pool costs a wake-up on both
 * sides, and those two calls are quicker than the trip. Against fs/promises for all five
 * (/usr/bin/time, 1,000-file patch, 9 alternating runs, two orders): wall 1.53-1.54 -> 1.36-1.43
 * s, system time 0.83-0.84 -> 0.70-0.76 s. A synchronous unlink as well was slower (1.70 s).
 */
const pooledIo: ReplaceIo = {
  unlink: (file) => pooledFs.unlink(file),
  open: async (file, flags, mode) => {
    const fd = await openOnPool(file, flags, mode);
    return {
      async writeFile(data: Uint8Array) {
        for (let done = 0; done < data.byteLength;) done += (await writeOnPool(fd, data, done, data.byteLength - done, null)).bytesWritten;
      },
      stat: async (opts: { bigint: true }) => fstatSync(fd, opts),
      close: async () => closeSync(fd),
    };
  },
};

/** Prepares the target of a write: leading directories exist, and whatever is at the target may
 * be replaced by rename (a file or a symlink; not a directory). Returns its lstat or null. */
function prepareTarget(workdir: string, repoPath: string, knownDirs?: Set<string>): { file: string; existing: BigIntStats | null } {
  const parts = componentsOf(repoPath);
  makeLeadingDirs(workdir, repoPath, parts, knownDirs);
  const file = joinUnder(workdir, parts);
  const existing = lstatOrNull(file);
  if (existing?.isDirectory()) {
    throw new PatchtxError('is_directory', `cannot write ${repoPath}: it is a directory in the working tree`, { path: repoPath });
  }
  return { file, existing };
}

/** Moves `temp` over `file` (an atomic replace that never follows a symlink at `file`), cleaning
 * up `temp` on failure; returns the lstat of the result, to be recorded in the index. */
async function renameIntoPlace(temp: string, file: string): Promise<BigIntStats> {
  try {
    await rename(temp, file);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw fsError(e, 'write', file);
  }
  return lstat(file, { bigint: true });
}

/** Writes a regular file the way git's checkout does: whatever is at the path (a file, or a
 * symlink itself, never its target) is removed, then the file is created exclusively (O_EXCL does
 * not follow a symlink that appears meanwhile) and written. Permissions are git's: 0777 or 0666
 * for an executable or not, less the umask. Returns the file's stat, for the index.
 * Not atomic for a concurrent reader, as in git; a transaction interrupted here is finished by
 * recovery, which writes the file again (what is left here is the old file, nothing, or the
 * start of the new content: see changedSinceRun in src/tx/recover.ts). */
export async function writeWorktreeFile(
  workdir: string,
  repoPath: string,
  data: Uint8Array,
  executable: boolean,
  options?: Omit<WriteFileOptions, 'unchanged'>,
): Promise<BigIntStats>;
export async function writeWorktreeFile(
  workdir: string,
  repoPath: string,
  data: Uint8Array,
  executable: boolean,
  options: WriteFileOptions,
): Promise<BigIntStats | null>;
export async function writeWorktreeFile(
  workdir: string,
  repoPath: string,
  data: Uint8Array,
  executable: boolean,
  options: WriteFileOptions = {},
): Promise<BigIntStats | null> {
  const { file, existing } = prepareTarget(workdir, repoPath, options.knownDirs);
  if (options.unchanged) {
    const unchanged = options.unchanged(existing);
    if (unchanged !== true && !(await unchanged)) return null;
  }
  const keepMode = options.trustExecutableBit === false && existing?.isFile() ? Number(existing.mode & 0o7777n) : null;
  const mode = keepMode ?? (executable ? 0o777 : 0o666);
  try {
    const stat = options.pooled ? await replaceOnPool(file, existing !== null, data, mode) : replaceNow(file, existing !== null, data, mode);
    if (keepMode === null) return stat;
    await chmod(file, keepMode);
    return await lstat(file, { bigint: true });
  } catch (e) {
    throw fsError(e, 'write', file);
  }
}

/** Creates or replaces a symbolic link (the link itself; its target is never touched). `unchanged`:
 * as for writeWorktreeFile. */
export async function writeWorktreeSymlink(workdir: string, repoPath: string, target: string): Promise<BigIntStats>;
export async function writeWorktreeSymlink(
  workdir: string,
  repoPath: string,
  target: string,
  unchanged: WriteFileOptions['unchanged'],
): Promise<BigIntStats | null>;
export async function writeWorktreeSymlink(
  workdir: string,
  repoPath: string,
  target: string,
  unchanged?: WriteFileOptions['unchanged'],
): Promise<BigIntStats | null> {
  const { file, existing } = prepareTarget(workdir, repoPath);
  if (unchanged && !(await unchanged(existing))) return null;
  const temp = tempPathFor(file);
  try {
    await symlink(target, temp);
  } catch (e) {
    throw fsError(e, 'write', file);
  }
  return renameIntoPlace(temp, file);
}

/**
 * Removes a file or symlink (never what a symlink points to), then every leading directory that
 * became empty, up to but not including the working tree root. This is what git does when a
 * checkout or `git rm` removes a file; the Codex reference apply_patch leaves the empty
 * directories behind, but a tree that went through git would not have them.
 * Returns false when there was nothing to remove.
 */
export async function removeWorktreeFile(workdir: string, repoPath: string): Promise<boolean> {
  const parts = componentsOf(repoPath);
  const leading = checkLeadingDirs(workdir, parts);
  if (leading.kind === 'missing') return false;
  if (leading.kind === 'blocked') {
    if (!leading.symlink) return false; // a file where a directory would be: the path cannot exist
    throw new PatchtxError('path_rejected', `cannot remove ${repoPath}: ${leading.by} is a symbolic link`, {
      path: repoPath,
      by: leading.by,
      reason: 'symlink_prefix',
    });
  }
  const file = joinUnder(workdir, parts);
  const st = lstatOrNull(file);
  if (!st) return false;
  if (st.isDirectory()) {
    throw new PatchtxError('is_directory', `cannot remove ${repoPath}: it is a directory in the working tree`, { path: repoPath });
  }
  try {
    await unlink(file);
  } catch (e) {
    throw fsError(e, 'remove', file);
  }
  for (let depth = parts.length - 1; depth > 0; depth--) {
    try {
      await rmdir(joinUnder(workdir, parts, depth));
    } catch {
      break; // not empty (or gone, or not ours to remove): the directories above are not empty either
    }
  }
  return true;
}

export interface ModifiedCheckOptions {
  /** mtime of the index file the entry comes from (GitIndex.timestamp): entries not older than it
   * are racily clean and get their content compared */
  indexTimestamp: Timestamp | null;
  /** core.fileMode (default true): whether the exec bit on disk counts */
  trustExecutableBit?: boolean;
  /** core.trustctime (default true) */
  trustCtime?: boolean;
  /** core.symlinks (default true): when false, symlinks are plain files holding the target */
  symlinks?: boolean;
  /** what git would store for a regular file's bytes (its line-ending and ident conversions) */
  storedForm?: (content: Buffer) => Promise<Uint8Array>;
  /** handed a regular file's bytes when they were read and hash to the entry's object: a caller
   * that needs them next need not read the file again */
  unchanged?: (content: Buffer) => void;
}

/**
 * Whether the working tree file differs from its index entry, git's way: same file type and exec
 * bit, stat data equal (size, mtime, ctime, inode, owner) and not racily clean means unchanged
 * without reading it; otherwise the content (for a symlink: its target) is hashed and compared with
 * the entry's object id. `stat` is the file's lstat (null: missing; undefined: lstat it here).
 * Content filters (autocrlf, .gitattributes eol or filters) are not applied: with them a file may
 * be reported as modified when git would call it clean, never the reverse.
 */
export async function isWorktreeFileModified(
  workdir: string,
  entry: IndexEntry,
  stat: BigIntStats | Stats | null | undefined,
  options: ModifiedCheckOptions,
): Promise<boolean> {
  const parts = componentsOf(entry.path);
  const file = joinUnder(workdir, parts);
  if (stat === undefined) {
    // a path whose leading directory is a symlink is not in the working tree: git calls it deleted
    stat = checkLeadingDirs(workdir, parts).kind === 'ok' ? lstatOrNull(file) : null;
  }
  if (!stat) return true;
  if (entry.mode === MODE_GITLINK) return !stat.isDirectory();

  const symlinkEntry = entry.mode === MODE_SYMLINK;
  const readsAsSymlink = stat.isSymbolicLink();
  if (readsAsSymlink !== symlinkEntry && !(symlinkEntry && options.symlinks === false && stat.isFile())) return true;
  if (!readsAsSymlink && !stat.isFile()) return true;
  if (!symlinkEntry && options.trustExecutableBit !== false) {
    const executable = (Number(stat.mode) & 0o100) !== 0;
    if (executable !== (entry.mode === MODE_EXECUTABLE)) return true;
  }

  if (statMatches(entry, stat, options.trustCtime !== false) && !isRacilyClean(entry.mtimeSeconds, options.indexTimestamp)) {
    // an entry smudged to size 0 by a racy-git write only matches an empty file by stat alone
    if (entry.size !== 0 || entry.oid === EMPTY_BLOB) return false;
  }

  let content: Buffer;
  try {
    content = readsAsSymlink ? await readlink(file, { encoding: 'buffer' }) : readRegularFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR' || code === NOT_REGULAR) return true; // changed under us
    throw fsError(e, 'read', file);
  }
  const modified = hashBlob(options.storedForm && !readsAsSymlink ? await options.storedForm(content) : content) !== entry.oid;
  if (!modified && !readsAsSymlink) options.unchanged?.(content);
  return modified;
}

function statMatches(entry: IndexEntry, st: BigIntStats | Stats, trustCtime: boolean): boolean {
  const now = statDataOf(st);
  return (
    now.size === entry.size &&
    now.mtimeSeconds === entry.mtimeSeconds &&
    now.mtimeNanoseconds === entry.mtimeNanoseconds &&
    (!trustCtime || (now.ctimeSeconds === entry.ctimeSeconds && now.ctimeNanoseconds === entry.ctimeNanoseconds)) &&
    now.ino === entry.ino &&
    now.uid === entry.uid &&
    now.gid === entry.gid
  );
}

/** Directories known to exist, and the access checks of those a file goes into or is made in. */
export interface WriteCheckCache {
  dirs: Set<string>;
  access: Map<string, NodeJS.ErrnoException | null>;
  /** the paths to be written found to be directories (a path turning from a directory into a
   * file), so that what is under them can be looked at without a second lstat of every path */
  directories: Set<string>;
}

/** A file system's refusal as a short cause: `EPERM: operation not permitted` (Node's message
 * without the call and path it appends). */
const causeOf = (e: NodeJS.ErrnoException): string => (e.message ?? String(e)).split(', ')[0]!;

/**
 * Whether the working tree lets a transaction replace, create or remove the file at `repoPath`
 * (`removing`: it is to be removed), judged before anything is written: the directory the file is
 * in must be writable and searchable, or, where leading directories are still to be made, the
 * nearest one that exists; a file to be replaced or removed must not be immutable or on a
 * read-only file system (EPERM, EROFS: its own mode bits do not matter, as the file is unlinked,
 * not written, which is why EACCES on it is no refusal). Returns the refusal as an io_error, or
 * null. `seen`: what earlier calls found, so each directory is looked at once; a path to be written
 * that is a directory is added to its `directories`. `known`: what inspectWorktreePath found at the
 * path a moment ago, if the caller has that and the path was there (a file, symlink, directory or
 * special file, every leading directory a real one): it stands in for the lstat of the path and
 * of its leading directories (the access checks are made all the same).
 * An append-only attribute, which stops an unlink but not a write, cannot be seen this way.
 */
export function worktreeWriteRefusal(
  workdir: string,
  repoPath: string,
  removing: boolean,
  seen: WriteCheckCache,
  known?: WorktreePathState,
): PatchtxError | null {
  const parts = componentsOf(repoPath);
  const file = joinUnder(workdir, parts);
  let depth = 0;
  let existing: BigIntStats | null = null;
  if (known !== undefined && known.kind !== 'missing' && known.kind !== 'blocked') {
    depth = parts.length - 1;
    existing = known.stat;
  } else {
    for (; depth < parts.length - 1; depth++) {
      const dir = joinUnder(workdir, parts, depth + 1);
      if (seen.dirs.has(dir)) continue;
      if (!lstatOrNull(dir)?.isDirectory()) break;
      seen.dirs.add(dir);
    }
    if (depth === parts.length - 1) existing = lstatOrNull(file);
  }
  if (removing && !existing) return null;
  if (!removing && existing?.isDirectory()) seen.directories.add(repoPath);
  const verb = removing ? 'remove' : existing ? 'replace' : 'create';
  const dir = joinUnder(workdir, parts, depth);
  if (!seen.access.has(dir)) seen.access.set(dir, accessError(dir, constants.W_OK | constants.X_OK));
  const dirError = seen.access.get(dir);
  if (dirError) {
    const which = depth === 0 ? "the working tree's top directory" : `the directory ${parts.slice(0, depth).join('/')}`;
    return new PatchtxError('io_error', `cannot ${verb} ${repoPath}: ${which} cannot be written to (${causeOf(dirError)})`, {
      path: repoPath,
      dir: parts.slice(0, depth).join('/'),
      errno: dirError.code,
    });
  }
  if (existing?.isFile()) {
    const fileError = accessError(file, constants.W_OK);
    if (fileError && (fileError.code === 'EPERM' || fileError.code === 'EROFS')) {
      return new PatchtxError('io_error', `cannot ${verb} ${repoPath}: the file cannot be changed (${causeOf(fileError)}; immutable?)`, {
        path: repoPath,
        errno: fileError.code,
      });
    }
  }
  return null;
}

function accessError(file: string, mode: number): NodeJS.ErrnoException | null {
  try {
    accessSync(file, mode);
    return null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return err.code === 'ENOENT' ? null : err; // gone meanwhile: the write will tell
  }
}

/**
 * Refuses (io_error, ENOSPC) when the file system of `workdir` has less room than the files about
 * to be written need (each rounded up to whole blocks) plus `extra` bytes (the new index): found
 * before the commit point, a full disk leaves the repository as it was instead of a landed commit
 * with a half-written checkout. Where the file system cannot tell (statfs fails), nothing is said.
 */
export function worktreeSpaceRefusal(workdir: string, sizes: Iterable<number>, extra: number): PatchtxError | null {
  let fsStat;
  try {
    fsStat = statfsSync(workdir);
  } catch {
    return null;
  }
  const block = Math.max(1, fsStat.bsize);
  let need = extra;
  for (const size of sizes) need += Math.ceil(size / block) * block + block;
  const free = fsStat.bavail * fsStat.bsize;
  if (free >= need) return null;
  return new PatchtxError(
    'io_error',
    `cannot write the working tree in ${workdir}: no space left on the device (ENOSPC): ${need} bytes are needed, ${free} are free; nothing was committed`,
    { path: workdir, errno: 'ENOSPC', needed: need, free },
  );
}
