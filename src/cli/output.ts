// How results and errors look: Codex's success summary for people (and for agents trained on it),
// one JSON object for machines (--json, shaped in commands/results.ts, which the library returns
// too), unified diffs with colour when the terminal wants it.
import { exitCodeFor, type PatchtxError } from '../errors.js';
import type { FileContents, TxResult } from '../commands/apply.js';
import { applyJson, diffOf } from '../commands/results.js';
import { toError } from '../commands/to-error.js';
import type { RecoveryReport } from '../commands/recover.js';
import { unifiedDiff } from '../commands/shown.js';
import { isTerminal, writeToFd } from './stdio.js';

export interface Streams {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processStreams: Streams = {
  out: (t) => writeToFd(1, t),
  err: (t) => writeToFd(2, t),
};

/** Codex groups its summary: every A line, then every M, then every D, each in patch order. */
export function codexSummary(summary: string[]): string {
  const ordered = ['A', 'M', 'D'].flatMap((op) => summary.filter((l) => l.startsWith(op + ' ')));
  return `Success. Updated the following files:\n${ordered.map((l) => l + '\n').join('')}`;
}

export { toError };

/** The stack of an internal error, on request only (PATCHTX_DEBUG=1): users get the one line. */
function debugStack(e: PatchtxError): string {
  return e.kind === 'internal' && process.env.PATCHTX_DEBUG === '1' && e.stack ? `${e.stack}\n` : '';
}

export function jsonError(e: PatchtxError): Record<string, unknown> {
  const { kind, message, path, chunk, line, candidates, ...rest } = e.toJSON();
  return {
    ok: false,
    error: { kind, message, path: path ?? null, chunk: chunk ?? null, line: line ?? null, candidates: candidates ?? [], ...rest },
  };
}

export async function printError(streams: Streams, e: PatchtxError, json: boolean): Promise<number> {
  if (json) streams.out(JSON.stringify(jsonError(e)) + '\n');
  else {
    if (e.data.recovered) printRecoveryNote(streams, e.data.recovered as RecoveryReport);
    streams.err(`${useColour() ? (await colours()).red('error:') : 'error:'} ${e.message}\n${debugStack(e)}`);
  }
  return exitCodeFor(e.kind);
}

/**
 * NO_COLOR (any non-empty value, see no-color.org) always wins; FORCE_COLOR (other than 0/false)
 * turns colour on without a terminal; otherwise colour only when stdout is a terminal.
 */
export function useColour(): boolean {
  const { NO_COLOR, FORCE_COLOR } = process.env;
  if (NO_COLOR !== undefined && NO_COLOR !== '') return false;
  if (FORCE_COLOR !== undefined) return FORCE_COLOR !== '0' && FORCE_COLOR.toLowerCase() !== 'false';
  return isTerminal(1);
}

/**
 * picocolors, loaded only when there is colour to show: on loading, it looks at process.stdout to
 * pick its default, and creating that stream loads Node's net and tty modules (see stdio.ts).
 * Whether to colour is decided per call by useColour, from the environment as it is now.
 */
async function colours(): Promise<ReturnType<typeof import('picocolors').createColors>> {
  const pc = await import('picocolors');
  return (pc.default ?? pc).createColors(true);
}

export async function colourDiff(text: string): Promise<string> {
  if (!useColour()) return text;
  const pc = await colours();
  return text
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? pc.bold(l)
        : l.startsWith('+')
          ? pc.green(l)
          : l.startsWith('-')
            ? pc.red(l)
            : l.startsWith('@@')
              ? pc.cyan(l)
              : l,
    )
    .join('\n');
}

export async function renderDiffs(contents: FileContents[]): Promise<string> {
  const diffs: string[] = [];
  for (const c of contents) diffs.push(await colourDiff(unifiedDiff(c.path, c.before, c.after, c.from)));
  return diffs.join('');
}

export async function printApplied(streams: Streams, result: TxResult, opts: { json: boolean; diff: boolean }): Promise<void> {
  if (opts.json) {
    streams.out(JSON.stringify(applyJson(result, opts.diff ? diffOf(result.contents) : undefined)) + '\n');
    return;
  }
  if (result.recovered) printRecoveryNote(streams, result.recovered);
  for (const w of result.warnings) streams.err(`warning: ${w.message}\n`);
  if (result.alreadyApplied !== undefined) {
    streams.out(`${alreadyAppliedText(result)}\n`);
    return;
  }
  if (result.noop) {
    streams.out(`Nothing to commit: the patch leaves ${result.ref} unchanged.\n`);
    return;
  }
  streams.out(codexSummary(result.summary));
  if (opts.diff && result.contents) streams.out(await renderDiffs(result.contents));
  const short = result.commit?.slice(0, 7);
  const branch = result.ref.replace(/^refs\/heads\//, '');
  // a check whose commit gets its id only when made (signed, or through hooks) names none
  const as = short === undefined ? '' : ` as ${short}`;
  streams.out(result.checked ? `Check passed: the patch would commit${as} on ${branch} (nothing of it was written).\n` : `[${branch} ${short}] committed\n`);
}

/** A re-run of the patch the tip was made from. */
export function alreadyAppliedText(result: TxResult): string {
  const branch = result.ref.replace(/^refs\/heads\//, '');
  return `Nothing to commit: the patch is already applied (${branch} is at ${result.alreadyApplied!.slice(0, 7)}, made from this patch).`;
}

/** On stderr: what recovery of an earlier run did before this command, and its warnings. */
export function printRecoveryNote(streams: Streams, report: RecoveryReport): void {
  for (const one of recoveredRuns(report)) {
    const r = recoveryText(one);
    streams.err(`note: ${r.line}\n${r.warnings.map((w) => `warning: ${w}\n`).join('')}`);
  }
}

/** Each interrupted run a recovery report covers (several when journals of other refs were left too). */
export const recoveredRuns = (report: RecoveryReport): RecoveryReport[] => [report, ...(report.also ?? [])];

/** What recovery did, in a line, and its warnings. A journal that was never written names no transaction. */
export function recoveryText(report: RecoveryReport): { line: string; warnings: string[] } {
  const line =
    report.ref === undefined
      ? 'recovered an interrupted run: nothing had been written'
      : `recovered an interrupted ${report.op ?? 'transaction'} on ${report.ref}: ${report.outcome === 'finished' ? finishedText(report.ref, report.commit) : 'it had not landed and was dropped'}`;
  return { line, warnings: report.warnings.map((w) => w.message) };
}

/** Where a finished run left the ref: its commit, or (the undo of a first commit) no commit at all. */
function finishedText(ref: string, commit: string | null | undefined): string {
  return commit === null ? `finished (${ref.replace(/^refs\/heads\//, '')} has no commits again)` : `finished ${commit}`;
}
