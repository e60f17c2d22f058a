// The transactions and recovery claims this process holds right now.
//
// A journal or a claim names its writer by pid (and mark, liveness.ts), which cannot tell apart two
// runs of one process: a library user (a server, an agent harness) runs several transactions at
// once in one process. A journal or claim with this process's pid is either one of those, live, or
// one an earlier run of this process left behind when it failed after its commit point (or a dead
// process's whose pid we now have), which recovery must take over. Only this process can tell
// which, and it does so here: what is listed is live, whatever is not is left behind.
const held = new Set<string>();

/** A transaction (its id, transactionId) or a claim (its file) of this process begins. */
export function holdHere(key: string): void {
  held.add(key);
}

/** ...and ends (finished, failed, or left to recovery). */
export function releaseHere(key: string): void {
  held.delete(key);
}

/** Whether this process is running the transaction or holds the claim `key`. */
export function heldHere(key: string): boolean {
  return held.has(key);
}
