// applyResponseItems: the apply_patch_call items of a Responses API output list, applied to a
// repository, answered by one apply_patch_call_output per call, in order, ready to be sent back.
// By default the calls of the list are one transaction and one commit, or nothing: when a call
// fails, the failing call gets its error and every other call is told it was not applied because
// of that one. With `commit: 'call'` each call is its own transaction and commit, as the SDK's own
// editors apply them, and a failed call does not stop the calls after it. With `commit: 'none'` the
// calls are checked as one transaction would check them and then written to the working tree only,
// all or none, as the SDK's own editors write files: no commit, the index untouched.
import type { Repository } from '../api/openRepository.js';
import type { Transaction } from '../api/begin.js';
import type { ApplyJson } from '../commands/results.js';
import { usageError } from '../api/args.js';
import { applyToDirectory } from '../commands/apply-plain.js';
import type { PatchOperation } from '../logs/responses-items.js';
import { describeStep, failureText, inDiffTerms, onePatch, patchOf, type ApplyPatchOperation } from './operation.js';
import { readSurfaceOptions, trailersFor, type ReadSurface, type SurfaceOptions } from './options.js';

/** An apply_patch_call item of a response's output (`callId`, as the Agents SDK spells it, is read too). */
export interface ApplyPatchCallItem {
  type: 'apply_patch_call';
  call_id: string;
  status?: string;
  operation: ApplyPatchOperation;
}

/** The answer to one apply_patch_call, as the Responses API takes it back. */
export interface ApplyPatchCallOutputItem {
  type: 'apply_patch_call_output';
  call_id: string;
  status: 'completed' | 'failed';
  output: string;
}

export interface ApplyResponseItemsOptions extends SurfaceOptions {
  /**
   * `response` (the default): every call of the list in one commit, or none; `call`: a commit per
   * call; `none`: the files written to the working tree, all or none, and nothing committed
   */
  commit?: 'response' | 'call' | 'none';
}

interface Call {
  callId: string;
  operation: unknown;
  /** the call's position among the items, 1-based, for messages */
  item: number;
}

/**
 * Applies every apply_patch_call of `items` (other items are passed over) and returns one
 * apply_patch_call_output per call, in order. Expected failures (a diff that does not apply, a
 * malformed operation, a stale or dirty repository) are `failed` outputs; a wrong argument or
 * option is thrown as `usage`.
 */
export async function applyResponseItems(
  repo: Repository,
  items: readonly unknown[],
  options?: ApplyResponseItemsOptions,
): Promise<ApplyPatchCallOutputItem[]> {
  const opts = readSurfaceOptions('applyResponseItems', options, 'commit', ['response', 'call', 'none'] as const);
  const calls = callsOf(items);
  if (opts.grouping === 'none' && repo.workdir === null)
    throw usageError("applyResponseItems: commit: 'none' writes the working tree, and this repository has none");
  if (calls.length === 0) return [];
  if (opts.grouping === 'none') return worktreeOnly(repo, repo.workdir!, calls, opts);
  return opts.grouping === 'call' ? callByCall(repo, calls, opts) : allOrNothing(repo, calls, opts);
}

function callsOf(items: readonly unknown[]): Call[] {
  if (!Array.isArray(items)) throw usageError('applyResponseItems: items must be an array of Responses output items');
  const calls: Call[] = [];
  items.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || (item as { type?: unknown }).type !== 'apply_patch_call') return;
    const it = item as Record<string, unknown>;
    const callId = typeof it.call_id === 'string' ? it.call_id : it.callId;
    if (typeof callId !== 'string' || callId === '') throw usageError(`applyResponseItems: item ${i + 1} is an apply_patch_call without a call_id`);
    calls.push({ callId, operation: it.operation, item: i + 1 });
  });
  return calls;
}

const output = (call: Call, status: 'completed' | 'failed', text: string): ApplyPatchCallOutputItem => ({
  type: 'apply_patch_call_output',
  call_id: call.callId,
  status,
  output: text,
});

const where = (call: Call): string => `apply_patch_call ${call.callId}`;

interface Done {
  op: PatchOperation;
  patch: string;
  headerLines: number;
  warnings: ApplyJson['warnings'];
}

/**
 * Every call as a step of `tx`, in order: what each did, or, at the first failure (the transaction
 * then aborted), the outputs of all the calls, the failing one with its error.
 */
async function stepAll(tx: Transaction, calls: Call[]): Promise<{ done: Done[] } | { failed: ApplyPatchCallOutputItem[] }> {
  const done: Done[] = [];
  let seen = 0;
  for (const call of calls) {
    try {
      const { op, patch, headerLines } = patchOf(call.operation, where(call));
      const result = await tx.apply(patch).catch((e: unknown) => {
        throw inDiffTerms(e, headerLines);
      });
      done.push({ op, patch, headerLines, warnings: result.warnings.slice(seen) });
      seen = result.warnings.length;
    } catch (e) {
      const text = failureText(e);
      tx.abort();
      const failed = calls.map((other, k) =>
        other === call
          ? output(call, 'failed', text)
          : output(
              other,
              'failed',
              `Not applied: call ${call.callId} of the same response failed, and its calls are applied together or not at all${k < done.length ? '' : ' (this call was not tried)'}.`,
            ),
      );
      return { failed };
    }
  }
  return { done };
}

