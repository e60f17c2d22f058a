// Whatever a command threw, as the PatchtxError a caller receives (the CLI prints it, the library
// throws it): a caller never gets a raw file system error or a TypeError from deep inside.
import { isPatchtxError, PatchtxError } from '../errors.js';
import { errnoOf, fsError } from '../git/fs/io-error.js';

/**
 * Any error as a PatchtxError. A file system error that got this far without being mapped is still
 * an io_error naming its cause (see fsError); anything else is a bug, reported in one line, with the
 * stack kept (the CLI shows it for PATCHTX_DEBUG=1).
 */
export function toError(e: unknown): PatchtxError {
  if (isPatchtxError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  if (errnoOf(err) !== null) return fsError(err, 'use', err.path ?? '(unknown path)');
  const message = err instanceof Error ? err.message : String(e);
  const wrapped = new PatchtxError('internal', `internal error: ${message.split('\n')[0]}`);
  if (err instanceof Error && err.stack) wrapped.stack = err.stack;
  return wrapped;
}
