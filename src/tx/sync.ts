// Bringing this checkout in line with a commit for a given set of paths, after the ref has moved:
// the working tree files are replaced (or removed) and their index entries set to the new objects
// with fresh stat data, so `git status` is clean for them without re-hashing. (Recovery can ask
// for some paths to be left on disk as they are, and to go past those it cannot write: see
// `leave` and `failed`; a running transaction leaves those that changed since it read them: see
// `LiveSync`; an undo that puts uncommitted work back gives some paths an index entry other than
// what their file gets.) Other paths are neither read nor written; other staged changes stay
// staged. Before the commit point, what would make the writes fail is looked for: paths the file
// system will not let us write, room for the new files, and files of the user's that writing would
// need removed.
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fsError } from '../git/fs/io-error.js';
import path from 'node:path';
import type { IndexLock } from '../git/index/lock.js';
import { indexPathOf } from '../git/index/read.js';
import type { IndexUpdate } from '../git/index/updates.js';
import type { TreeEdit } from '../git/objects/tree-edit.js';
import {
  inspectWorktreePath,
  removeWorktreeFile,
  worktreeSpaceRefusal,
  worktreeWriteRefusal,
  writeWorktreeFile,
  writeWorktreeSymlink,
  type WorktreePathState,
  type WriteCheckCache,
} from '../git/worktree/worktree.js';
import { inParallel } from '../in-parallel.js';
import { sameStatAsRead, stillAsRead, type AsRead } from './as-read.js';
import { crashPoint } from './crash.js';
import { mark } from '../timing.js';
import type { Session } from './session.js';

/**
 * From this many files on, the working-tree writes may run several at a time through libuv's
 * thread pool. Replacing a file (unlink, create, write) is mostly the kernel's work, and files in
 * different directories can be replaced side by side.
 */
const POOLED_WRITES_MIN = 4;
/**
 * Whether the pool wins depends on the storage, so it is measured: the first files are replaced
 * one after the other, timed, and the rest go to the pool as soon as the files so far took longer
 * than POOLED_ABOVE_MS each on average and two of them did on their own (so that one file held up
 * once does not decide; at most PROBE_WRITES files are probed). Where replacing a file is cheap
 * (tmpfs, or a disk whose freed blocks are not discarded at once), the pool's round trips cost
 * more than the kernel's work: 1,000 files of 4 KB took about 9 ms one after the other on tmpfs
 * against 20 ms through the pool, 74 against 89 ms on this machine's disk when the old files'
 * blocks were still in the page cache; where the old blocks are on disk and discarded as they are
 * freed, 164 against 140 ms. On a busy disk one replacement can take a millisecond or more, and
 * the pool then wins for ten files as well.
 */
const PROBE_WRITES = 16;
const POOLED_ABOVE_MS = 0.15;
const WRITES_AT_ONCE = 8;

/**
 * Refuses (io_error) before the commit point when the working tree would not let `targets` be
 * written or removed (an immutable file or directory, a read-only file system, a directory the
 * user may not write): after it, the failure would leave the commit landed and the checkout
 * half-synced. Run under the index lock, as close to the writes as the protocol allows. `seen`:
 * what the run found at a target path under the lock, when nothing but the run has run since (see
 * Prepared.seenUnderLock): the path is then not looked at again (worktreeWriteRefusal's `known`).
 */
export async function checkCheckoutWritable(
  session: Session,
  targets: ReadonlyMap<string, TreeEdit>,
  seen?: (p: string) => WorktreePathState | undefined,
): Promise<CheckoutLook> {
  const workdir = session.repo.workdir!;
  // the index is replaced by a rename onto it, which an immutable index file refuses
  const index = indexPathOf(session.repo);
  try {
    accessSync(index, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // (a git directory that cannot be written at all is the read-only refusal of read-only.ts,
    // which apply meets first and check, writing nothing, passes)
    if (code === 'EPERM') throw fsError(e, 'replace the index', index);
  }
  const cache: WriteCheckCache = { dirs: new Set(), access: new Map(), directories: new Set() };
  for (const [p, t] of targets) {
    const refusal = worktreeWriteRefusal(workdir, p, t === null, cache, seen?.(p));
    if (refusal) throw refusal;
  }
  return { directories: cache.directories };
}

/** What checkCheckoutWritable saw of the targets, for inTheWay. */
export interface CheckoutLook {
  /** the targets to be written that are directories in the working tree */
  directories: ReadonlySet<string>;
}

/**
 * Refuses (io_error, ENOSPC) when the working tree's file system has no room for the new files
 * (their old versions are removed only as each is replaced) and the new index. Run after the
 * transaction's objects are written, which may take room on the same file system, and before the
 * ref moves.
 */
export function checkCheckoutRoom(session: Session, targets: ReadonlyMap<string, TreeEdit>, contents: ReadonlyMap<string, Uint8Array> = new Map()): void {
  const sizes = [...targets].filter(([p, t]) => t !== null && contents.has(p)).map(([p]) => contents.get(p)!.length);
  const indexSize = statSize(indexPathOf(session.repo));
  const full = worktreeSpaceRefusal(session.repo.workdir!, sizes, indexSize + 64 * 1024);
  if (full) throw full;
}

function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** How many of the files in the way are named; one is enough to refuse, and a directory such as a
 * dependency cache may hold thousands. */
const IN_THE_WAY_LISTED = 10;

/**
 * What stands where `targets` turn a directory into a file (undo of `Delete a` + `Add a/b`, say):
 * whatever is under that directory and not removed by the transaction itself (untracked or
 * ignored files, symlinks, empty directories, listed with a trailing '/'). Writing the file would
 * need them removed, which patchtx never does; git checkout refuses the same ("untracked working
 * tree files would be removed"). At most IN_THE_WAY_LISTED, sorted. `look`: what
 * checkCheckoutWritable, run just before, saw of the same targets (each is then not looked at again).
 */
export async function inTheWay(session: Session, targets: ReadonlyMap<string, TreeEdit>, look?: CheckoutLook): Promise<string[]> {
  const workdir = session.repo.workdir!;
  const found: string[] = [];
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(path.join(workdir, ...rel.split('/')), { withFileTypes: true });
    } catch {
      entries = null; // cannot be listed: cannot be told empty either
    }
    if (entries === null || entries.length === 0) {
      found.push(`${rel}/`);
      return;
    }
    for (const e of entries) {
      if (found.length >= IN_THE_WAY_LISTED) return;
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (targets.get(child) !== null) found.push(child);
    }
  };
  const knownDirs = new Set<string>();
  for (const [p, t] of targets) {
    if (t === null || found.length >= IN_THE_WAY_LISTED) continue;
    // what the look saw is answered without a promise (each costs a hook call in a transaction)
    if (look ? look.directories.has(p) : (await inspectWorktreePath(workdir, p, knownDirs)).kind === 'dir') walk(p);
  }
  return found.sort();
}

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
  return new Map(
    [...targets].map(([p, t]) => {
      const e = index?.has(p) ? index.get(p)! : t;
      return [p, e && { oid: e.oid, mode: parseInt(e.mode, 8), stat: null }];
    }),
  );
}

