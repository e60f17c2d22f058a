// What each touched path is right now: in the base commit, in this checkout's index and in its
// working tree. From that: the refusals that protect the user (symlinks, gitlinks, uncommitted
// work) and the overlay the engine runs on. Only touched paths are ever looked at.
import type { BigIntStats } from 'node:fs';
import { lstat } from '../git/fs/fsx.js';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { converts, toWorktree } from '../git/worktree/convert.js';
import { hashBlob } from '../git/objects/hash.js';
import type { IndexEntry } from '../git/index/entry.js';
import type { GitIndex } from '../git/index/format.js';
import { lookupPaths, type PathInfo } from '../git/objects/tree-edit.js';
import { lengthProblem, quotePath } from '../patch/paths.js';
import { inspectWorktreePath, isWorktreeFileModified, readWorktreeFile, type ModifiedCheckOptions, type WorktreePathState } from '../git/worktree/worktree.js';
import { conversionsInTree, storedForm, type Conversion } from './conversions.js';
import { TouchedFiles } from './touched-files.js';
import type { Session } from './session.js';
import type { TouchedPath } from './touched.js';

export interface PathState {
  path: string;
  base: PathInfo;
  /** index entries (all stages) in worktree mode */
  index?: IndexEntry[];
  worktree?: WorktreePathState;
  /** the statStamp of `worktree` (`of`), once stampsOf has taken it */
  stamp?: { of: WorktreePathState; stamp: string };
  /** why the path counts as having uncommitted changes, if it does */
  dirty?: string;
  /** how git converts it between the working tree and the object store, by the base's attributes */
  conversion: Conversion;
  /**
   * The working-tree file's bytes, when the dirty check had to read them (its stat data could not
   * tell) and found them to be its index entry's blob: the load takes them instead of reading the
   * file a second time, and drops them.
   */
  readClean?: Buffer;
}

export interface LoadOptions {
  worktree: boolean;
  index: GitIndex | null;
  dirty: 'refuse' | 'include';
}

export interface LoadedState {
  states: Map<string, PathState>;
  overlay: TouchedFiles;
}

/** Where the path was named: its patch line, or the edit operation (which has no line). */
const reject = (t: TouchedPath, message: string, reason: string): PatchtxError =>
  new PatchtxError('path_rejected', message, {
    path: t.path,
    ...(t.line > 0 && { line: t.line }),
    ...(t.operation !== undefined && { operation: t.operation }),
    reason,
  });

/** Rejects touched paths git or patchtx must not write: gitlinks, symlinks and what lies beyond them. */
function checkBaseKind(t: TouchedPath, info: PathInfo): void {
  if (info.type === 'gitlink') {
    throw reject(t, `${t.path} is a submodule (gitlink); patchtx does not change submodules`, 'gitlink');
  }
  if (info.type === 'missing' && info.blockedBy && info.blockedBy.type !== 'blob') {
    const what = info.blockedBy.type === 'symlink' ? 'a symbolic link' : 'a submodule (gitlink)';
    throw reject(t, `cannot touch ${t.path}: ${info.blockedBy.path} is ${what}, and patchtx never writes through one`, `${info.blockedBy.type}_prefix`);
  }
  if (info.type === 'symlink' && !(t.kinds.size === 1 && t.kinds.has('delete'))) {
    throw reject(t, `${t.path} is a symbolic link; patchtx only deletes symlinks, it never writes through or over one`, 'symlink');
  }
}

/** How a working-tree file is compared with its index entry: read once per command, not per path. */
function statCheckOptions(session: Session, index: GitIndex | null): ModifiedCheckOptions {
  return {
    indexTimestamp: index?.timestamp ?? null,
    trustExecutableBit: session.config.getBool('core.filemode') ?? true,
    trustCtime: session.config.getBool('core.trustctime') ?? true,
    symlinks: session.config.getBool('core.symlinks') ?? true,
  };
}

