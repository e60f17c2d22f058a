// Library face of `patchtx apply --ops`: a list of edit operations (str_replace, insert, create,
// delete, move; see src/edits) applied in order as exactly one commit, or nothing. The options are
// apply's, with `check` for a run that writes nothing; the result is what `--json` prints.
import { applyTransaction } from '../commands/apply.js';
import { applyJson, diffOf, type ApplyJson } from '../commands/results.js';
import { readOps, type EditOp } from '../edits/ops.js';
import { waitingForLocks } from '../commands/process.js';
import { readApplyOptions, type ApplyOptions } from './apply.js';
import { optionalBoolean, readOptionsObject } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export interface EditOptions extends ApplyOptions {
  /** run everything, write nothing (as `check` does for a patch) */
  check?: boolean;
}

export async function edit(place: Place, ops: EditOp | readonly EditOp[], options: EditOptions = {}): Promise<ApplyJson> {
  const list = await settled(async () => readOps(ops));
  const { check, ...rest } = readOptionsObject('edit', options, ['check', ...Object.keys(options ?? {})]) as EditOptions;
  const checkOnly = optionalBoolean('edit', 'check', check) === true;
  const { command, diff, wait } = readApplyOptions('edit', rest);
  return settled(async () => {
    const result = await waitingForLocks(wait, () =>
      applyTransaction({ ...sessionAt(place), ...command, patchText: '', steps: [{ ops: list }], check: checkOnly }),
    );
    return applyJson(result, diff ? diffOf(result.contents) : undefined);
  });
}
