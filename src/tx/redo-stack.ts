// What `patchtx undo` removed, per ref, so `patchtx redo` can bring it back:
// <commonDir>/patchtx/redo/<name> holds one commit id per line, the most recent last. A new
// transaction on the ref clears it, as an editor's redo history is cleared by a new edit.
//
// Each ref's stack is one file directly in redo/, named by the ref with `%` and `/` escaped
// (`refs%2Fheads%2Fmain`), so the stacks of `feat` and `feat/x` (one left by a deleted branch) can
// never stand in each other's way, as a file and a directory of the same name would. Older patchtx
// kept it at redo/<ref> as a path: that file is still read, and removed at the next change.
//
// The change is made after the commit point (run.ts, step 6), and recovery repeats step 6 for a run
// that died anywhere in it, possibly after the change was already made. Push and pop are not
// idempotent, so the file also names the transaction that last changed it (a `# tx <id>` line,
// written in the same atomic rename as the stack): a change whose transaction is already named there
// is not made twice. Readers skip that line (they keep only commit-id lines).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from '../git/repo/repository.js';
import { crashPoint } from './crash.js';
import { refFileName } from './ref-file-name.js';
import { removeDeadTempsOf, type Journal } from './journal.js';
import { processAlive } from './liveness.js';

const redoDir = (repo: Repository): string => path.join(repo.commonDir, 'patchtx', 'redo');

/** The stack file's name for `ref`: one component, the same for no two refs. */
export const redoStackName = refFileName;

const stackFile = (repo: Repository, ref: string): string => path.join(redoDir(repo), redoStackName(ref));
/** Where older patchtx kept the stack of `ref`. */
const legacyFile = (repo: Repository, ref: string): string => path.join(redoDir(repo), ...ref.split('/'));

const TX_LINE = /^# tx (\S+)$/m;

/** What is stored of `ref`'s stack: the text of the current file, else of one in the older
 * layout, else null; `legacy` whether the older layout's file is there (null: not looked at). */
interface StackFiles {
  text: string | null;
  legacy: boolean | null;
  /** the current file is not there (ENOENT: nothing in the way of it either) */
  absent: boolean;
}

function readStackFiles(repo: Repository, ref: string): StackFiles {
  let absent = false;
  try {
    return { text: readFileSync(stackFile(repo, ref), 'utf8'), legacy: null, absent };
  } catch (e) {
    // missing, or a directory: the older layout's
    absent = (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
  if (legacyFile(repo, ref) === stackFile(repo, ref)) return { text: null, legacy: false, absent };
  try {
    return { text: readFileSync(legacyFile(repo, ref), 'utf8'), legacy: true, absent };
  } catch (e) {
    // missing, or a directory (the older layout's, of a ref below this one): nothing stored
    const code = (e as NodeJS.ErrnoException).code;
    return { text: null, legacy: code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' ? false : null, absent };
  }
}

/** The stack's text: the current file, else one in the older layout, else null. */
const readStackText = (repo: Repository, ref: string): string | null => readStackFiles(repo, ref).text;

export function readRedoStack(repo: Repository, ref: string): string[] {
  return commitsOf(readStackText(repo, ref));
}

const commitsOf = (text: string | null): string[] => (text ?? '').split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));

const lastTransactionIn = (text: string | null): string | null => TX_LINE.exec(text ?? '')?.[1] ?? null;

/** `~` cannot be in a ref name, so no other ref's stack is ever taken for a temporary file. */
const tempFile = (file: string, pid: number): string => `${file}~${pid}.tmp`;

/** Removes the temporary files of `ref`'s stack that processes which are gone left behind (killed
 * between writing one and renaming it into place: a transaction, or a recovery finishing one).
 * Never throws: leftovers are not worth failing a recovery for. */
export function removeDeadRedoTemps(repo: Repository, ref: string): void {
  const file = stackFile(repo, ref);
  try {
    const prefix = `${path.basename(file)}~`;
    for (const name of readdirSync(path.dirname(file))) {
      const m = name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length)) : null;
      if (m && !processAlive(Number(m[1]))) rmSync(path.join(path.dirname(file), name), { force: true });
    }
  } catch {
    // no redo history yet, or one the file system will not let us tidy
  }
  try {
    removeDeadTempsOf(legacyFile(repo, ref));
  } catch {
    // the same for the older layout's
  }
}

function hasLegacy(repo: Repository, ref: string): boolean {
  if (legacyFile(repo, ref) === stackFile(repo, ref)) return false;
  try {
    return statSync(legacyFile(repo, ref)).isFile();
  } catch {
    return false;
  }
}

/** Removes the older layout's file of `ref`, and the directories that leaves empty. */
function removeLegacy(repo: Repository, ref: string): void {
  const file = legacyFile(repo, ref);
  if (file === stackFile(repo, ref)) return; // a ref without '/' (HEAD): the same name in both layouts
  try {
    rmSync(file);
  } catch {
    return; // not there, or a directory (a ref below this one): nothing of ours
  }
  for (let dir = path.dirname(file); dir !== redoDir(repo); dir = path.dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      break;
    }
  }
}

/**
 * Applies `change` to the stack of `ref`. `txId` names the transaction making it: when the file
 * already records that transaction, the change was made before (by the run recovery is finishing)
 * and is not made again. A change that empties the stack removes the file; repeating it is harmless.
 * A stack still in the older layout is moved: the new file is written first (empty, if need be, to
 * stand in front of the old one), then the old one removed. Throws when the file system refuses;
 * the caller decides what that means (after the commit point: a warning).
 */
export function updateRedoStack(repo: Repository, ref: string, change: NonNullable<Journal['redo']>, txId?: string): void {
  const file = stackFile(repo, ref);
  // read once: what a new transaction's clearing finds, most often, is no stack at all
  const stored = readStackFiles(repo, ref);
  if (txId !== undefined && lastTransactionIn(stored.text) === txId) {
    removeLegacy(repo, ref);
    return;
  }
  let stack = change.clear ? [] : commitsOf(stored.text);
  if (change.pop) stack = stack.slice(0, -1);
  if (change.push) stack.push(change.push);
  if (stack.length === 0 && !(stored.legacy ?? hasLegacy(repo, ref))) {
    // no file there, as read above: nothing to remove
    if (!stored.absent) rmSync(file, { force: true });
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempFile(file, process.pid);
  writeFileSync(tmp, (txId !== undefined ? `# tx ${txId}\n` : '') + stack.map((c) => `${c}\n`).join(''));
  crashPoint('mid-redo-stack');
  renameSync(tmp, file);
  removeLegacy(repo, ref);
}