/** One transaction for all calls: the first failure stops it, and nothing is written. */
async function allOrNothing(repo: Repository, calls: Call[], opts: ReadSurface<string>): Promise<ApplyPatchCallOutputItem[]> {
  let tx: Transaction;
  try {
    tx = await repo.begin(opts.begin);
  } catch (e) {
    const text = `Not applied: ${failureText(e)}`;
    return calls.map((call) => output(call, 'failed', text));
  }
  const stepped = await stepAll(tx, calls);
  // a response sent again whose commit is the tip fails as steps: it is found applied as one patch
  if ('failed' in stepped) return (await appliedAsOne(repo, calls, opts)) ?? stepped.failed;
  const { done } = stepped;
  let committed: ApplyJson;
  try {
    committed = await tx.commit({
      ...opts.commit,
      trailers: trailersFor(
        opts.commit,
        calls.map((c) => c.callId),
      ),
    });
  } catch (e) {
    const text = `Not applied: the commit of the response's calls failed: ${failureText(e)}`;
    tx.abort();
    return calls.map((call) => output(call, 'failed', text));
  }
  // found applied, the steps were checked on the files their own commit left: what that said is not news
  const warningsOf = (k: number): ApplyJson['warnings'] => (committed.alreadyApplied ? [] : done[k]!.warnings);
  return calls.map((call, k) => output(call, 'completed', withCommit(describeStep(done[k]!.op, done[k]!.headerLines, warningsOf(k)), committed)));
}

/**
 * The outputs of a response sent again whose commit is the tip, or null. Its calls are steps that
 * each see the ones before, so on the files the commit left a later call of the same file fails
 * on its own; the calls taken together as one patch are found applied as the commit's Patch-Id.
 */
async function appliedAsOne(repo: Repository, calls: Call[], opts: ReadSurface<string>): Promise<ApplyPatchCallOutputItem[] | null> {
  if (calls.length < 2) return null;
  let tx: Transaction | undefined;
  try {
    const parts = calls.map((call) => patchOf(call.operation, where(call)));
    tx = await repo.begin(opts.begin);
    const result = await tx.apply(onePatch(parts.map((part) => part.patch)));
    if (!result.alreadyApplied) return null;
    return calls.map((call, k) => output(call, 'completed', withCommit(describeStep(parts[k]!.op, parts[k]!.headerLines, []), result)));
  } catch {
    return null;
  } finally {
    if (tx !== undefined) abortQuietly(tx);
  }
}

/**
 * The calls checked as the steps of one transaction (uncommitted edits of the files taken in, as
 * the files are the working tree's), which is then dropped, and written to the working tree as one
 * patch: planned whole in memory again from the files as they are then, and written only when all
 * of it applies (each file by a write to a temporary file and a rename).
 */
async function worktreeOnly(repo: Repository, workdir: string, calls: Call[], opts: ReadSurface<string>): Promise<ApplyPatchCallOutputItem[]> {
  let tx: Transaction;
  try {
    tx = await repo.begin({ ...opts.begin, dirty: 'include' });
  } catch (e) {
    const text = `Not applied: ${failureText(e)}`;
    return calls.map((call) => output(call, 'failed', text));
  }
  const stepped = await stepAll(tx, calls);
  if ('failed' in stepped) return stepped.failed;
  const { done } = stepped;
  abortQuietly(tx);
  try {
    await applyToDirectory(workdir, onePatch(done.map((d) => d.patch)), '', opts.begin.limits, opts.begin.dialect);
  } catch (e) {
    const text = `Not applied: writing the response's calls to the working tree failed: ${failureText(e)}`;
    return calls.map((call) => output(call, 'failed', text));
  }
  const said = ' (written to the working tree, not committed)';
  return calls.map((call, k) => {
    // uncommitted edits are what the working tree holds here, not news about a commit
    const warnings = done[k]!.warnings.filter((w) => w.kind !== 'dirty_included');
    const [first, ...rest] = describeStep(done[k]!.op, done[k]!.headerLines, warnings).split('\n');
    return output(call, 'completed', [`${first}${said}`, ...rest].join('\n'));
  });
}

/** A transaction and a commit per call; each call's outcome is its own. */
async function callByCall(repo: Repository, calls: Call[], opts: ReadSurface<string>): Promise<ApplyPatchCallOutputItem[]> {
  const out: ApplyPatchCallOutputItem[] = [];
  for (const call of calls) {
    let tx: Transaction | undefined;
    try {
      const { op, patch, headerLines } = patchOf(call.operation, where(call));
      tx = await repo.begin(opts.begin);
      const result = await tx.apply(patch).catch((e: unknown) => {
        throw inDiffTerms(e, headerLines);
      });
      const committed = await tx.commit({ ...opts.commit, trailers: trailersFor(opts.commit, [call.callId]) });
      out.push(output(call, 'completed', withCommit(describeStep(op, headerLines, result.warnings), committed)));
    } catch (e) {
      const text = failureText(e);
      if (tx !== undefined) abortQuietly(tx);
      out.push(output(call, 'failed', text));
    }
  }
  return out;
}

/** The commit a result landed in, said on its first line; a re-sent response whose commit is the tip writes nothing. */
export function withCommit(text: string, result: ApplyJson): string {
  const said = result.alreadyApplied
    ? `already applied: commit ${result.alreadyApplied.slice(0, 12)}`
    : result.commit === null
      ? 'no change'
      : `commit ${result.commit.slice(0, 12)}`;
  const [first, ...rest] = text.split('\n');
  return [`${first} (${said})`, ...rest].join('\n');
}

/** abort() of a transaction that may already have ended (committed, or aborted) */
export function abortQuietly(tx: Transaction): void {
  try {
    tx.abort();
  } catch {
    // it had ended: nothing to drop
  }
}
