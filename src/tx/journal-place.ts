// Where a transaction's journal lives, which decides which transactions exclude each other.
//
// A transaction that brings a working tree in line journals in that checkout's
// <gitdir>/patchtx/journal.json, as every transaction of older versions did: one at a time per
// checkout. One that moves a ref and touches no working tree (a bare repository, a ref not
// checked out) journals in <dir>/patchtx/refs/journal-<ref's file name>.json, <dir> being where the
// ref itself lives (the common directory, or the gitdir for HEAD and other per-worktree refs), so
// runs on different refs proceed side by side while two on one ref still exclude each other.
// Either way the ref's lock and compare-and-swap are what guard the ref; the journal is what lets
// a run be recovered. A journal records where it lives (Journal.perRef), so its lock witnesses and
// recovery claims, kept beside it, are found from the journal alone.
import path from 'node:path';
import { isPerWorktree } from '../git/refs/refs.js';
import type { Repository } from '../git/repo/repository.js';
import { refFileName } from './ref-file-name.js';

/** The journal of a transaction on this checkout's working tree (and of all older versions'). */
export const checkoutJournalFile = (repo: Repository): string => path.join(repo.gitdir, 'patchtx', 'journal.json');

/** The directory of the journals of transactions on refs (without a working tree) kept in `base`. */
const refJournalDirIn = (base: string): string => path.join(base, 'patchtx', 'refs');

const JOURNAL_NAME = /^journal-.+\.json$/;

/** The journal of a transaction that moves `ref` and touches no working tree. */
export function refJournalFile(repo: Repository, ref: string): string {
  return path.join(refJournalDirIn(isPerWorktree(ref) ? repo.gitdir : repo.commonDir), `journal-${refFileName(ref)}.json`);
}

/** Where `journal` lives. */
export function journalFileOf(repo: Repository, journal: { perRef?: boolean; ref: string }): string {
  return journal.perRef ? refJournalFile(repo, journal.ref) : checkoutJournalFile(repo);
}

/** The directories ref journals of this checkout may be in (one, in a repository without worktrees). */
export function refJournalDirs(repo: Repository): string[] {
  const dirs = [refJournalDirIn(repo.commonDir), refJournalDirIn(repo.gitdir)];
  return path.resolve(dirs[0]!) === path.resolve(dirs[1]!) ? [dirs[0]!] : dirs;
}

/** The ref journals among `names`, the names in `dir`. */
export function refJournalsAmong(dir: string, names: readonly string[]): string[] {
  return names
    .filter((n) => JOURNAL_NAME.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}
