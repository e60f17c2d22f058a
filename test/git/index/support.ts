// Shared by the index and worktree tests: repositories as patchtx sees them, the real git CLI's view
// of an index (`git ls-files -s --debug`), blobs written with `git hash-object -w`, and a commit
// made the way patchtx makes one: without touching the index (a throwaway GIT_INDEX_FILE).
import { lutimesSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Repository } from '../../../src/git/repo/repository.js';
import { git, gitWith } from '../../helpers/repos.js';

export function repoAt(workdir: string): Repository {
  const gitdir = path.join(workdir, '.git');
  return { gitdir, commonDir: gitdir, workdir };
}

export function writeBlob(repo: string, content: string | Buffer): string {
  return gitWith(repo, { input: content }, 'hash-object', '-w', '--stdin').trim();
}

export interface DebugEntry {
  mode: number;
  oid: string;
  stage: number;
  path: string;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
  /** git's in-memory flags: the on-disk flags without the name length, extended flags << 16 */
  flags: number;
}

/** `git ls-files -s --debug`, parsed. */
export function lsFilesDebug(cwd: string): DebugEntry[] {
  const lines = git(cwd, '-c', 'core.quotepath=off', 'ls-files', '-s', '--debug').split('\n');
  const out: DebugEntry[] = [];
  for (let i = 0; i + 5 < lines.length; i += 6) {
    const head = /^(\d+) ([0-9a-f]{40}) (\d)\t(.*)$/.exec(lines[i]!)!;
    const ctime = /ctime: (\d+):(\d+)/.exec(lines[i + 1]!)!;
    const mtime = /mtime: (\d+):(\d+)/.exec(lines[i + 2]!)!;
    const devIno = /dev: (\d+)\tino: (\d+)/.exec(lines[i + 3]!)!;
    const owner = /uid: (\d+)\tgid: (\d+)/.exec(lines[i + 4]!)!;
    const sizeFlags = /size: (\d+)\tflags: ([0-9a-f]+)/.exec(lines[i + 5]!)!;
    out.push({
      mode: parseInt(head[1]!, 8),
      oid: head[2]!,
      stage: Number(head[3]),
      path: head[4]!,
      ctimeSeconds: Number(ctime[1]),
      ctimeNanoseconds: Number(ctime[2]),
      mtimeSeconds: Number(mtime[1]),
      mtimeNanoseconds: Number(mtime[2]),
      dev: Number(devIno[1]),
      ino: Number(devIno[2]),
      uid: Number(owner[1]),
      gid: Number(owner[2]),
      size: Number(sizeFlags[1]),
      flags: parseInt(sizeFlags[2]!, 16),
    });
  }
  return out;
}

export type TreeChange = [path: string, entry: { mode: string; oid: string } | null];

/** Moves the current branch to a new commit with `changes` applied to HEAD's tree, leaving the
 * index and working tree alone, as patchtx does before it syncs them. */
export function commitWithoutIndex(repo: string, changes: TreeChange[], message = 'patch'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-idx-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    gitWith(repo, { env }, 'read-tree', 'HEAD');
    for (const [p, entry] of changes) {
      if (entry) gitWith(repo, { env }, 'update-index', '--add', '--cacheinfo', `${entry.mode},${entry.oid},${p}`);
      else gitWith(repo, { env }, 'update-index', '--force-remove', p);
    }
    const tree = gitWith(repo, { env }, 'write-tree').trim();
    const commit = gitWith(repo, {}, 'commit-tree', tree, '-p', 'HEAD', '-m', message).trim();
    gitWith(repo, {}, 'update-ref', 'HEAD', commit);
    return commit;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The tree of the index's stage-0 entries computed from scratch (no cache tree involved). */
export function treeFromScratch(repo: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-idx-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    gitWith(repo, { env, input: git(repo, 'ls-files', '-s') }, 'update-index', '--index-info');
    return gitWith(repo, { env }, 'write-tree').trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface CacheTreeRecord {
  path: string;
  entryCount: number;
  oid: string | null;
}

/** The records of a TREE extension (depth first), for checking what stayed valid. */
export function parseCacheTree(data: Buffer): CacheTreeRecord[] {
  const out: CacheTreeRecord[] = [];
  let pos = 0;
  const walk = (prefix: string): void => {
    const nul = data.indexOf(0, pos);
    const name = data.toString('utf8', pos, nul);
    const nl = data.indexOf(0x0a, nul);
    const [entries, subtrees] = data
      .toString('latin1', nul + 1, nl)
      .split(' ')
      .map(Number) as [number, number];
    pos = nl + 1;
    let oid: string | null = null;
    if (entries >= 0) {
      oid = data.toString('hex', pos, pos + 20);
      pos += 20;
    }
    const full = prefix && name ? `${prefix}/${name}` : prefix || name;
    out.push({ path: full, entryCount: entries, oid });
    for (let i = 0; i < subtrees; i++) walk(full);
  };
  walk('');
  return out;
}

/** Waits until the wall clock enters a new second, so a few fast steps fall within one second. */
export async function atStartOfSecond(): Promise<void> {
  const ms = Date.now() % 1000;
  await new Promise((resolve) => setTimeout(resolve, 1000 - ms + 5));
}

/** Backdates every tracked file and refreshes the index, so no entry is racily clean: then the
 * stat data alone tells git (and us) that a file is unchanged. */
export function settle(repo: string): void {
  const past = new Date(Date.now() - 2 * 86_400_000);
  for (const p of git(repo, 'ls-files', '-z').split('\0').filter(Boolean)) {
    try {
      lutimesSync(path.join(repo, p), past, past);
    } catch {
      // a gitlink or a path missing from the working tree
    }
  }
  gitWith(repo, {}, 'update-index', '-q', '--refresh');
}

/** `file` changed on two branches of a `basic` repository and merged: the merge stops in conflict on it. */
export function conflictOn(dir: string, file: string): void {
  git(dir, 'checkout', '-q', '-b', 'other');
  writeFileSync(path.join(dir, file), 'other side\n');
  git(dir, 'commit', '-qam', 'other');
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(path.join(dir, file), 'main side\n');
  git(dir, 'commit', '-qam', 'main');
  expect(() => git(dir, 'merge', '-q', 'other')).toThrow();
}

/**
 * An index of version 3 with what a read must keep: a conflict on README.md resolved (a
 * resolve-undo record), an intent-to-add entry, a skip-worktree entry, and `longPath`, longer
 * than the 12 bits of an entry's name length.
 */
export function version3Index(dir: string, longPath: string): void {
  conflictOn(dir, 'README.md');
  writeFileSync(path.join(dir, 'README.md'), 'resolved\n');
  git(dir, 'add', 'README.md');
  writeFileSync(path.join(dir, 'later.txt'), 'later\n');
  git(dir, 'add', '-N', 'later.txt');
  git(dir, 'update-index', '--skip-worktree', 'docs/notes.txt');
  git(dir, 'update-index', '--add', '--cacheinfo', `100644,${writeBlob(dir, 'long\n')},${longPath}`);
}
