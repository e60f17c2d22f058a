// The error a library call rejects with, for tests of the library's errors.
import { expect } from 'vitest';
import { PatchtxError } from '../../src/index.js';

/** The PatchtxError `p` rejects with (fails the test when it resolves, or rejects with anything else). */
export async function rejection(p: Promise<unknown>): Promise<PatchtxError> {
  const outcome = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(PatchtxError);
  return outcome as PatchtxError;
}
