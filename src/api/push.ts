// Library face of `patchtx push`: the branch and the patch texts (refs/notes/patchtx) sent to a
// remote as a lease, the branch only if the remote's is still where this repository believes it
// is (commands/push.ts). The result is the object `patchtx push --json` prints.
import { pushBranch, type PushResult } from '../commands/push.js';
import type { SessionOptions } from '../commands/open.js';
import { describeValue, optionalBoolean, optionalString, readOptionsObject, usageError } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

/** what `patchtx push --json` prints */
export type PushJson = PushResult;

export interface PushOptions {
  /** a configured remote's name, an http(s) or file:// URL, or a path (default: origin) */
  remote?: string;
  /** the branch to push (default: the checked-out one) */
  ref?: string;
  /** the commit (a full id) the remote branch must be at, null: it must not exist; default: the remote-tracking ref */
  expected?: string | null;
  /** overwrite the remote branch whatever it holds */
  force?: boolean;
}

/** The session options of a push at `place`: discovery from its directory, as every other call
 * (the retry of a push after apply opens its sessions with these too). */
export const pushAt = (place: Place): SessionOptions => sessionAt(place);

function readExpected(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string' || !/^[0-9a-f]{40}$/.test(value)) {
    const got = typeof value === 'string' ? `'${value}'` : describeValue(value);
    throw usageError(`push: options.expected must be a full commit id (40 hex digits) or null (the branch must not exist), got ${got}`, {
      option: 'expected',
    });
  }
  return value;
}

export async function push(place: Place, options: PushOptions = {}): Promise<PushJson> {
  const o = readOptionsObject('push', options, ['remote', 'ref', 'expected', 'force']);
  const remote = optionalString('push', 'remote', o.remote);
  const ref = optionalString('push', 'ref', o.ref);
  const expected = readExpected(o.expected);
  const force = optionalBoolean('push', 'force', o.force);
  return settled(() => pushBranch({ ...pushAt(place), remote, ref, expected, force }));
}
