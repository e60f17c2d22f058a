// Library face of `patchtx apply`: a whole patch becomes exactly one commit, or nothing. The
// options are the command line's under their library names; the result is the object
// `patchtx apply --json` prints, with `pushed`, the object the push then prints, when `push` is
// given (apply-push.ts).
import { applyTransaction, type ApplyOptions as CommandApplyOptions } from '../commands/apply.js';
import { applyJson, diffOf, type ApplyJson } from '../commands/results.js';
import type { Limits } from '../patch/limits.js';
import { waitingForLocks } from '../commands/process.js';
import {
  optionalBoolean,
  optionalChoice,
  optionalSeconds,
  optionalString,
  optionalStringArray,
  readLimits,
  readOptionsObject,
  requirePatchText,
} from './args.js';
import { checkApplyPush, pushApplied, readPushOption, type ApplyPushOptions } from './apply-push.js';
import { sessionAt, settled, type Place } from './place.js';
import type { PushJson } from './push.js';

export interface ApplyOptions {
  /** commit onto this ref without touching the working tree or index (default: the checked-out branch) */
  ref?: string;
  /** the commit to apply onto (the ref must be there, or not exist yet) */
  base?: string;
  /** refuse (`stale`) unless the ref is at this commit */
  expectHead?: string;
  /** the commit message (default: generated from the changes) */
  message?: string;
  /** `Name <email>` (default: as git takes it from the configuration and environment) */
  author?: string;
  /** `Name <email>` (default: the configured committer) */
  committer?: string;
  /** trailers added to the message, each `KEY=VALUE` (or `KEY: VALUE`) */
  trailers?: string[];
  /** touched paths with uncommitted changes: refuse (`dirty`, the default), or include them in the commit */
  dirty?: 'refuse' | 'include';
  /** ambiguous matches, matches beyond trailing whitespace and overwrites by Add/Move are errors */
  strict?: boolean;
  /** apply the patch even when the tip was made from it (by default a success with nothing written) */
  allowReapply?: boolean;
  /** return the unified diff of the changes as `diff` */
  diff?: boolean;
  /** bounds on the patch and on matching work, each a positive whole number */
  limits?: Partial<Limits>;
  /** seconds to wait for another transaction's lock instead of failing (`stale`) at once */
  wait?: number;
  /** skip the commit-msg hook, as `git commit --no-verify` does */
  noVerify?: boolean;
  /** sign the commit (true) or not (false) whatever commit.gpgSign says */
  sign?: boolean;
}

const KEYS = [
  'ref',
  'base',
  'expectHead',
  'message',
  'author',
  'committer',
  'trailers',
  'dirty',
  'strict',
  'allowReapply',
  'diff',
  'limits',
  'wait',
  'noVerify',
  'sign',
] as const;

interface Checked {
  command: Omit<CommandApplyOptions, 'patchText' | 'check'>;
  diff: boolean;
  wait: number;
}

/** The options of apply and check, checked, as the command takes them. */
export function readApplyOptions(fn: string, options: unknown): Checked {
  const o = readOptionsObject(fn, options, KEYS);
  const diff = optionalBoolean(fn, 'diff', o.diff) === true;
  const command = {
    ref: optionalString(fn, 'ref', o.ref),
    base: optionalString(fn, 'base', o.base),
    expectHead: optionalString(fn, 'expectHead', o.expectHead),
    message: optionalString(fn, 'message', o.message),
    author: optionalString(fn, 'author', o.author),
    committer: optionalString(fn, 'committer', o.committer),
    trailers: optionalStringArray(fn, 'trailers', o.trailers),
    dirty: optionalChoice(fn, 'dirty', o.dirty, ['refuse', 'include'] as const),
    strict: optionalBoolean(fn, 'strict', o.strict),
    allowReapply: optionalBoolean(fn, 'allowReapply', o.allowReapply),
    limits: readLimits(fn, o.limits),
    noVerify: optionalBoolean(fn, 'noVerify', o.noVerify),
    sign: optionalBoolean(fn, 'sign', o.sign),
    withContents: diff,
  };
  return { command, diff, wait: optionalSeconds(fn, 'wait', o.wait) ?? 0 };
}

/** apply or check at `place`: the --json object of the command. */
export async function runApply(place: Place, fn: string, patchText: unknown, options: unknown, check: boolean): Promise<ApplyJson> {
  const text = requirePatchText(fn, patchText);
  const { command, diff, wait } = readApplyOptions(fn, options);
  return settled(async () => {
    const result = await waitingForLocks(wait, () => applyTransaction({ ...sessionAt(place), ...command, patchText: text, check }));
    return applyJson(result, diff ? diffOf(result.contents) : undefined);
  });
}

export interface ApplyAndPushOptions extends ApplyOptions {
  /** then push the branch and the patch text, as `apply --push` (true: to origin) */
  push?: boolean | ApplyPushOptions;
}

/** apply's result: with `push`, what the push printed as `pushed` */
export interface AppliedJson extends ApplyJson {
  pushed?: PushJson;
}

export async function apply(place: Place, patchText: string, options: ApplyAndPushOptions = {}): Promise<AppliedJson> {
  const { push: pushOption, ...rest } = readOptionsObject('apply', options, [...KEYS, 'push']);
  const push = readPushOption('apply', pushOption);
  if (push === null) return runApply(place, 'apply', patchText, rest, false);
  const text = requirePatchText('apply', patchText);
  const { command, diff, wait } = readApplyOptions('apply', rest);
  return settled(async () => {
    // a remote the push cannot go to is found before anything is committed
    await checkApplyPush(place, push, command.ref);
    const patch = { ...sessionAt(place), ...command, patchText: text, check: false };
    const result = await waitingForLocks(wait, () => applyTransaction(patch));
    const applied = applyJson(result, diff ? diffOf(result.contents) : undefined);
    return { ...applied, pushed: await pushApplied(place, push, result, patch) };
  });
}