async function dirtyReason(
  workdir: string,
  st: PathState,
  statOptions: () => ModifiedCheckOptions,
  stored: (c: Conversion, bytes: Uint8Array, indexOid: string) => Promise<Uint8Array>,
): Promise<string | undefined> {
  const entries = st.index ?? [];
  if (entries.some((e) => e.stage !== 0)) return 'unmerged (conflict in the index)';
  const staged = entries.find((e) => e.stage === 0);
  const b = st.base;
  const baseOid = b.type === 'blob' || b.type === 'symlink' ? b.oid : null;
  const baseMode = b.type === 'blob' ? parseInt(b.mode, 8) : b.type === 'symlink' ? 0o120000 : null;
  if (staged && baseOid === null) return 'staged as a new file';
  if (!staged && baseOid !== null) return 'staged for deletion';
  if (staged && (staged.oid !== baseOid || staged.mode !== baseMode)) return 'staged changes';
  const wt = st.worktree!;
  if (staged) {
    if (wt.kind === 'missing') return 'deleted in the working tree';
    if (wt.kind !== 'file' && wt.kind !== 'symlink')
      return `replaced by a ${wt.kind === 'dir' ? 'directory' : wt.kind === 'other' ? specialKind(wt.stat) : 'special file'} in the working tree`;
    // a converted file is compared as git compares it: what git add would store from it
    const converted = converts(st.conversion) && wt.kind === 'file' && staged.mode !== 0o120000;
    // a method, not a function in a constant or property: the bundle names each of those when it
    // is made, here once per touched path
    const options: ModifiedCheckOptions = {
      ...statOptions(),
      unchanged(bytes: Buffer): void {
        st.readClean = bytes;
      },
    };
    if (converted) options.storedForm = (bytes: Buffer) => stored(st.conversion, bytes, staged.oid);
    const modified = await isWorktreeFileModified(workdir, staged, wt.stat as BigIntStats, options);
    return modified ? 'modified in the working tree' : undefined;
  }
  // not in the base, not in the index: anything on disk is untracked work the patch would clobber
  if (wt.kind === 'file' || wt.kind === 'symlink') return 'untracked file in the way';
  if (wt.kind === 'dir' && b.type !== 'tree') return 'untracked directory in the way';
  if (wt.kind === 'other') return `untracked ${specialKind(wt.stat)} in the way`;
  return undefined;
}

/** What a special file (neither a regular file, a symbolic link nor a directory) is, in words. */
export function specialKind(st: Pick<BigIntStats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  if (st.isFIFO()) return 'named pipe (FIFO)';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'special file';
}

/**
 * Refuses (dirty) when a touched path of the working tree is a special file: replacing or removing
 * it would lose it for good (its content cannot be saved, and opening a named pipe would block),
 * so not even uncommitted work taken in (--dirty=include) lets it through.
 */
function refuseSpecialFiles(states: Iterable<PathState>): void {
  const special = [...states].filter((s) => s.worktree?.kind === 'other' && s.dirty !== undefined);
  if (special.length === 0) return;
  throw new PatchtxError(
    'dirty',
    `the patch cannot be applied: patchtx never replaces or removes a special file:\n${dirtyList(special)}\nmove or remove it first`,
    { paths: special.map((s) => s.path), reasons: Object.fromEntries(special.map((s) => [s.path, s.dirty])) },
  );
}

/** Refuses a path the working tree cannot hold: a component or, with the working tree's directory
 * in front, the whole path too long for the file system (it would fail after the commit point). */
function checkCheckoutPath(workdir: string, p: string): void {
  const problem = lengthProblem(p, Buffer.byteLength(workdir) + 1);
  if (problem !== null) throw new PatchtxError('path_rejected', `Path ${quotePath(p)} is rejected: ${problem}`, { path: p, reason: 'too_long' });
}

/** Base, index and working-tree state of `paths`, with why each is dirty, if it is. */
export async function inspectPaths(
  session: Session,
  tree: string | null,
  paths: string[],
  index: GitIndex | null,
  worktree: boolean,
  check?: (path: string, base: PathInfo) => void,
): Promise<Map<string, PathState>> {
  const infos = await lookupPaths(session.store, tree, paths);
  if (check) for (const p of paths) check(p, infos.get(p)!);
  // attribute files are read from the same tree, the state the paths are compared with
  const conversions = await conversionsInTree(session, tree, paths);
  const stored = async (c: Conversion, bytes: Uint8Array, indexOid: string): Promise<Uint8Array> => (await storedForm(session.store, c, bytes, indexOid)).data;
  const found = worktree && index ? index.find(paths) : new Map<string, IndexEntry[]>();
  const states = new Map<string, PathState>();
  const knownDirs = new Set<string>();
  // read when a path first needs a stat comparison, so a run that needs none never reads them
  let statOptions: ModifiedCheckOptions | undefined;
  const statOptionsOnce = (): ModifiedCheckOptions => (statOptions ??= statCheckOptions(session, index));
  for (const p of paths) {
    const base = infos.get(p)!;
    const st: PathState = { path: p, base, conversion: conversions.get(p)! };
    if (worktree) {
      checkCheckoutPath(session.repo.workdir!, p);
      st.index = found.get(p) ?? [];
      st.worktree = await inspectWorktreePath(session.repo.workdir!, p, knownDirs);
      if (st.worktree.kind === 'blocked') {
        const by = st.worktree.by;
        // `a` a tracked, clean file and the patch adds `a/b`: fine when the patch also deletes `a`
        // (checkBlockedAdds in commands/apply.ts makes sure it does; `a` itself is checked as a touched path)
        const tracked = base.type === 'missing' && base.blockedBy?.type === 'blob' && base.blockedBy.path === by;
        const onDisk = tracked ? await lstat(path.join(session.repo.workdir!, ...by.split('/'))).catch(() => null) : null;
        if (!onDisk?.isFile()) {
          throw new PatchtxError('path_rejected', `cannot touch ${p}: ${by} is a symbolic link or a file in the working tree`, {
            path: p,
            by,
            reason: 'worktree_prefix',
          });
        }
        st.worktree = { kind: 'missing' };
      }
      st.dirty = await dirtyReason(session.repo.workdir!, st, statOptionsOnce, stored);
    }
    states.set(p, st);
  }
  return states;
}

