// Library face of `patchtx check`: the whole pipeline of apply, nothing written. The result is the
// object `patchtx check --json` prints (`commit` null, `wouldCommit` the id it would have).
import type { ApplyJson } from '../commands/results.js';
import { runApply, type ApplyOptions } from './apply.js';
import type { Place } from './place.js';

export async function check(place: Place, patchText: string, options: ApplyOptions = {}): Promise<ApplyJson> {
  return runApply(place, 'check', patchText, options, true);
}
