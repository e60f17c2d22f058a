// Library face of `patchtx show`: the patch text a transaction was made from (kept as a git note),
// as the command prints it. Read-only.
import { showPatch } from '../commands/show.js';
import { describeValue, usageError } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export async function show(place: Place, commit: string): Promise<string> {
  if (typeof commit !== 'string' || commit === '') {
    throw usageError(`show: the commit must be a non-empty string (a revision), got ${typeof commit === 'string' ? 'an empty string' : describeValue(commit)}`);
  }
  return settled(() => showPatch({ ...sessionAt(place), commit }));
}