export function dirtyList(states: Iterable<PathState>): string {
  return [...states]
    .filter((s) => s.dirty !== undefined)
    .map((s) => `  ${s.path}: ${s.dirty}`)
    .join('\n');
}

/**
 * The base content of a clean touched file as the working tree holds it (as `git checkout` would
 * write it, where there is no working tree). In a checkout it is taken from the working tree, as
 * `git apply` does, when what git would store from those bytes hashes to the base blob: reading a
 * small file costs less than finding, reading and inflating its object. The hash, not the stat
 * data, decides, so an edit since the checks only means the object is read from the store instead.
 */
async function baseBlobContent(session: Session, st: PathState, oid: string): Promise<Uint8Array> {
  // read by the dirty check, and found to be the index's blob, which for a clean path is the base's
  const readClean = st.readClean;
  st.readClean = undefined;
  if (readClean !== undefined && st.worktree?.kind === 'file' && st.dirty === undefined) return readClean;
  if (st.worktree?.kind === 'file') {
    const onDisk = await readWorktreeFile(session.repo.workdir!, st.path).catch(() => null);
    if (onDisk && hashBlob(converts(st.conversion) ? (await storedForm(session.store, st.conversion, onDisk, oid)).data : onDisk) === oid) return onDisk;
  }
  const blob = await session.store.readBlob(oid, st.path);
  return converts(st.conversion) ? toWorktree(blob, st.conversion) : blob;
}

export async function loadTouched(session: Session, baseTree: string | null, touched: Map<string, TouchedPath>, opts: LoadOptions): Promise<LoadedState> {
  const states = await inspectPaths(session, baseTree, [...touched.keys()], opts.index, opts.worktree, (p, base) => checkBaseKind(touched.get(p)!, base));
  const overlay = new TouchedFiles();
  refuseSpecialFiles(states.values());

  const dirty = [...states.values()].filter((s) => s.dirty !== undefined);
  if (dirty.length > 0 && opts.dirty === 'refuse') {
    throw new PatchtxError(
      'dirty',
      `the patch touches paths with uncommitted changes:\n${dirtyList(dirty)}\n` +
        `commit or stash them first, or take the working-tree content into this commit`,
      { paths: dirty.map((s) => s.path), reasons: Object.fromEntries(dirty.map((s) => [s.path, s.dirty])), remedy: { option: 'dirty', value: 'include' } },
    );
  }

  for (const st of states.values()) {
    if (st.dirty !== undefined) {
      // --dirty=include: the engine starts from what is on disk
      const wt = st.worktree!;
      if (wt.kind === 'file') overlay.putFile(st.path, await readWorktreeFile(session.repo.workdir!, st.path));
      else if (wt.kind === 'symlink') overlay.putFile(st.path, Buffer.from(wt.target));
      else if (wt.kind === 'dir') overlay.markDirectory(st.path);
      continue;
    }
    const b = st.base;
    if (b.type === 'blob') overlay.putFile(st.path, await baseBlobContent(session, st, b.oid));
    else if (b.type === 'symlink') overlay.putFile(st.path, await session.store.readBlob(b.oid, st.path));
    else if (b.type === 'tree') overlay.markDirectory(st.path);
  }
  return { states, overlay };
}
