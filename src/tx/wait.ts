// Waiting for a lock instead of failing on it: another transaction in this checkout or on the ref
// (its journal), a recovery under way, a ref or the index locked by patchtx or git. The whole command is run
// again once the lock may be gone, up to a deadline; a branch that moved, or a base or expected
// head that no longer matches, is never waited out (it is no lock, and a retry would not be asked
// for) unless the caller pinned nothing: apply_patch applies onto whatever the branch holds, so a
// branch another call moved meanwhile is applied onto anew, as a lost compare-and-swap is retried.
import { PatchtxError } from '../errors.js';

/** A `stale` that a lock caused (with `moved`, also a branch that moved): not a stop by a signal. */
function isLockWait(e: unknown, moved: boolean): e is PatchtxError {
  // a run stopped by a signal (data.signal) is not waiting for a lock: the user asked it to end
  return e instanceof PatchtxError && e.kind === 'stale' && (moved || e.data.expected === undefined) && e.data.signal === undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `fn`, run again while it fails on a lock, for up to `seconds` (0: once). `retryMoved`: also when
 * the branch moved (for a caller that pinned no base or expected head).
 */
export async function waitingForLocks<T>(seconds: number, fn: () => Promise<T>, retryMoved = false): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
    try {
      return await fn();
    } catch (e) {
      if (!isLockWait(e, retryMoved) || seconds <= 0) throw e;
      const left = deadline - Date.now();
      if (left <= 0) throw new PatchtxError('stale', `${e.message} (still so after waiting ${seconds} s)`, { ...e.data, waited: seconds });
      // jittered, so that calls that collided do not collide again in step
      await sleep(Math.min(pause * (0.5 + Math.random()), left));
    }
  }
}

/** The seconds of a wait setting, or a usage error naming `source` (the option or variable it came from). */
export function parseWaitSeconds(text: string | undefined, source: string): number {
  if (text === undefined) return 0;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0)
    throw new PatchtxError('usage', `${source} wants a number of seconds, got '${text}'`, { value: text });
  return seconds;
}
