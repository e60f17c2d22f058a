// Fault injection for the tests, at named points of a run: PATCHTX_TEST_CRASH_AT=<point> makes
// the process kill itself with SIGKILL there; PATCHTX_TEST_PAUSE_AT=<point> holds it there until
// the file named by PATCHTX_TEST_PAUSE_UNTIL exists (at most a minute), so that another process
// can act on a run that is alive mid-transaction; while held, the file of that name plus ".held"
// exists, so the test knows the run got there. Here, not in tx/, so that the git layer can
// name points too (see src/tx/crash.ts for the transaction's).
import { existsSync, writeFileSync } from 'node:fs';

export function crashPoint(point: string): void {
  if (process.env.PATCHTX_TEST_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
  if (process.env.PATCHTX_TEST_PAUSE_AT === point) pauseUntil(process.env.PATCHTX_TEST_PAUSE_UNTIL ?? '');
}

function pauseUntil(file: string): void {
  if (file !== '') writeFileSync(`${file}.held`, '');
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 60_000 && !existsSync(file); waited += 10) Atomics.wait(tick, 0, 0, 10);
}
