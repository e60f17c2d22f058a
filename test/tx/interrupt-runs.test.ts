// A signal while two transactions of one process are under way (a library user, the MCP server
// serving two repositories): the run still before its commit point stops at its next check, the
// one past it finishes, and the process is not ended while either runs.
import { afterAll, describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { asTransaction, checkInterrupted, handleSignals, passCommitPoint } from '../../src/tx/interrupt.js';

const before = new Map((['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, process.listeners(s)]));
afterAll(() => {
  // only the handlers this test installed go
  for (const [signal, kept] of before) for (const l of process.listeners(signal)) if (!kept.includes(l)) process.removeListener(signal, l);
});

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('a signal with two runs under way in one process', () => {
  // the run started while no other was under way is found without an asynchronous context of its
  // own (interrupt.ts), the other by its context: either may be the one past its commit point
  it.each([
    ['the run before its commit point started first', true],
    ['the run past its commit point started first', false],
  ])('stops the run before its commit point, and lets the run past it finish (%s)', async (_, beforeCommitFirst) => {
    handleSignals();
    const a = gate();
    const b = gate();
    const both = gate();
    let inside = 0;
    const arrived = () => {
      if (++inside === 2) both.open();
    };
    const startBeforeCommit = () =>
      asTransaction(async () => {
        arrived();
        await a.wait;
        await checkInterrupted();
        return 'a finished';
      });
    const startAfterCommit = () =>
      asTransaction(async () => {
        passCommitPoint();
        arrived();
        await b.wait;
        await checkInterrupted();
        return 'b finished';
      });
    let beforeCommit: Promise<string>;
    let afterCommit: Promise<string>;
    if (beforeCommitFirst) {
      beforeCommit = startBeforeCommit();
      afterCommit = startAfterCommit();
    } else {
      afterCommit = startAfterCommit();
      beforeCommit = startBeforeCommit();
    }
    await both.wait;
    // the handler sees two runs under way: it notes the signal and does not end the process
    process.emit('SIGTERM', 'SIGTERM');
    b.open();
    a.open();
    await expect(afterCommit).resolves.toBe('b finished');
    const stopped = await beforeCommit.then(
      () => null,
      (e: unknown) => e,
    );
    expect(stopped).toBeInstanceOf(PatchtxError);
    expect((stopped as PatchtxError).kind).toBe('stale');
    expect((stopped as PatchtxError).message).toMatch(/^interrupted by SIGTERM before the commit point/);
  });
});
