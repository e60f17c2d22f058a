// What `patchtx undo` removed, per ref, so `patchtx redo` can bring it back:
// <commonDir>/patchtx/redo/<ref> holds one commit id per line, the most recent last. A new
// transaction on the ref clears it, as an editor's redo history is cleared by a new edit.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from '../git/repository.js';
import type { Journal } from './journal.js';

const stackFile = (repo: Repository, ref: string): string => path.join(repo.commonDir, 'patchtx', 'redo', ref);

export function readRedoStack(repo: Repository, ref: string): string[] {
  try {
    return readFileSync(stackFile(repo, ref), 'utf8').split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
  } catch {
    return [];
  }
}

export function updateRedoStack(repo: Repository, ref: string, change: NonNullable<Journal['redo']>): void {
  const file = stackFile(repo, ref);
  let stack = change.clear ? [] : readRedoStack(repo, ref);
  if (change.pop) stack = stack.slice(0, -1);
  if (change.push) stack.push(change.push);
  if (stack.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, stack.join('\n') + '\n');
  renameSync(tmp, file);
}
