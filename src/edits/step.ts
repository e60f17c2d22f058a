// One step of a transaction, read into a Patch by what it is: edit operations (given as values),
// or text that is Aider SEARCH/REPLACE blocks, a unified diff (`diff --git`, or `---`/`+++`/`@@`),
// or else a V4A patch (so the V4A parser reports what is wrong with text that is none of them).
import { checkPatchSize, limitExceeded, limitsWith, type Limits } from '../patch/limits.js';
import { parsePatchInvocation, type ParsedInvocation } from '../patch/parse.js';
import type { Patch } from '../patch/types.js';
import { isAiderBlocks, parseAiderBlocks } from './aider.js';
import { opsPatch, readOps, type EditOp } from './ops.js';
import { isUnifiedDiff, parseUnifiedDiff } from './unified.js';

/** A step: patch text, or a list of edit operations. */
export type Step = string | { ops: readonly EditOp[] };

export type StepFormat = 'v4a' | 'unified' | 'aider' | 'ops';

/**
 * Each format is known by lines at the start of a line that the others only ever carry behind a
 * prefix (`+`, `-`, ` `): Aider's markers, then a unified diff's headers; anything else is V4A. So
 * a diff of a file holding `*** Begin Patch`, or a block editing a diff, is told right.
 */
export function stepFormat(step: Step): StepFormat {
  if (typeof step !== 'string') return 'ops';
  if (isAiderBlocks(step)) return 'aider';
  if (isUnifiedDiff(step)) return 'unified';
  return 'v4a';
}

/** `v4aOnly`: patch text is V4A whatever it looks like (apply_patch's grammar is Codex's). */
export function parseStep(step: Step, opts: { limits?: Partial<Limits>; pathsFromCwd?: boolean; v4aOnly?: boolean } = {}): ParsedInvocation {
  const format = opts.v4aOnly && typeof step === 'string' ? 'v4a' : stepFormat(step);
  const limits = limitsWith(opts.limits);
  if (format === 'ops') return { patch: bounded(opsPatch(readOps((step as { ops: readonly EditOp[] }).ops)), limits) };
  const text = step as string;
  if (format === 'v4a') return parsePatchInvocation(text, opts);
  checkPatchSize(text, limits);
  return { patch: bounded(format === 'unified' ? parseUnifiedDiff(text) : parseAiderBlocks(text), limits) };
}

/** The patch, held to the operations limit as a V4A patch is (counted in hunks). */
function bounded(patch: Patch, limits: Limits): Patch {
  if (patch.hunks.length <= limits.operations) return patch;
  const over = patch.hunks[limits.operations]!;
  const where = over.origin === undefined ? '' : `; operation ${over.origin.index} is over`;
  throw limitExceeded('operations', `there are more than ${limits.operations.toLocaleString('en-US')} operations${where}`, limits.operations, {
    ...(over.origin && { operation: over.origin.index }),
  });
}
