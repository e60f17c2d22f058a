// What the file system said, as a typed error. A full disk, a read-only mount, missing permission,
// an exhausted quota or an over-long name are the user's environment, not a patchtx bug: they are
// `io_error` (exit 74) naming the path and the cause in words. Anything else the file system
// reports stays `internal`, with the system's message.
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

/** The same, by errno code. */
export function causeOfCode(code: string): string | null {
  return CAUSES[code] ?? null;
}

/**
 * `e` (a failed `action` on `file`, e.g. 'write', 'create') as a PatchtxError: io_error for the
 * causes above, else internal. A PatchtxError passes through unchanged.
 */
export function fsError(e: unknown, action: string, file: string, data: Record<string, unknown> = {}): PatchtxError {
  if (e instanceof PatchtxError) return e;
  const err = e as NodeJS.ErrnoException;
  const cause = ioCauseOf(err);
  if (cause !== null) return new PatchtxError('io_error', `cannot ${action} ${file}: ${cause} (${err.code})`, { ...data, path: file, errno: err.code });
  return new PatchtxError('internal', `cannot ${action} ${file}: ${err?.message ?? String(e)}`, { ...data, path: file, errno: err?.code });
}
