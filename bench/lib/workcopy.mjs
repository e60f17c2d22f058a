// The work copy every timed run starts from: identical to a fresh `cp -a` of the packed base
// repository, index stat data refreshed for the copy.
//
// Two ways to get there (BENCH_FRESH):
//   copy    - `rm -rf` + `cp -a` of the whole base repository before every run. Simple, but on
//             this class of machine a 20,000-file copy costs several seconds of kernel time.
//   restore - (default) `cp -a` once; before every later run put back exactly what the previous
//             run could have changed: the whole .git directory (a saved copy of the work copy's
//             pristine, refreshed .git: ~30 files, the pack and the index), the touched files
//             (copied from the base with their mode and mtime), the created files and directory
//             removed; then the index refresh (re-hashes only the put-back files) and a check that
//             the copy is pristine (`git status --porcelain` empty, HEAD at the base commit, no
//             loose objects). If that check fails, it falls back to a full copy.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { copyRepo, gitTry } from './proc.mjs';

export const freshMode = process.env.BENCH_FRESH || 'restore';
if (!['copy', 'restore'].includes(freshMode)) throw new Error(`BENCH_FRESH must be copy or restore, got ${freshMode}`);

export class WorkCopy {
  constructor(repo, dir) {
    this.repo = repo; // { dir, head }
    this.dir = dir;
    this.savedGit = `${dir}.pristine-git`;
    this.dirty = null; // what was touched since the last reset ({ restore, remove }), or null = needs a full copy
    this.fullCopies = 0;
    this.restores = 0;
    this.fallbacks = 0; // restores that did not give a pristine copy (then a full copy was made)
  }

  full() {
    rmSync(this.dir, { recursive: true, force: true });
    copyRepo(this.repo.dir, this.dir);
    // cp -a keeps mtimes but not inode numbers or ctimes: refresh the index so that neither tool
    // pays for re-hashing every file because of the copy
    gitTry(this.dir, 'update-index', '-q', '--refresh');
    if (freshMode === 'restore') {
      rmSync(this.savedGit, { recursive: true, force: true });
      copyRepo(path.join(this.dir, '.git'), this.savedGit);
    }
    this.fullCopies++;
  }

  restore() {
    const { dir, repo } = this;
    rmSync(path.join(dir, '.git'), { recursive: true, force: true });
    copyRepo(this.savedGit, path.join(dir, '.git'));
    for (const p of this.dirty.remove) rmSync(path.join(dir, p), { recursive: true, force: true });
    for (const p of this.dirty.restore) {
      const from = path.join(repo.dir, p);
      const to = path.join(dir, p);
      const st = statSync(from);
      mkdirSync(path.dirname(to), { recursive: true });
      rmSync(to, { recursive: true, force: true }); // a new inode, as cp -a would make
      copyFileSync(from, to);
      chmodSync(to, st.mode & 0o7777);
      utimesSync(to, st.atime, st.mtime);
    }
    gitTry(dir, 'update-index', '-q', '--refresh');
    const status = gitTry(dir, 'status', '--porcelain', '--untracked-files=all');
    const head = gitTry(dir, 'rev-parse', 'HEAD');
    const loose = /^count: (\d+)/m.exec(gitTry(dir, 'count-objects', '-v').stdout)?.[1];
    const ok = status.status === 0 && status.stdout === '' && head.stdout.trim() === repo.head && loose === '0';
    this.restores++;
    return ok;
  }

  /** records paths the coming run (or edit) may change: { restore: [...], remove: [...] } */
  touch({ restore, remove }) {
    this.dirty.restore.push(...restore);
    this.dirty.remove.push(...remove);
  }

  /**
   * makes the work copy pristine (then call touch() with what the coming run may change); `sync`:
   * then `sync`, so that the run finds no dirty pages and the files it replaces on disk
   */
  prepare(sync = process.env.BENCH_SYNC !== '0') {
    if (freshMode === 'copy' || !this.dirty) this.full();
    else if (!this.restore()) {
      this.fallbacks++;
      this.full();
    }
    this.dirty = { restore: [], remove: [] };
    if (sync) spawnSync('sync');
  }

  dispose() {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.savedGit, { recursive: true, force: true });
  }
}
