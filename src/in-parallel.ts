// A bounded number of async jobs at once, for work that goes through libuv's thread pool (zlib
// streams, file replacement): enough to keep the pool busy, few enough to bound the memory and
// file handles in use.

/**
 * Runs `job` on every item, at most `width` at a time. The first failure stops new jobs and is
 * thrown once the running ones have settled, so nothing is still under way when the caller goes on.
 */
export async function inParallel<T>(items: readonly T[], width: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await job(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
