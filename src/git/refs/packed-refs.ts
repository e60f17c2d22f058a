// Deleting a ref as far as packed-refs goes, as git does when it deletes a ref that `git pack-refs`
// (or `git gc`, or a clone) may have packed: packed-refs.lock is held across the whole deletion,
// and the file is written again without the ref's line and its `^<oid>` peel line.
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { open, readFile, rename, unlink, type FileHandle } from '../fs/fsx.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import { fsError } from '../fs/io-error.js';
import { createLockFile, removeWitness, witnessStaging } from '../fs/lock-file.js';
import type { Repository } from '../repo/repository.js';
import { crashPoint } from '../../test-points.js';

export const packedRefsFile = (repo: Repository): string => path.join(repo.commonDir, 'packed-refs');

/** The lock git takes to rewrite packed-refs. */
export const packedRefsLockFile = (repo: Repository): string => `${packedRefsFile(repo)}.lock`;

/** packed-refs without `ref`'s line (and the peel line after it). */
export function withoutPackedRef(text: string, ref: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length === 41 + ref.length && line[40] === ' ' && line.slice(41) === ref) {
      if (lines[i + 1]?.startsWith('^')) i++;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

/** Takes packed-refs.lock; another holder of it: `stale`. */
async function takePackedRefsLock(repo: Repository, ref: string, witness: string | undefined): Promise<void> {
  const lockFile = packedRefsLockFile(repo);
  try {
    await (await createLockFile(lockFile, witness)).close();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new PatchtxError('stale', `another process is rewriting packed-refs (lock file exists: ${lockFile})`, { ref, lockFile });
    }
    throw fsError(e, 'create the lock file', lockFile, { ref, lockFile });
  }
}

/**
 * Deletes `ref` (whose own lock the caller holds) as git's files backend does: under packed-refs.lock,
 * taken before packed-refs is read and held until `removeLoose` has removed the loose file, so that
 * no `git pack-refs` can pack the old value in between (it would show through once the loose file
 * is gone). packed-refs is written again without the ref only when it lists it: the new content is
 * written beside the lock's witness (or as packed-refs.new, git's name, without one) and renamed
 * over packed-refs while the lock is still held; so a run killed before the loose file went leaves
 * the ref at its loose value. `witness` proves the lock this process's (lock-file.ts).
 */
export async function deleteWithPackedRefsLocked(
  repo: Repository,
  ref: string,
  removeLoose: () => Promise<void>,
  options: { witness?: string } = {},
): Promise<void> {
  const { witness } = options;
  const file = packedRefsFile(repo);
  const lockFile = packedRefsLockFile(repo);
  await takePackedRefsLock(repo, ref, witness);
  try {
    let text: string | null = null;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw fsError(e, 'read', file, { ref });
    }
    const rewritten = text === null ? text : withoutPackedRef(text, ref);
    if (rewritten !== null && rewritten !== text) await replacePackedRefs(file, rewritten, witness === undefined ? `${file}.new` : witnessStaging(witness), ref);
    // tests: packed-refs checked (and rewritten if it listed the ref), the loose file not yet removed
    crashPoint('ref-delete-checked');
    await removeLoose();
  } finally {
    await unlink(lockFile).catch(() => {});
    removeWitness(witness);
  }
}

/** Writes packed-refs anew through `staging` (fsynced as git's references are) and renames it into place. */
async function replacePackedRefs(file: string, text: string, staging: string, ref: string): Promise<void> {
  let handle: FileHandle | null = null;
  let renamed = false;
  try {
    handle = await open(staging, 'w', 0o666);
    await handle.writeFile(text);
    if (shouldFsync('reference')) await handle.sync();
    await handle.close();
    handle = null;
    await rename(staging, file);
    renamed = true;
  } catch (e) {
    throw fsError(e, 'update', file, { ref });
  } finally {
    if (handle) await handle.close().catch(() => {});
    if (!renamed) await unlink(staging).catch(() => {});
  }
}
