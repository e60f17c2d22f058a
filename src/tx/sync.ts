// Bringing this checkout in line with a commit for a given set of paths, after the ref has moved:
// the working tree files are replaced (or removed) and their index entries set to the new objects
// with fresh stat data, so `git status` is clean for them without re-hashing. (Recovery can ask
// for some paths to be left on disk as they are: see `leave`; a running transaction leaves those
// that changed since it read them: see `LiveSync`; an undo that puts uncommitted work back gives
// some paths an index entry other than what their file gets.) Other paths are neither read nor
// written; other staged changes stay staged.
import type { IndexLock, IndexUpdate } from '../git/index-file.js';
import type { TreeEdit } from '../git/tree-edit.js';
import { inspectWorktreePath, removeWorktreeFile, writeWorktreeFile, writeWorktreeSymlink } from '../git/worktree.js';
import { inParallel } from '../in-parallel.js';
import { stillAsRead, type AsRead } from './as-read.js';
import { crashPoint } from './crash.js';
import type { Session } from './session.js';

/**
 * From this many files on, the working-tree writes run several at a time through libuv's thread
 * pool. Replacing a file (unlink, create, write) is mostly the kernel's work, and files in
 * different directories can be replaced side by side; below this count the pool's round trips
 * cost more than they win (measured: a 1,000-file patch on two cores, see the README).
 */
const POOLED_WRITES_MIN = 64;
/**
 * Twice libuv's four threads: each replacement is a chain of calls through the pool (unlink,
 * create, write: pooledIo in src/git/worktree.ts), and between two of them it waits for the main
 * thread; with eight under way the threads find the next call queued. Measured in alternating runs, 8 at a time against 4: medians 4-9%
 * lower for 1,000 files (both benchmark repositories), 3% for 100; 16 no faster than 8, 2 slower
 * than 4.
 */
const WRITES_AT_ONCE = 8;

/** What a running transaction (not a recovery) adds to a sync. */
export interface LiveSync {
  /** what the run read: a path that no longer holds it is left as it is */
  asRead?: AsRead;
  /** index entries (null: none) for paths whose entry is not what their file gets (undo putting
   * uncommitted work back) */
  index?: ReadonlyMap<string, TreeEdit>;
}

/** The index entries `targets` (and `index`, where it says otherwise) will get, without stat data:
 * for checking before anything is written. */
export function indexUpdatesOf(targets: ReadonlyMap<string, TreeEdit>, index?: ReadonlyMap<string, TreeEdit>): Map<string, IndexUpdate> {
  return new Map([...targets].map(([p, t]) => {
    const e = index?.has(p) ? index.get(p)! : t;
    return [p, e && { oid: e.oid, mode: parseInt(e.mode, 8), stat: null }];
  }));
}

export async function syncCheckout(
  session: Session,
  lock: IndexLock,
  targets: ReadonlyMap<string, TreeEdit>,
  contents: ReadonlyMap<string, Uint8Array> = new Map(),
  leave: ReadonlySet<string> = new Set(),
  live: LiveSync = {},
): Promise<string[]> {
  const { asRead, index } = live;
  const workdir = session.repo.workdir!;
  const trustExec = session.config.getBool('core.filemode') ?? true;
  const updates = new Map<string, IndexUpdate>();
  // Paths to leave on disk as they are still get the commit's index entry, without stat data, so
  // git compares their content and shows how they differ from the commit (or, for a removed path,
  // shows the file as untracked).
  const leaveAsItIs = (p: string, t: TreeEdit): void => void updates.set(p, t && { oid: t.oid, mode: parseInt(t.mode, 8), stat: null });
  if (leave.size > 0) {
    const kept = new Map<string, TreeEdit>();
    for (const [p, t] of targets) {
      if (!leave.has(p)) kept.set(p, t);
      else leaveAsItIs(p, t);
    }
    targets = kept;
  }
  const changed: string[] = [];

  // removals first (deepest first), so a path can turn from a file into a directory or back
  const removals = [...targets].filter(([, t]) => t === null).map(([p]) => p);
  removals.sort((a, b) => b.split('/').length - a.split('/').length);
  for (const p of removals) {
    const wt = await inspectWorktreePath(workdir, p);
    const there = wt.kind === 'file' || wt.kind === 'symlink';
    if (there && asRead && !(await stillAsRead(workdir, p, wt.stat, asRead))) changed.push(p);
    else if (there) await removeWorktreeFile(workdir, p);
    const entry = index?.get(p);
    updates.set(p, entry ? { oid: entry.oid, mode: parseInt(entry.mode, 8), stat: null } : null);
  }
  let written = 0;
  const knownDirs = new Set<string>();
  // a file left in place keeps the paths above and below it as they are too
  const blockedByKept = (p: string): boolean => changed.some((k) => p.startsWith(`${k}/`) || k.startsWith(`${p}/`));
  const writes = [...targets].filter((e): e is [string, NonNullable<TreeEdit>] => e[1] !== null);
  const pooled = writes.length >= POOLED_WRITES_MIN;
  const write = async ([p, t]: [string, NonNullable<TreeEdit>]): Promise<void> => {
    if (changed.length > 0 && blockedByKept(p)) {
      changed.push(p);
      return leaveAsItIs(p, t);
    }
    const data = contents.get(p) ?? (await session.store.readBlob(t.oid));
    const unchanged = asRead && ((st: Parameters<typeof stillAsRead>[2]) => stillAsRead(workdir, p, st, asRead));
    const stat =
      t.mode === '120000'
        ? await writeWorktreeSymlink(workdir, p, Buffer.from(data).toString(), unchanged)
        : await writeWorktreeFile(workdir, p, data, t.mode === '100755', { trustExecutableBit: trustExec, knownDirs, pooled, unchanged });
    if (stat === null) {
      changed.push(p);
      return leaveAsItIs(p, t);
    }
    if (index?.has(p)) {
      // the stat data only where the entry describes the file written (git compares the rest)
      const e = index.get(p)!;
      updates.set(p, e && { oid: e.oid, mode: parseInt(e.mode, 8), stat: e.oid === t.oid && e.mode === t.mode ? stat : null });
    } else {
      updates.set(p, { oid: t.oid, mode: parseInt(t.mode, 8), stat });
    }
    if (++written === 1) crashPoint('mid-worktree');
  };
  if (pooled) await inParallel(writes, WRITES_AT_ONCE, write);
  else for (const w of writes) await write(w);
  crashPoint('after-worktree');
  await lock.write(updates);
  crashPoint('after-index');
  return changed;
}
