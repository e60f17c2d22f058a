// Timing marks: where a transaction's time goes, phase by phase, for the benchmark (bench/). Off
// unless PATCHTX_TIMING is set: then each transaction writes one JSON line when it ends, to
// standard error (PATCHTX_TIMING=1) or appended to the file it names. Off, a mark is one test of
// a variable. Here at the top of src/, like test-points.ts, so that the git layer can mark too.
//
// A mark names the phase that has just ended: mark('plan') adds the time since the previous mark
// to 'plan'. Phases marked twice add up. `timed` sums a cost that lies inside phases (fsync) on
// its own, beside them.
import { appendFileSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

interface Record {
  /** ms since the process started, when the transaction began (for the CLI: start-up before it) */
  at: number;
  last: number;
  phases: { [phase: string]: number };
  within: { [cost: string]: number };
}

let current: Record | null = null;

/** Starts recording a transaction, when PATCHTX_TIMING is set. */
export function timingStart(): void {
  if (!process.env.PATCHTX_TIMING) return;
  const now = performance.now();
  current = { at: now, last: now, phases: {}, within: {} };
}

/** The phase that has just ended. */
export function mark(phase: string): void {
  if (current === null) return;
  const now = performance.now();
  current.phases[phase] = (current.phases[phase] ?? 0) + (now - current.last);
  current.last = now;
}

/** A clock reading for `timed` (0 when no transaction is being recorded). */
export function clock(): number {
  return current === null ? 0 : performance.now();
}

/** Adds the time since `since` (a `clock()` reading) to the cost `name`, counted beside the phases. */
export function timed(name: string, since: number): void {
  if (current === null || since === 0) return;
  current.within[name] = (current.within[name] ?? 0) + (performance.now() - since);
}

/** Ends the record and writes it (the time since the last mark goes to `phase`). */
export function timingEnd(phase = 'result'): void {
  if (current === null) return;
  mark(phase);
  const r = current;
  current = null;
  const round = (o: { [k: string]: number }): { [k: string]: number } =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
  const line = `${JSON.stringify({ timing: 1, at: Math.round(r.at * 1000) / 1000, total: Math.round((r.last - r.at) * 1000) / 1000, phases: round(r.phases), within: round(r.within) })}\n`;
  const to = process.env.PATCHTX_TIMING;
  try {
    if (to === '1') writeSync(2, line);
    else if (to) appendFileSync(to, line);
  } catch {
    // a measurement that cannot be written is not the transaction's failure
  }
}
