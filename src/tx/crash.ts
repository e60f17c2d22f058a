// Fault injection for the crash tests: PATCHTX_TEST_CRASH_AT=<point> makes the process kill itself
// with SIGKILL when it reaches that named point, so tests can stop a transaction at every step
// between "nothing written" and "everything written" and check what recovery makes of it.
// PATCHTX_TEST_PAUSE_AT=<point> holds the process there instead, until the file named by
// PATCHTX_TEST_PAUSE_UNTIL exists (at most a minute): a run that is alive mid-transaction, for
// the tests of what other commands make of it.
import { existsSync } from 'node:fs';

export function crashPoint(point: string): void {
  if (process.env.PATCHTX_TEST_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
  if (process.env.PATCHTX_TEST_PAUSE_AT === point) pauseUntil(process.env.PATCHTX_TEST_PAUSE_UNTIL ?? '');
}

function pauseUntil(file: string): void {
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 60_000 && !existsSync(file); waited += 10) Atomics.wait(tick, 0, 0, 10);
}

/** in the order a transaction reaches them (mid-redo-stack only when the redo stack is written) */
export const CRASH_POINTS = [
  'mid-journal',
  'after-journal',
  'after-index-lock',
  'after-objects',
  'mid-publish-journal',
  'after-publish-journal',
  'after-ref',
  'after-note',
  'mid-redo-stack',
  'mid-worktree',
  'after-worktree',
  'after-index',
] as const;
