// Library face of `patchtx undo`: the newest patchtx transaction on the ref (or the one named) is
// taken back, by moving the ref back when it is the tip, else with a revert commit. The result is
// the object `patchtx undo --json` prints.
import { undoTransaction } from '../commands/undo.js';
import { undoJson, type UndoJson } from '../commands/results.js';
import { waitingForLocks } from '../commands/process.js';
import { optionalBoolean, optionalSeconds, optionalString, readOptionsObject } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export interface UndoOptions {
  /** the patchtx commit to undo (default: the newest one on the ref) */
  commit?: string;
  /** the ref to undo on (default: the checked-out branch) */
  ref?: string;
  /** make a revert commit even for the tip (never move the branch back) */
  revert?: boolean;
  /** seconds to wait for another transaction's lock instead of failing (`stale`) at once */
  wait?: number;
}

export async function undo(place: Place, options: UndoOptions = {}): Promise<UndoJson> {
  const o = readOptionsObject('undo', options, ['commit', 'ref', 'revert', 'wait']);
  const commit = optionalString('undo', 'commit', o.commit);
  const ref = optionalString('undo', 'ref', o.ref);
  const revert = optionalBoolean('undo', 'revert', o.revert);
  const wait = optionalSeconds('undo', 'wait', o.wait) ?? 0;
  return settled(async () => undoJson(await waitingForLocks(wait, () => undoTransaction({ ...sessionAt(place), ref, commit, revert }))));
}
