// Where a repository lives on disk. Linked worktrees (`git worktree add`) have their own gitdir
// (HEAD, index, per-worktree refs and logs) and share the common dir (objects, refs, packed-refs,
// config) with the main repository; for a plain repository both are the same directory.
import type { IndexCache } from '../index/read.js';
import type { FsyncPolicy } from './fsync-policy.js';

export interface Repository {
  /** this checkout's git directory: HEAD, index, index.lock, logs/HEAD, patchtx journal */
  gitdir: string;
  /** the shared git directory: objects/, refs/, packed-refs, config, logs/refs */
  commonDir: string;
  /** the working tree root, or null for a bare repository */
  workdir: string | null;
  /** which writes are fsynced, from this repository's configuration (absent: git's default) */
  fsync?: FsyncPolicy;
  /** the parsed index kept between commands by a repository kept open (absent: read each time) */
  indexCache?: IndexCache;
}

export const isBare = (repo: Repository): boolean => repo.workdir === null;
