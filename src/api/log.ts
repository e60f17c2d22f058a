// Library face of `patchtx log`: the patchtx transactions on a ref, newest first, as the array
// `patchtx log --json` prints. Read-only: it never waits on, or finishes, another run.
import { listTransactions } from '../commands/log.js';
import { logJson, type LogEntryJson } from '../commands/results.js';
import { optionalString, optionalWholeNumber, readOptionsObject } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export interface LogOptions {
  /** the ref to list (default: the checked-out branch) */
  ref?: string;
  /** how many transactions to list at most (default 20, as the CLI) */
  maxCount?: number;
}

export async function log(place: Place, options: LogOptions = {}): Promise<LogEntryJson[]> {
  const o = readOptionsObject('log', options, ['ref', 'maxCount']);
  const ref = optionalString('log', 'ref', o.ref);
  const max = optionalWholeNumber('log', 'maxCount', o.maxCount, 1) ?? 20;
  return settled(async () => logJson(await listTransactions({ ...sessionAt(place), ref, max })));
}
