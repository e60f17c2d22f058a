// Taking a git lock file (`index.lock`, `<ref>.lock`) so that whoever cleans up after a killed
// process can prove the lock was that process's.
//
// git's protocol: whoever creates the lock file exclusively owns what it guards until it renames
// the lock into place or removes it. A lock left by a killed patchtx run must be removed by the next
// patchtx, but a lock of the same name may by then belong to a live git (a `git commit` waiting for
// its editor): its name says nothing about whose it is. So a lock is created with a witness: a
// file the caller names (in patchtx's own directory), created first, then hard-linked to the lock
// name; link fails with EEXIST as O_EXCL does, so the lock is taken exactly as git takes it. As long
// as the witness exists, the lock file is the witness's inode: a lock file with the same device and
// inode as a witness is the witness owner's (the witness keeps the inode from being reused), any
// other is not. There is no moment at which the lock exists without its witness.
//
// Where hard links are not available (EPERM, ENOTSUP...), the lock is created with O_EXCL and has
// no witness: it can then not be proved anyone's, and is left to the user.
import * as fs from 'node:fs';
import { FileHandle, unlinkIfThereSync } from './fsx.js';

const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `lockFile` exclusively (EEXIST, as an errno error, when it exists) and opens it for
 * writing. With `witness`, the lock is the witness's hard link (see above); a witness file left
 * at that name (by the same owner, killed) is replaced.
 */
export async function createLockFile(lockFile: string, witness?: string, mode = 0o666): Promise<FileHandle> {
  if (witness === undefined) return new FileHandle(fs.openSync(lockFile, 'wx', mode));
  const fd = openWitness(witness, mode);
  try {
    fs.linkSync(witness, lockFile);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(witness, { force: true });
    if (!NO_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
    return new FileHandle(fs.openSync(lockFile, 'wx', mode));
  }
  return new FileHandle(fd);
}

/** Creates the witness file exclusively; one left at its name by its owner (killed) is replaced. */
function openWitness(witness: string, mode: number): number {
  try {
    return fs.openSync(witness, 'wx', mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  fs.unlinkSync(witness);
  return fs.openSync(witness, 'wx', mode);
}

/** Whether `lockFile` exists and is the file `witness` is (proof that the witness's owner took it). */
export function isWitnessedLock(lockFile: string, witness: string): boolean {
  const lock = fs.statSync(lockFile, { throwIfNoEntry: false, bigint: true });
  const mark = fs.statSync(witness, { throwIfNoEntry: false, bigint: true });
  return lock !== undefined && mark !== undefined && lock.ino === mark.ino && lock.dev === mark.dev;
}

/**
 * Where new content for the file a witnessed lock guards is written while the lock stays held (as
 * git writes packed-refs.new under packed-refs.lock), before it is renamed into place: beside the
 * witness, so that a run killed meanwhile leaves it where its witness goes, not in git's way.
 */
export const witnessStaging = (witness: string): string => `${witness}.new`;

/**
 * Removes a witness (after its lock was released or renamed into place), and its staging file
 * unless the caller knows it never wrote one (`staged: false`).
 */
export function removeWitness(witness: string | undefined, opts: { staged?: boolean } = {}): void {
  if (witness === undefined) return;
  unlinkIfThereSync(witness);
  if (opts.staged !== false) unlinkIfThereSync(witnessStaging(witness));
}
