// One apply_patch operation of the Responses API or the Agents SDK (`create_file`, `update_file`,
// `delete_file`, with a headerless V4A `diff`) as the patch of one step of a transaction, and the
// words its result is reported to the model in. The checks on the diff are the replay's
// (src/logs/responses-items.ts): envelope or section lines inside it are refused, so an update of
// one file cannot add, move or delete another.
import type { ApplyJson } from '../commands/results.js';
import { PatchtxError } from '../errors.js';
import { BEGIN_PATCH, END_PATCH } from '../patch/grammar.js';
import { operationOf, patchOfOperation, type PatchOperation } from '../logs/responses-items.js';

/** An operation as the Responses API (`move_to`) or the Agents SDK (`moveTo`) spells it. */
export type ApplyPatchOperation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string; move_to?: string; moveTo?: string }
  | { type: 'delete_file'; path: string };

/**
 * The V4A patch of `operation`. Throws `parse_error` for an operation that is not one, or whose
 * diff carries an envelope or section line; `path_rejected` for a path with a line break in it.
 */
export function patchOf(operation: unknown, where: string): { op: PatchOperation; patch: string; headerLines: number } {
  const op = operationOf({ operation });
  if (op === null) {
    throw new PatchtxError('parse_error', `${where}: the operation must be {type: create_file|update_file|delete_file, path, diff} with a non-empty path`, {});
  }
  for (const p of [op.path, op.moveTo]) {
    // a line break in a path would end the header line it is written on
    if (p !== undefined && /[\r\n]/.test(p)) {
      throw new PatchtxError('path_rejected', `${where}: the path ${JSON.stringify(p)} has a line break in it`, { path: p });
    }
  }
  const headerLines = op.type === 'update_file' && op.moveTo ? 3 : 2;
  return { op, patch: patchOfOperation(op, where), headerLines };
}

/**
 * The patches of several operations (each a whole patch, as patchOf makes it) as one patch: their
 * sections in order inside one envelope.
 */
export function onePatch(patches: readonly string[]): string {
  const sections = patches.map((patch) => patch.slice(`${BEGIN_PATCH}\n`.length, patch.length - `${END_PATCH}\n`.length));
  return `${BEGIN_PATCH}\n${sections.join('')}${END_PATCH}\n`;
}

/**
 * A message about the patch made from an operation, told in the lines of the operation's diff
 * (the model wrote the diff, not the patch around it): `patch line N` and a parse error's
 * `on line N` become `line N - headerLines of the diff`; a line of the header is the path.
 */
export function inDiffLines(message: string, headerLines: number): string {
  const diffLine = (n: number): string => (n > headerLines ? `line ${n - headerLines} of the diff` : "the operation's path");
  return message
    .replace(/\bpatch line (\d+)/g, (_, n: string) => diffLine(Number(n)))
    .replace(/^Invalid patch hunk on line (\d+): /, (_, n: string) =>
      Number(n) > headerLines ? `Invalid diff, line ${Number(n) - headerLines}: ` : 'Invalid operation: ',
    );
}

/** An error of the patch made from an operation, in the lines of the diff (see inDiffLines). */
export function inDiffTerms(e: unknown, headerLines: number): unknown {
  if (!(e instanceof PatchtxError)) return e;
  const message = inDiffLines(e.message, headerLines);
  if (message === e.message) return e;
  const data = { ...e.data } as Record<string, unknown>;
  if (typeof data.line === 'number') {
    if (data.line > headerLines) data.line = data.line - headerLines;
    else delete data.line;
  }
  return new PatchtxError(e.kind, message, data as never);
}

/** What a step did, in one line for the model; then a line per warning the step added. */
export function describeStep(op: PatchOperation, headerLines: number, warnings: ApplyJson['warnings'] = []): string {
  const did =
    op.type === 'create_file'
      ? `Created ${op.path}`
      : op.type === 'delete_file'
        ? `Deleted ${op.path}`
        : op.moveTo && op.moveTo !== op.path
          ? `Updated ${op.path} and moved it to ${op.moveTo}`
          : `Updated ${op.path}`;
  return [did, ...warnings.map((w) => `Warning: ${inDiffLines(w.message, headerLines)}`)].join('\n');
}

/** The message of an expected failure: a PatchtxError's. Anything else is a bug and is thrown on. */
export function failureText(e: unknown): string {
  if (e instanceof PatchtxError && e.kind !== 'usage' && e.kind !== 'internal') return e.message;
  throw e;
}
