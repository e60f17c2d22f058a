// What the file system said, as a typed error. A full disk, a read-only mount, missing permission,
// an exhausted quota or an over-long name are the user's environment, not a patchtx bug: they are
// `io_error` (exit 74) naming the path and the cause in words. Any other failure the file system
// reports (an errno code) is `io_error` too, with the system's message; only an error that is no
// file system's is `internal`.
import { PatchtxError } from '../../errors.js';

const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ENAMETOOLONG: 'the file name is too long',
  EIO: 'the device reported an input/output error',
  EMFILE: 'this process has too many files open',
  ENFILE: 'the system has too many files open',
  ETXTBSY: 'the file is a running program',
  EBUSY: 'the file or device is busy',
};

/** The cause in words of an error the user's environment causes, or null for any other error. */
export function ioCauseOf(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? causeOfCode(code) : null;
}

/** The errno code (ENOENT, EIO...) of a failure the file system reported, or null for any other error. */
export function errnoOf(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : null;
}

/** The same, by errno code. */
export function causeOfCode(code: string): string | null {
  return CAUSES[code] ?? null;
}

/**
 * `e` (a failed `action` on `file`, e.g. 'write', 'create') as a PatchtxError: io_error for a
 * file system failure (the cause in words when it is one above), else internal. A PatchtxError
 * passes through unchanged.
 */
export function fsError(e: unknown, action: string, file: string, data: Record<string, unknown> = {}): PatchtxError {
  if (e instanceof PatchtxError) return e;
  const err = e as NodeJS.ErrnoException;
  const cause = ioCauseOf(err);
  if (cause !== null) return new PatchtxError('io_error', `cannot ${action} ${file}: ${cause} (${err.code})`, { ...data, path: file, errno: err.code });
  const errno = errnoOf(err);
  if (errno !== null) return new PatchtxError('io_error', `cannot ${action} ${file}: ${err.message}`, { ...data, path: file, errno });
  return new PatchtxError('internal', `cannot ${action} ${file}: ${err?.message ?? String(e)}`, { ...data, path: file });
}
