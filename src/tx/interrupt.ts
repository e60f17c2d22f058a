// Ctrl-C (SIGINT), a CI timeout (SIGTERM) or a closed terminal (SIGHUP) in the middle of a
// transaction. By default Node dies at once, leaving index.lock and the journal until the next
// patchtx command recovers them, and git is locked out meanwhile. With the handlers installed (by
// the command-line programs only), a signal:
//   - outside a transaction: ends the process at once (nothing is held);
//   - before the commit point: makes the run stop at its next check, which throws; the run then
//     rolls back as for any failure (its index lock and journal removed);
//   - after the commit point: is noted, and the run finishes.
// Recovery of an interrupted run (recover.ts) is held the same way: before it has changed anything
// a signal stops it at its check, leaving the journal for the next command; once it has begun,
// it finishes (it is past the point of no return too), and the command it opened does not run.
// The program then exits with the conventional status, 128 + the signal's number.
//
// Signals reach JavaScript only between turns of the event loop, so the checks let one turn
// pass (setImmediate) before looking.
//
// One process may run several transactions at once (a library user, the MCP server serving two
// repositories), so each run has its own phase, found by the run's asynchronous context: a signal
// ends the process at once only when no run is under way, and stops only the runs still before
// their commit point.
import { AsyncLocalStorage } from 'node:async_hooks';
import { constants } from 'node:os';
import { PatchtxError } from '../errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

interface RunPhase {
  afterCommit: boolean;
}

/** the runs under way in this process */
const runs = new Set<RunPhase>();
/** the run whose code is executing (its asynchronous context), for runs started beside another */
const current = new AsyncLocalStorage<RunPhase>();
/**
 * The run started while no other was under way, which has no asynchronous context: its code is
 * the code that finds none. Entering an AsyncLocalStorage makes Node call a hook for every
 * promise the process creates from then on (a transaction creates thousands), so the usual case,
 * one run at a time, does without; a run starting while another is under way enters it.
 */
let alone: RunPhase | null = null;

/** The run whose code is executing, if any. */
const currentRun = (): RunPhase | null => current.getStore() ?? alone;
let received: NodeJS.Signals | null = null;

/** The exit status for a process ended by `signal`: 128 + its number. */
export function exitStatusFor(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** Installs the handlers (once, by a program about to run a command). */
export function handleSignals(): void {
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      received ??= signal;
      if (runs.size === 0) process.exit(exitStatusFor(signal));
    });
  }
}

/** The first signal received, if any, once a signal still pending has been delivered. */
export async function receivedSignal(): Promise<NodeJS.Signals | null> {
  if (received === null) await new Promise<void>((resolve) => setImmediate(resolve));
  return received;
}

/**
 * Runs `fn` as a transaction (or a recovery): until passCommitPoint, a signal rolls it back; after
 * it, the signal waits for the run to finish.
 */
export async function asTransaction<T>(fn: () => Promise<T>): Promise<T> {
  const run: RunPhase = { afterCommit: false };
  const first = runs.size === 0;
  runs.add(run);
  try {
    if (!first) return await current.run(run, fn);
    alone = run;
    return await fn();
  } finally {
    runs.delete(run);
    if (alone === run) alone = null;
  }
}

/** The ref has moved (for the run whose code calls it): a signal now waits for the run to finish. */
export function passCommitPoint(): void {
  const run = currentRun();
  if (run) run.afterCommit = true;
}

const STOPPED_RUN = "before the commit point: nothing was committed, and the run's locks and journal are removed";

/** Throws (stale, retry) when a signal arrived before the commit point; `what` says what stopped
 * where (`interrupted by SIGINT <what>`), `data` goes with the error. */
export async function checkInterrupted(what = STOPPED_RUN, data: Record<string, unknown> = {}): Promise<void> {
  if (received === null) await new Promise<void>((resolve) => setImmediate(resolve));
  throwIfInterrupted(what, data);
}

/**
 * Throws (stale) when a signal has arrived, whatever the phase: for work that finished what it had
 * begun (a recovery) and must start nothing more. Called while the run is still under way, where
 * the signal's handler would otherwise end the process at once, before anything is reported.
 */
export async function checkSignalled(what: string, data: Record<string, unknown> = {}): Promise<void> {
  if (received === null) await new Promise<void>((resolve) => setImmediate(resolve));
  if (received !== null) throw new PatchtxError('stale', `interrupted by ${received} ${what}`, { ...data, signal: received });
}

/** Throws (stale, retry) when a signal has arrived: nothing more is to be started. */
export function throwIfInterrupted(what = STOPPED_RUN, data: Record<string, unknown> = {}): void {
  if (received !== null && currentRun()?.afterCommit !== true) {
    throw new PatchtxError('stale', `interrupted by ${received} ${what}`, { ...data, signal: received });
  }
}
