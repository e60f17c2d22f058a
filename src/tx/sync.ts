// Bringing this checkout in line with a commit for a given set of paths, after the ref has moved:
// the working tree files are replaced (or removed) and their index entries set to the new objects
// with fresh stat data, so `git status` is clean for them without re-hashing. Other paths are
// neither read nor written; other staged changes stay staged.
import type { IndexLock, IndexUpdate } from '../git/index-file.js';
import type { TreeEdit } from '../git/tree-edit.js';
import { inspectWorktreePath, removeWorktreeFile, writeWorktreeFile, writeWorktreeSymlink } from '../git/worktree.js';
import { crashPoint } from './crash.js';
import type { Session } from './session.js';

/** The index entries `targets` will get, without stat data: for checking before anything is written. */
export function indexUpdatesOf(targets: ReadonlyMap<string, TreeEdit>): Map<string, IndexUpdate> {
  return new Map([...targets].map(([p, t]) => [p, t && { oid: t.oid, mode: parseInt(t.mode, 8), stat: null }]));
}

export async function syncCheckout(
  session: Session,
  lock: IndexLock,
  targets: ReadonlyMap<string, TreeEdit>,
  contents: ReadonlyMap<string, Uint8Array> = new Map(),
): Promise<void> {
  const workdir = session.repo.workdir!;
  const trustExec = session.config.getBool('core.filemode') ?? true;
  const updates = new Map<string, IndexUpdate>();

  // removals first (deepest first), so a path can turn from a file into a directory or back
  const removals = [...targets].filter(([, t]) => t === null).map(([p]) => p);
  removals.sort((a, b) => b.split('/').length - a.split('/').length);
  for (const p of removals) {
    const wt = await inspectWorktreePath(workdir, p);
    if (wt.kind === 'file' || wt.kind === 'symlink') await removeWorktreeFile(workdir, p);
    updates.set(p, null);
  }
  let written = 0;
  const knownDirs = new Set<string>();
  for (const [p, t] of targets) {
    if (t === null) continue;
    const data = contents.get(p) ?? (await session.store.readBlob(t.oid));
    const stat =
      t.mode === '120000'
        ? await writeWorktreeSymlink(workdir, p, Buffer.from(data).toString())
        : await writeWorktreeFile(workdir, p, data, t.mode === '100755', { trustExecutableBit: trustExec, knownDirs });
    updates.set(p, { oid: t.oid, mode: parseInt(t.mode, 8), stat });
    if (++written === 1) crashPoint('mid-worktree');
  }
  crashPoint('after-worktree');
  await lock.write(updates);
  crashPoint('after-index');
}
