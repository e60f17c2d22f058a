// Taking a ref out of packed-refs, as git does when it deletes a ref that `git pack-refs` (or
// `git gc`, or a clone) packed: under packed-refs.lock, the file is written again without the
// ref's line and its `^<oid>` peel line, then renamed into place.
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { readFile, rename, unlink } from '../fs/fsx.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import { fsError } from '../fs/io-error.js';
import { createLockFile, removeWitness } from '../fs/lock-file.js';
import type { Repository } from '../repo/repository.js';

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

/**
 * Removes `ref` from packed-refs. The caller holds the ref's own lock; `witness` proves the
 * packed-refs lock this process's (lock-file.ts). Another holder of that lock: `stale`.
 */
export async function removePackedRef(repo: Repository, ref: string, witness?: string): Promise<void> {
  const file = packedRefsFile(repo);
  const lockFile = packedRefsLockFile(repo);
  let handle;
  try {
    handle = await createLockFile(lockFile, witness);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new PatchtxError('stale', `another process is rewriting packed-refs (lock file exists: ${lockFile})`, { ref, lockFile });
    }
    throw fsError(e, 'create the lock file', lockFile, { ref, lockFile });
  }
  let renamed = false;
  try {
    await handle.writeFile(withoutPackedRef(await readFile(file, 'utf8'), ref));
    if (shouldFsync(repo, 'reference')) await handle.sync();
    await handle.close();
    handle = null;
    await rename(lockFile, file);
    renamed = true;
  } catch (e) {
    throw fsError(e, 'update', file, { ref });
  } finally {
    if (handle) await handle.close().catch(() => {});
    if (!renamed) await unlink(lockFile).catch(() => {});
    removeWitness(witness);
  }
}
