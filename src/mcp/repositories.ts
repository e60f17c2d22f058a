// The repository objects of one server: a session of tool calls works on a few repositories again
// and again, so each keeps what it has read between calls (the library's repository object checks
// it before each call, so a change made meanwhile by git or the user is seen). One object per
// directory a call names; the least recently used are closed beyond a few, so that a server asked
// about many repositories holds only a few of them open.
import { openRepository, type Repository } from '../api/openRepository.js';

/** how many repositories a server keeps open at once */
const KEPT = 8;

export class Repositories {
  private readonly byDir = new Map<string, Promise<Repository>>();

  /** The repository object of `dir` (absolute), opened on first use. */
  get(dir: string): Promise<Repository> {
    let repo = this.byDir.get(dir);
    if (repo) {
      this.byDir.delete(dir);
      this.byDir.set(dir, repo);
      return repo;
    }
    repo = openRepository({ dir });
    this.byDir.set(dir, repo);
    // a directory that is not a repository (yet) is looked at again next time
    repo.catch(() => this.byDir.get(dir) === repo && this.byDir.delete(dir));
    for (const [old, kept] of this.byDir) {
      if (this.byDir.size <= KEPT) break;
      this.byDir.delete(old);
      void kept.then(
        (r) => r.close(),
        () => undefined,
      );
    }
    return repo;
  }

  /** Closes every repository object (the server is ending). */
  closeAll(): void {
    for (const repo of this.byDir.values())
      void repo.then(
        (r) => r.close(),
        () => undefined,
      );
    this.byDir.clear();
  }
}
