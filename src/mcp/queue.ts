// Writes to one repository from one server run one at a time: an agent may fire several tool
// calls at once, and two transactions on one branch would otherwise meet at the lock and the
// second would fail `stale`. Calls on other repositories do not wait for each other. Other
// processes are kept apart by the transaction's own lock (the tools pass a wait for it).
export class WriteQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier call queued on `key` has settled. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
