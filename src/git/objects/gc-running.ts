// Whether a `git gc` is running in a repository, by git's own sign of it: gc.pid in the common
// directory, "<pid> <host>", written when gc starts and removed when it ends (it is what makes a
// second gc refuse to start). A file older than 12 hours, of another host, or of a process that is
// gone is stale, as git reads it. Used to wait for a gc before checking that objects it might
// have pruned are still there (see settleBatch in store.ts).
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const STALE_MS = 12 * 3600 * 1000;

/** The pid of a git gc running in this repository on this host, or null. */
export function runningGc(commonDir: string): number | null {
  const file = path.join(commonDir, 'gc.pid');
  let text: string;
  try {
    if (Date.now() - statSync(file).mtimeMs > STALE_MS) return null;
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const m = /^(\d+) (.*)$/.exec(text.trim());
  if (!m || m[2] !== hostname()) return null;
  const pid = Number(m[1]);
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return pid;
}

/** Waits until no git gc runs in this repository, for at most `maxMs`; true if none runs. */
export async function waitWhileGcRuns(commonDir: string, maxMs: number): Promise<boolean> {
  for (let waited = 0; runningGc(commonDir) !== null; waited += 25) {
    if (waited >= maxMs) return false;
    await sleep(25);
  }
  return true;
}
