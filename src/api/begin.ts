// A transaction of several steps: `repo.begin()` returns an object whose apply(patchText) steps each
// see the results of the steps before, in memory, and whose commit() lands them all as one commit
// through the same transaction as a single apply (the steps' hunks, in order, are one patch). A
// step is checked when it is given, over the ref's commit as begin() found it; a step that fails
// throws and is not kept, so the transaction is as it was before it. Nothing is written before
// commit(); abort() ends the transaction without writing. edit(ops) adds a step of edit
// operations (str_replace, insert, create, delete, move; src/edits), and apply() takes a unified
// diff or Aider blocks as well as V4A.
import { applyTransaction, type ApplyOptions as CommandApplyOptions } from '../commands/apply.js';
import { applyJson, diffOf, type ApplyJson } from '../commands/results.js';
import type { Dialect } from '../engine/types.js';
import type { Limits } from '../patch/limits.js';
import { beginPoint } from '../commands/begin.js';
import { optionalBoolean, optionalChoice, optionalString, optionalStringArray, readLimits, readOptionsObject, requirePatchText, usageError } from './args.js';
import { sessionAt, settled, type Place } from './place.js';
import { readOps, type EditOp } from '../edits/ops.js';
import type { Step } from '../edits/step.js';

export interface BeginOptions {
  /** commit onto this ref without touching the working tree or index (default: the checked-out branch) */
  ref?: string;
  /** the commit to apply onto (the ref must be there, or not exist yet) */
  base?: string;
  /** touched paths with uncommitted changes: refuse (`dirty`, the default), or include them in the commit */
  dirty?: 'refuse' | 'include';
  /** ambiguous matches, matches beyond trailing whitespace and overwrites by Add/Move are errors */
  strict?: boolean;
  /** bounds on each step's patch and on the matching work of all steps, each a positive whole number */
  limits?: Partial<Limits>;
  /** whose final-newline rules the steps follow: `codex` (the default) or `agents-sdk` (see docs/openai.md) */
  dialect?: Dialect;
}

export interface CommitOptions {
  /** the commit message (default: generated from the changes) */
  message?: string;
  /** `Name <email>` (default: as git takes it from the configuration and environment) */
  author?: string;
  /** `Name <email>` (default: the configured committer) */
  committer?: string;
  /** trailers added to the message, each `KEY=VALUE` (or `KEY: VALUE`) */
  trailers?: string[];
  /** refuse (`stale`) unless the ref is at this commit (default: where begin() found it) */
  expectHead?: string;
}

export interface Transaction {
  /** the ref's commit when the transaction began (null: the ref had no commit yet) */
  readonly head: string | null;
  /** the steps kept so far */
  readonly steps: number;
  /** add a step; returns what preview() would, without the diff. A failing step throws and is not kept. */
  apply(patchText: string): Promise<ApplyJson>;
  /**
   * add a step of edit operations (one, or a list applied in order); a failing operation throws,
   * naming its index, and the whole step is not kept
   */
  edit(ops: EditOp | readonly EditOp[]): Promise<ApplyJson>;
  /** the changes of the steps so far, as one commit would make them, with their unified diff */
  preview(): Promise<ApplyJson>;
  /** land every step as one commit */
  commit(options?: CommitOptions): Promise<ApplyJson>;
  /** end the transaction; nothing is written */
  abort(): void;
}

type State = 'open' | 'committing' | 'committed' | 'aborted';

const ENDED: Record<Exclude<State, 'open'>, string> = {
  committing: 'is being committed',
  committed: 'is committed',
  aborted: 'was aborted',
};

function readBeginOptions(options: unknown): Omit<CommandApplyOptions, 'patchText'> {
  const fn = 'begin';
  const o = readOptionsObject(fn, options, ['ref', 'base', 'dirty', 'strict', 'limits', 'dialect']);
  return {
    ref: optionalString(fn, 'ref', o.ref),
    base: optionalString(fn, 'base', o.base),
    dirty: optionalChoice(fn, 'dirty', o.dirty, ['refuse', 'include'] as const),
    strict: optionalBoolean(fn, 'strict', o.strict),
    limits: readLimits(fn, o.limits),
    dialect: optionalChoice(fn, 'dialect', o.dialect, ['codex', 'agents-sdk'] as const),
  };
}

function readCommitOptions(options: unknown): Partial<CommandApplyOptions> {
  const fn = 'commit';
  const o = readOptionsObject(fn, options, ['message', 'author', 'committer', 'trailers', 'expectHead']);
  return {
    message: optionalString(fn, 'message', o.message),
    author: optionalString(fn, 'author', o.author),
    committer: optionalString(fn, 'committer', o.committer),
    trailers: optionalStringArray(fn, 'trailers', o.trailers),
    expectHead: optionalString(fn, 'expectHead', o.expectHead),
  };
}

export async function begin(place: Place, options: BeginOptions = {}): Promise<Transaction> {
  const opts = readBeginOptions(options);
  // where the ref is now: every step is checked there, and commit() lands only there
  const { head, pin } = await settled(() => beginPoint(sessionAt(place), opts.ref, opts.base));
  const pinned: Omit<CommandApplyOptions, 'patchText'> = { ...opts, ...pin };
  const steps: Step[] = [];
  let state: State = 'open';
  // one call at a time: a step is checked against the steps kept before it
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };
  const requireOpen = (call: string): void => {
    if (state !== 'open') throw usageError(`${call}: the transaction ${ENDED[state]}; begin a new one`, { reason: state });
  };
  /** the steps as one check: the result a commit would have, computed without writing */
  const check = (all: Step[], withContents: boolean): Promise<ApplyJson> =>
    settled(async () => {
      const result = await applyTransaction({ ...sessionAt(place), ...pinned, patchText: '', steps: all, check: true, withContents });
      return applyJson(result, withContents ? diffOf(result.contents) : undefined);
    });

  return {
    head,
    get steps() {
      return steps.length;
    },
    apply: (patchText: string) =>
      serial(async () => {
        requireOpen('apply');
        const text = requirePatchText('apply', patchText);
        const result = await check([...steps, text], false);
        steps.push(text);
        return result;
      }),
    edit: (ops: EditOp | readonly EditOp[]) =>
      serial(async () => {
        requireOpen('edit');
        const step: Step = { ops: await settled(async () => readOps(ops)) };
        const result = await check([...steps, step], false);
        steps.push(step);
        return result;
      }),
    preview: () =>
      serial(async () => {
        requireOpen('preview');
        if (steps.length === 0) throw usageError('preview: the transaction has no steps yet');
        return check(steps, true);
      }),
    commit: (commitOptions?: CommitOptions) =>
      serial(async () => {
        requireOpen('commit');
        const extra = readCommitOptions(commitOptions);
        if (steps.length === 0) throw usageError('commit: the transaction has no steps: there is nothing to commit');
        // abort() now would come too late to keep the commit from landing
        state = 'committing';
        const result = await settled(() =>
          applyTransaction({
            ...sessionAt(place),
            ...pinned,
            ...extra,
            expectHead: extra.expectHead ?? pinned.expectHead,
            patchText: '',
            steps,
          }),
        ).catch((e: unknown) => {
          state = 'open';
          throw e;
        });
        state = 'committed';
        return applyJson(result);
      }),
    abort: () => {
      requireOpen('abort');
      state = 'aborted';
    },
  };
}
