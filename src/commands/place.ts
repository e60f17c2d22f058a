// Where a directory is in the repository that contains it, for a program that takes paths
// relative to the directory it runs in (apply_patch, as Codex's does): the working tree and the
// directory's path inside it, or no repository at all (then the patch is applied to plain files).
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { openRepository } from '../git/repo/discover.js';

export interface RepositoryPlace {
  /** the working tree; null in a bare repository */
  workdir: string | null;
  /** the directory relative to the working tree ('' at the top, or in a bare repository) */
  prefix: string;
}

/** Where `cwd` is in the repository that contains it, or null outside any repository. */
export async function placeInRepository(cwd: string): Promise<RepositoryPlace | null> {
  let repo;
  try {
    repo = await openRepository({ cwd });
  } catch (e) {
    if (e instanceof PatchtxError && e.kind === 'not_a_repository') return null;
    throw e;
  }
  if (repo.workdir === null) return { workdir: null, prefix: '' };
  const rel = path.relative(repo.workdir, realpathSync(cwd)).split(path.sep).join('/');
  // patch paths are relative to cwd, as in Codex; a cwd inside .git is refused by the path checks
  return { workdir: repo.workdir, prefix: rel };
}
