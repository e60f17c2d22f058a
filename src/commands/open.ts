// A repository opened once by a program that keeps it between its calls (the library's
// openRepository): found from a directory as every command finds it, so that a directory outside
// any repository is refused when it is opened, with what the commands keep between calls
// (tx/warm.ts). The session options each command is then run with are named here too, so that
// such a program depends on the commands alone (eslint.config.js keeps it so).
import { openRepository } from '../git/repo/discover.js';
import { WarmRepository } from '../tx/warm.js';

export type { SessionOptions } from '../tx/session.js';
export type { WarmRepository };

export interface OpenedRepository {
  /** the git directory of this checkout (a linked worktree's own) */
  gitdir: string;
  /** the working tree's root; null for a bare repository */
  workdir: string | null;
  /** what the calls on this repository keep between them; close() releases it */
  warm: WarmRepository;
}

/** The repository `dir` is in (a checkout or any directory in it, a bare repository, a linked worktree). */
export async function openRepositoryAt(dir: string): Promise<OpenedRepository> {
  const found = await openRepository({ cwd: dir });
  return { gitdir: found.gitdir, workdir: found.workdir, warm: new WarmRepository() };
}
