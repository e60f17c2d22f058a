// What `patchtx undo` removed, per ref, so `patchtx redo` can bring it back:
// <commonDir>/patchtx/redo/<ref> holds one commit id per line, the most recent last. A new
// transaction on the ref clears it, as an editor's redo history is cleared by a new edit.
//
// The change is made after the commit point (run.ts, step 6), and recovery repeats step 6 for a run
// that died anywhere in it, possibly after the change was already made. Push and pop are not
// idempotent, so the file also names the transaction that last changed it (a `# tx <id>` line,
// written in the same atomic rename as the stack): a change whose transaction is already named there
// is not made twice. Readers skip that line (they keep only commit-id lines).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from '../git/repository.js';
import { crashPoint } from './crash.js';
import { removeDeadTempsOf, type Journal } from './journal.js';

const stackFile = (repo: Repository, ref: string): string => path.join(repo.commonDir, 'patchtx', 'redo', ref);
const TX_LINE = /^# tx (\S+)$/m;

export function readRedoStack(repo: Repository, ref: string): string[] {
  try {
    return readFileSync(stackFile(repo, ref), 'utf8').split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
  } catch {
    return [];
  }
}

function lastTransaction(repo: Repository, ref: string): string | null {
  try {
    return TX_LINE.exec(readFileSync(stackFile(repo, ref), 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

const tempFile = (file: string, pid: number): string => `${file}.${pid}.tmp`;

/** Removes the temporary files of `ref`'s stack that processes which are gone left behind (killed
 * between writing one and renaming it into place: a transaction, or a recovery finishing one). */
export function removeDeadRedoTemps(repo: Repository, ref: string): void {
  removeDeadTempsOf(stackFile(repo, ref));
}

/**
 * Applies `change` to the stack of `ref`. `txId` names the transaction making it: when the file
 * already records that transaction, the change was made before (by the run recovery is finishing)
 * and is not made again. A change that empties the stack removes the file; repeating it is harmless.
 */
export function updateRedoStack(repo: Repository, ref: string, change: NonNullable<Journal['redo']>, txId?: string): void {
  const file = stackFile(repo, ref);
  if (txId !== undefined && lastTransaction(repo, ref) === txId) return;
  let stack = change.clear ? [] : readRedoStack(repo, ref);
  if (change.pop) stack = stack.slice(0, -1);
  if (change.push) stack.push(change.push);
  if (stack.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempFile(file, process.pid);
  writeFileSync(tmp, (txId !== undefined ? `# tx ${txId}\n` : '') + stack.join('\n') + '\n');
  crashPoint('mid-redo-stack');
  renameSync(tmp, file);
}
