// Where a library call runs (the directory its repository was opened from), and the one way every
// call of an opened repository ends: its result, or a PatchtxError (never a raw file system error
// or a TypeError).
import { toError } from '../commands/to-error.js';
import type { SessionOptions, WarmRepository } from '../commands/open.js';

export interface Place {
  /** the absolute directory the repository was opened from (discovery starts there each call) */
  readonly dir: string;
  /** what the repository object keeps between its calls (see commands/open.ts) */
  readonly warm?: WarmRepository;
}

/** The session options of a call at `place`: discovery from its directory, as the CLI's from its own,
 * with what the repository object kept from its earlier calls. */
export const sessionAt = (place: Place): SessionOptions => ({ cwd: place.dir, warm: place.warm });

/** `fn`'s result, or what it threw as a PatchtxError. */
export async function settled<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toError(e);
  }
}
