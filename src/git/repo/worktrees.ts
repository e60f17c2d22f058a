// The checkouts of one repository: the main working tree and the linked ones (`git worktree add`,
// each with a gitdir under <common dir>/worktrees/ holding its own HEAD and index), and which of
// them has a given branch checked out.
import path from 'node:path';
import { readdir, readFile } from '../fs/fsx.js';
import type { Repository } from './repository.js';

/**
 * The other checkouts of this repository whose HEAD is the branch `ref`: moving it from here would
 * leave their index and working tree describing the old commit (their `git status` would show the
 * change reversed), so a caller refuses it, as git does for `git branch -f`.
 */
export async function checkedOutElsewhere(repo: Repository, ref: string, mainIsCheckout: boolean): Promise<string | null> {
  const candidates: { gitdir: string; where: () => Promise<string> }[] = [];
  if (repo.gitdir !== repo.commonDir && mainIsCheckout) {
    candidates.push({ gitdir: repo.commonDir, where: async () => path.dirname(repo.commonDir) });
  }
  let names: string[] = [];
  try {
    names = await readdir(path.join(repo.commonDir, 'worktrees'));
  } catch {
    // no linked worktrees
  }
  for (const name of names) {
    const gitdir = path.join(repo.commonDir, 'worktrees', name);
    candidates.push({
      gitdir,
      where: async () => {
        try {
          return path.dirname((await readFile(path.join(gitdir, 'gitdir'), 'utf8')).trim());
        } catch {
          return gitdir;
        }
      },
    });
  }
  for (const c of candidates) {
    if (path.resolve(c.gitdir) === path.resolve(repo.gitdir)) continue;
    let head: string;
    try {
      head = (await readFile(path.join(c.gitdir, 'HEAD'), 'utf8')).trim();
    } catch {
      continue;
    }
    if (head === `ref: ${ref}`) return c.where();
  }
  return null;
}
