// How results and errors look: Codex's success summary for people (and for agents trained on it),
// one JSON object for machines (--json), unified diffs with colour when the terminal wants it.
import pc from 'picocolors';
import { exitCodeFor, isPatchtxError, PatchtxError } from '../errors.js';
import { unifiedDiff } from '../engine/diff.js';
import type { FileContents, TxResult } from '../tx/apply.js';

export interface Streams {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processStreams: Streams = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Codex groups its summary: every A line, then every M, then every D, each in patch order. */
export function codexSummary(summary: string[]): string {
  const ordered = ['A', 'M', 'D'].flatMap((op) => summary.filter((l) => l.startsWith(op + ' ')));
  return `Success. Updated the following files:\n${ordered.map((l) => l + '\n').join('')}`;
}

export function jsonResult(result: TxResult): Record<string, unknown> {
  return {
    ok: true,
    commit: result.commit,
    parent: result.parent,
    ref: result.ref,
    noop: result.noop,
    checked: result.checked,
    patchId: result.patchId,
    files: result.files.map((f) => ({ path: f.path, op: f.op, from: f.from ?? null })),
    warnings: result.warnings,
    ...(result.recovered ? { recovered: result.recovered } : {}),
  };
}

export function toError(e: unknown): PatchtxError {
  if (isPatchtxError(e)) return e;
  const err = e as Error;
  return new PatchtxError('internal', `internal error: ${err?.stack ?? String(e)}`);
}

export function jsonError(e: PatchtxError): Record<string, unknown> {
  const { kind, message, path, chunk, line, candidates, ...rest } = e.toJSON();
  return {
    ok: false,
    error: { kind, message, path: path ?? null, chunk: chunk ?? null, line: line ?? null, candidates: candidates ?? [], ...rest },
  };
}

export function printError(streams: Streams, e: PatchtxError, json: boolean): number {
  if (json) streams.out(JSON.stringify(jsonError(e)) + '\n');
  else streams.err(`${colours().red('error:')} ${e.message}\n`);
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
  return process.stdout.isTTY === true;
}

/** Decided per call, from the environment as it is now (picocolors' default decides once, at import). */
const colours = () => pc.createColors(useColour());

export function colourDiff(text: string): string {
  if (!useColour()) return text;
  const pc = colours();
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

export function renderDiffs(contents: FileContents[]): string {
  return contents.map((c) => colourDiff(unifiedDiff(c.path, c.before, c.after, c.from))).join('');
}

export function printApplied(streams: Streams, result: TxResult, opts: { json: boolean; diff: boolean }): void {
  if (opts.json) {
    streams.out(JSON.stringify(jsonResult(result)) + '\n');
    return;
  }
  for (const w of result.warnings) streams.err(`warning: ${w.message}\n`);
  if (result.noop) {
    streams.out(`Nothing to commit: the patch leaves ${result.ref} unchanged.\n`);
    return;
  }
  streams.out(codexSummary(result.summary));
  if (opts.diff && result.contents) streams.out(renderDiffs(result.contents));
  const short = result.commit!.slice(0, 7);
  const branch = result.ref.replace(/^refs\/heads\//, '');
  streams.out(result.checked ? `Check passed: would commit ${short} on ${branch}.\n` : `[${branch} ${short}] committed\n`);
}
