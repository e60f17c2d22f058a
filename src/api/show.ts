// Library face of `patchtx show`: the patch text a transaction was made from (kept as a git note),
// as the command prints it; with `regenerate`, for a patchtx commit whose note is missing, one made
// from its diff (record() says whether it was). Read-only.
import { showOrRegenerate, showPatch } from '../commands/show.js';
import { describeValue, optionalBoolean, readOptionsObject, usageError } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export interface ShowOptions {
  /** a commit without a stored patch text gets one made from its diff against its first parent
   * (`patchtx show --regenerate`): it makes the same change, but is not the text that was applied */
  regenerate?: boolean;
}

/** The commit argument of show() and record(), checked. */
export function commitArgument(fn: string, commit: unknown): string {
  if (typeof commit !== 'string' || commit === '') {
    throw usageError(
      `${fn}: the commit must be a non-empty string (a revision), got ${typeof commit === 'string' ? 'an empty string' : describeValue(commit)}`,
    );
  }
  return commit;
}

/** The regenerate option of show() and record(), checked. */
export function regenerateOption(fn: string, options: unknown): boolean {
  const o = readOptionsObject(fn, options, ['regenerate']);
  return optionalBoolean(fn, 'regenerate', o.regenerate) ?? false;
}

export async function show(place: Place, commit: string, options?: ShowOptions): Promise<string> {
  const rev = commitArgument('show', commit);
  const regenerate = regenerateOption('show', options);
  return settled(async () =>
    regenerate ? (await showOrRegenerate({ ...sessionAt(place), commit: rev })).text : showPatch({ ...sessionAt(place), commit: rev }),
  );
}
