// Deleting a ref as far as packed-refs goes, as git does when it deletes a ref that `git pack-refs`
// (or `git gc`, or a clone) may have packed: packed-refs.lock is held across the whole deletion,
// and the file is written again without the ref's line and its `^<oid>` peel line.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchtxError } from '../../errors.js';
import { open, readFile, rename, unlink, type FileHandle } from '../fs/fsx.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import { fsError } from '../fs/io-error.js';
import { createLockFile, removeWitness, witnessStaging } from '../fs/lock-file.js';
import type { GitConfig } from '../repo/config.js';
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

/** How long git waits for packed-refs.lock by default (core.packedRefsTimeout, in milliseconds). */
export const DEFAULT_PACKED_REFS_TIMEOUT_MS = 1000;

/**
 * core.packedRefsTimeout as git reads it: milliseconds, with an optional k/m/g suffix; negative:
 * no limit. A value git would reject is taken as the default.
 */
export function packedRefsTimeout(config: GitConfig): number {
  const m = /^\s*(-?\d+)\s*([kmg]?)\s*$/i.exec(config.get('core.packedRefsTimeout') ?? '');
  if (m === null) return DEFAULT_PACKED_REFS_TIMEOUT_MS;
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * scale;
}

/**
 * Takes packed-refs.lock as git does: when another process holds it, tries again (with growing,
 * jittered waits) until `timeoutMs` (negative: no limit) has passed, then gives up with `stale`.
 */
async function takePackedRefsLock(repo: Repository, ref: string, witness: string | undefined, timeoutMs: number): Promise<void> {
  const lockFile = packedRefsLockFile(repo);
  const started = Date.now();
  for (let backoff = 1; ; backoff = Math.min(backoff * 2, 100)) {
    try {
      await (await createLockFile(lockFile, witness)).close();
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fsError(e, 'create the lock file', lockFile, { ref, lockFile });
    }
    const left = timeoutMs < 0 ? Infinity : started + timeoutMs - Date.now();
    if (left <= 0) {
      throw new PatchtxError('stale', `another process is rewriting packed-refs (lock file exists: ${lockFile})`, { ref, lockFile });
    }
    await sleep(Math.min(left, backoff * (0.75 + Math.random() / 2)));
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
  options: { witness?: string; timeoutMs?: number } = {},
): Promise<void> {
  const { witness } = options;
  const file = packedRefsFile(repo);
  const lockFile = packedRefsLockFile(repo);
  await takePackedRefsLock(repo, ref, witness, options.timeoutMs ?? DEFAULT_PACKED_REFS_TIMEOUT_MS);
  try {
    let text: string | null = null;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw fsError(e, 'read', file, { ref });
    }
    const rewritten = text === null ? text : withoutPackedRef(text, ref);
    if (rewritten !== null && rewritten !== text)
      await replacePackedRefs(repo, file, rewritten, witness === undefined ? `${file}.new` : witnessStaging(witness), ref);
    // tests: packed-refs checked (and rewritten if it listed the ref), the loose file not yet removed
    crashPoint('ref-delete-checked');
    await removeLoose();
  } finally {
    await unlink(lockFile).catch(() => {});
    removeWitness(witness);
  }
}

/** Writes packed-refs anew through `staging` (fsynced as git's references are) and renames it into place. */
async function replacePackedRefs(repo: Repository, file: string, text: string, staging: string, ref: string): Promise<void> {
  let handle: FileHandle | null = null;
  let renamed = false;
  try {
    handle = await open(staging, 'w', 0o666);
    await handle.writeFile(text);
    if (shouldFsync(repo, 'reference')) await handle.sync();
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
