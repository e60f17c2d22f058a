// Schedules of the stress tests: a seeded random source (a failing schedule is replayed from its
// seed), bounded parallel lanes, and polling for a state another process reaches.
import { expect } from 'vitest';

/** mulberry32: a small seeded PRNG, so a failing random schedule can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed from `envName` when set (to replay a run), else a fresh one. */
export function seedFrom(envName: string): number {
  const given = process.env[envName];
  if (given !== undefined && given !== '') return Number(given) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** Runs `fn` over `items` with at most `lanes` in flight; rejects with the first failure. */
export async function inLanes<T, R>(items: T[], lanes: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed: unknown = null;
  const lane = async (): Promise<void> => {
    while (failed === null && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failed !== null) throw failed;
  return results;
}

/** Waits (up to 30 s, polling) until `check` holds, then asserts it: `what` names the awaited state. */
export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), what).toBe(true);
}
