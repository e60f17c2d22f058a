// inParallel bounds the thread-pool work of working-tree writes and pack compression.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { inParallel } from '../../src/in-parallel.js';

describe('inParallel', () => {
  it('runs every item once, never more than `width` at a time', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inParallel([...Array(20).keys()], 4, async (i) => {
      running++;
      most = Math.max(most, running);
      await sleep(i % 3);
      done.push(i);
      running--;
    });
    expect(done.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(most).toBe(4);
  });

  it('after a failure starts nothing new, and throws it once the running jobs have settled', async () => {
    const started: number[] = [];
    let settled = 0;
    const run = inParallel([...Array(20).keys()], 3, async (i) => {
      started.push(i);
      await sleep(i === 1 ? 1 : 20);
      settled++;
      if (i === 1) throw new Error('job 1 failed');
    });
    await expect(run).rejects.toThrow('job 1 failed');
    // job 1 failed first; its lane started nothing more, the other two lanes finished what they had
    expect(started).toEqual([0, 1, 2]);
    expect(settled).toBe(started.length);
  });

  it('does nothing for no items', async () => {
    await inParallel([], 4, () => Promise.reject(new Error('not called')));
  });
});
