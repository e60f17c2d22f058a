// Fault injection for the crash tests: PATCHTX_TEST_CRASH_AT=<point> makes the process kill itself
// with SIGKILL when it reaches that named point, so tests can stop a transaction at every step
// between "nothing written" and "everything written" and check what recovery makes of it.
// PATCHTX_TEST_PAUSE_AT=<point> holds the process there instead, until the file named by
// PATCHTX_TEST_PAUSE_UNTIL exists (at most a minute): a run that is alive mid-transaction, for
// the tests of what other commands make of it.
export { crashPoint } from '../test-points.js';

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
