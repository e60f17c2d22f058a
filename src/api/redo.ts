// Library face of `patchtx redo`: what the last undo on the ref removed is brought back. The result
// is the object `patchtx redo --json` prints.
import { redoTransaction } from '../commands/undo.js';
import { undoJson, type UndoJson } from '../commands/results.js';
import { waitingForLocks } from '../commands/process.js';
import { optionalBoolean, optionalSeconds, optionalString, readOptionsObject } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export interface RedoOptions {
  /** the ref to redo on (default: the checked-out branch) */
  ref?: string;
  /** bring back an undone revert with a new commit even at the tip (never move the branch back) */
  revert?: boolean;
  /** seconds to wait for another transaction's lock instead of failing (`stale`) at once */
  wait?: number;
}

export async function redo(place: Place, options: RedoOptions = {}): Promise<UndoJson> {
  const o = readOptionsObject('redo', options, ['ref', 'revert', 'wait']);
  const ref = optionalString('redo', 'ref', o.ref);
  const revert = optionalBoolean('redo', 'revert', o.revert);
  const wait = optionalSeconds('redo', 'wait', o.wait) ?? 0;
  return settled(async () => undoJson(await waitingForLocks(wait, () => redoTransaction({ ...sessionAt(place), ref, revert }))));
}