/** How a sync goes beyond writing `targets`. */
export interface SyncOptions {
  /** paths whose working-tree file stays as it is (recovery: changed since the run died) */
  leave?: ReadonlySet<string>;
  /** what checkout writes for a blob read here (line-ending and ident conversion); `contents` have it already */
  checkoutForm?: (path: string, blob: Uint8Array) => Uint8Array;
  /** given (recovery): a path the file system refuses to write or remove is reported here and
   * skipped, its index entry set as for `leave`, instead of failing the whole sync */
  failed?: (path: string, removing: boolean, error: unknown) => void;
  /** a running transaction's own: what it read, and index entries other than the files' */
  live?: LiveSync;
}

export async function syncCheckout(
  session: Session,
  lock: IndexLock,
  targets: ReadonlyMap<string, TreeEdit>,
  contents: ReadonlyMap<string, Uint8Array> = new Map(),
  opts: SyncOptions = {},
): Promise<string[]> {
  const { leave = new Set<string>(), checkoutForm = (_p: string, blob: Uint8Array) => blob, failed, live = {} } = opts;
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
    try {
      const wt = await inspectWorktreePath(workdir, p);
      const there = wt.kind === 'file' || wt.kind === 'symlink';
      if (there && asRead && !(await stillAsRead(workdir, p, wt.stat, asRead))) changed.push(p);
      else if (there) await removeWorktreeFile(workdir, p);
    } catch (e) {
      if (!failed) throw e;
      failed(p, true, e);
    }
    const entry = index?.get(p);
    updates.set(p, entry ? { oid: entry.oid, mode: parseInt(entry.mode, 8), stat: null } : null);
  }
  let written = 0;
  const knownDirs = new Set<string>();
  // a file left in place keeps the paths above and below it as they are too
  const blockedByKept = (p: string): boolean => changed.some((k) => p.startsWith(`${k}/`) || k.startsWith(`${p}/`));
  const writes = [...targets].filter((e): e is [string, NonNullable<TreeEdit>] => e[1] !== null);
  const write = async ([p, t]: [string, NonNullable<TreeEdit>], pooled: boolean): Promise<void> => {
    if (changed.length > 0 && blockedByKept(p)) {
      changed.push(p);
      return leaveAsItIs(p, t);
    }
    const data = contents.get(p) ?? (t.mode === '120000' ? await session.store.readBlob(t.oid) : checkoutForm(p, await session.store.readBlob(t.oid)));
    // the same stat data is answered at once; only a path whose stat data changed is looked into
    const unchanged = asRead && ((st: Parameters<typeof stillAsRead>[2]) => sameStatAsRead(p, st, asRead) || stillAsRead(workdir, p, st, asRead));
    let stat: Awaited<ReturnType<typeof writeWorktreeFile>>;
    try {
      stat =
        t.mode === '120000'
          ? await writeWorktreeSymlink(workdir, p, Buffer.from(data).toString(), unchanged)
          : await writeWorktreeFile(workdir, p, data, t.mode === '100755', { trustExecutableBit: trustExec, knownDirs, pooled, unchanged });
    } catch (e) {
      if (!failed) throw e;
      failed(p, false, e);
      return leaveAsItIs(p, t);
    }
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
  // the probe stops as soon as the files so far took longer than POOLED_ABOVE_MS on average, two
  // of them each on their own (one held up once, by the scheduler or a collection, decides nothing)
  const start = performance.now();
  let done = 0;
  let slow = 0;
  let pooled = false;
  if (writes.length >= POOLED_WRITES_MIN) {
    while (!pooled && done < PROBE_WRITES && done < writes.length) {
      const before = performance.now();
      await write(writes[done++]!, false);
      const now = performance.now();
      if (now - before > POOLED_ABOVE_MS) slow++;
      pooled = slow >= 2 && now - start > POOLED_ABOVE_MS * done;
    }
  }
  const rest = writes.slice(done);
  if (pooled) await inParallel(rest, WRITES_AT_ONCE, (w) => write(w, true));
  else for (const w of rest) await write(w, false);
  crashPoint('after-worktree');
  mark('working tree');
  await lock.write(updates);
  crashPoint('after-index');
  mark('index');
  return changed;
}
