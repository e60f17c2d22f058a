// A merge, rebase, cherry-pick or revert that stopped half-way in a checkout (on a conflict, or
// with --no-commit): git refuses a plain commit then, or would make it part of that operation
// (a merge commit, a rebased commit). The marker files in the checkout's git directory say which.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from './repository.js';

export interface InProgress {
  /** what is under way, in words */
  what: string;
  /** the file or directory of the git directory that says so */
  marker: string;
  /** how to finish or abandon it, with git */
  remedy: string;
}

const MARKERS: readonly InProgress[] = [
  { what: 'a merge', marker: 'MERGE_HEAD', remedy: "conclude it with 'git commit' or give it up with 'git merge --abort'" },
  { what: 'a rebase', marker: 'rebase-merge', remedy: "finish it with 'git rebase --continue' or give it up with 'git rebase --abort'" },
  { what: 'a rebase', marker: 'rebase-apply', remedy: "finish it with 'git rebase --continue' (or 'git am --continue') or give it up with --abort" },
  { what: 'a cherry-pick', marker: 'CHERRY_PICK_HEAD', remedy: "finish it with 'git cherry-pick --continue' or give it up with 'git cherry-pick --abort'" },
  { what: 'a revert', marker: 'REVERT_HEAD', remedy: "finish it with 'git revert --continue' or give it up with 'git revert --abort'" },
];

/** The operation that stopped half-way in this checkout, or null. */
export async function operationInProgress(repo: Repository): Promise<InProgress | null> {
  // existsSync: on every transaction, and a missing file costs no exception this way
  return MARKERS.find((m) => existsSync(path.join(repo.gitdir, m.marker))) ?? null;
}
