// Fault injection for the crash tests: PATCHTX_TEST_CRASH_AT=<point> makes the process kill itself
// with SIGKILL when it reaches that named point, so tests can stop a transaction at every step
// between "nothing written" and "everything written" and check what recovery makes of it.
export function crashPoint(point: string): void {
  if (process.env.PATCHTX_TEST_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
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
