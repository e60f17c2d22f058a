// The `push` option of the library's apply, as `patchtx apply --push [--retry N] [--force]`: a
// remote the push cannot go to is found before anything is committed; after the commit, the
// branch and its note are pushed under a lease on the commit the patch was applied onto, and with
// `retries`, a lost lease fetches the remote's new tip and applies the patch again there
// (commands/push-retry.ts). The result is the push's --json object.
import type { ApplyOptions as CommandApplyOptions, TxResult } from '../commands/apply.js';
import { checkPushRemote, pushAfterApply, pushBranch } from '../commands/push.js';
import { pushWithRetry } from '../commands/push-retry.js';
import { describeValue, optionalBoolean, optionalString, optionalWholeNumber, usageError } from './args.js';
import type { Place } from './place.js';
import { pushAt, type PushJson } from './push.js';

export interface ApplyPushOptions {
  /** a configured remote's name, an http(s) or file:// URL, or a path (default: origin) */
  remote?: string;
  /** when the remote branch moved: fetch it and apply the patch again onto it, up to this many times (0 to 100; default 0) */
  retries?: number;
  /** overwrite the remote branch whatever it holds (not with retries: a forced push never loses its lease) */
  force?: boolean;
}

/** The push option, checked: null for no push; `true` is a push to origin. */
export function readPushOption(fn: string, value: unknown): ApplyPushOptions | null {
  if (value === undefined || value === false) return null;
  if (value === true) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw usageError(`${fn}: options.push must be true or an object ({ remote, retries, force }), got ${describeValue(value)}`, { option: 'push' });
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!['remote', 'retries', 'force'].includes(key))
      throw usageError(`${fn}: options.push.${key} is not an option (remote, retries, force)`, { option: 'push', key });
  }
  const remote = optionalString(fn, 'push.remote', o.remote);
  const retries = optionalWholeNumber(fn, 'push.retries', o.retries, 0) ?? 0;
  if (retries > 100) throw usageError(`${fn}: options.push.retries must be at most 100, got ${retries}`, { option: 'push.retries' });
  const force = optionalBoolean(fn, 'push.force', o.force);
  if (force === true && retries > 0) {
    throw usageError(`${fn}: options.push.force and options.push.retries do not go together: a forced push overwrites, so it is never retried`, {
      option: 'push.force',
    });
  }
  return { remote, retries, force };
}

/** Throws `usage` before anything is committed when the push could not be made (see checkPushRemote). */
export async function checkApplyPush(place: Place, push: ApplyPushOptions, ref: string | undefined): Promise<void> {
  await checkPushRemote({ ...pushAt(place), ref, remote: push.remote });
}

/** The push after `result`, the apply of `patch` (the options it was applied with). */
export async function pushApplied(place: Place, push: ApplyPushOptions, result: TxResult, patch: CommandApplyOptions): Promise<PushJson> {
  const opts = { ...pushAt(place), remote: push.remote, ref: result.ref, force: push.force };
  // nothing new was committed: the lease is the remote-tracking ref, as for push alone
  if (result.commit === null) return pushBranch(opts);
  const built = { builtOn: result.parent, committed: [result.commit] };
  if ((push.retries ?? 0) > 0) return pushWithRetry({ ...opts, ...built, patches: [patch], retries: push.retries ?? 0 });
  return pushAfterApply({ ...opts, ...built });
}
