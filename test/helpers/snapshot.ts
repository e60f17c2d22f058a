// What a repository holds, for before/after comparisons: its files (one listing, also the one the
// scenario runners compare with expected/), refs, status, index and objects, and the files an
// interrupted or failed transaction must not leave behind, so a test can prove that a command
// left everything exactly as it was.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { commonDirOf, git, gitDirOf, gitTry } from './repos.js';

/** Content up to this size is shown as hex (CR, NUL and invalid UTF-8 visible in a failing
 * assertion); larger files by their hash, so a listing of big files stays small. */
const HEX_LIMIT = 64 * 1024;

const describeBytes = (b: Buffer): string => (b.length <= HEX_LIMIT ? b.toString('hex') : `sha1:${createHash('sha1').update(b).digest('hex')}`);

/** Every file and directory below `dir` (not .git): directories as `name/`, files by executable
 * bit and content, symbolic links by target, other nodes by kind (never opened: a FIFO would
 * block). A missing `dir` is empty. */
export function worktreeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (rel === '' && name === '.git') continue;
      const r = rel === '' ? name : `${rel}/${name}`;
      const abs = path.join(dir, r);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[r + '/'] = 'dir';
        walk(r);
      } else if (!st.isFile()) out[r] = st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : 'device';
      else out[r] = `file ${(st.mode & 0o111) !== 0 ? 'x' : '-'} ${describeBytes(readFileSync(abs))}`;
    }
  };
  if (existsSync(dir)) walk('');
  return out;
}

export interface Snapshot {
  head: string;
  symbolicHead: string;
  refs: string;
  status: string;
  index: string | null;
  files: Record<string, string> | null;
  objects: string;
  reflog: string;
}

const fileHash = (f: string): string | null => (existsSync(f) ? createHash('sha1').update(readFileSync(f)).digest('hex') : null);

/** Everything a failed command must leave as it was. `dir` is a checkout or a bare repository. */
export function snapshot(dir: string): Snapshot {
  const bare = git(dir, 'rev-parse', '--is-bare-repository').trim() === 'true';
  const gitDir = gitDirOf(dir);
  return {
    head: gitTry(dir, 'rev-parse', '--verify', '-q', 'HEAD').stdout.trim(),
    symbolicHead: gitTry(dir, 'symbolic-ref', '-q', 'HEAD').stdout.trim(),
    refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    status: bare ? '' : git(dir, 'status', '--porcelain=v1', '--untracked-files=all', '--ignored'),
    index: bare ? null : fileHash(path.join(gitDir, 'index')),
    files: bare ? null : worktreeFiles(dir),
    objects: git(dir, 'count-objects', '-v'),
    reflog: gitTry(dir, 'reflog', '--format=%H %gs').stdout,
  };
}

/**
 * Files in a git dir that a transaction, once finished or recovered, must not leave behind: lock
 * files anywhere (index.lock, refs/…/x.lock, HEAD.lock, packed-refs.lock), patchtx's journal, its
 * temporary siblings and recovery claims, temporary files of the redo stack, the .keep file of a
 * transaction's pack (it keeps the pack from git's repacks only while the transaction runs), the
 * second names of a transaction's loose objects (patchtx/…/objects-<id>/, kept until it is done).
 */
export function leftoverFiles(gitdir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      // objects/ holds nothing lock-like (tmp_obj_* files there are garbage git's prune removes),
      // only the .keep files of packs
      if (rel === '' && name === 'objects') {
        found.push(...patchtxKeeps(path.join(dir, name, 'pack')));
        continue;
      }
      const abs = path.join(dir, name);
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (relPath.startsWith('patchtx/') && name.startsWith('objects-')) found.push(`${relPath}/`);
        else walk(abs, relPath);
        continue;
      }
      if (
        name.endsWith('.lock') ||
        (relPath.startsWith('patchtx/') && (name.startsWith('journal') || name.startsWith('recovering-') || name.includes('.tmp')))
      ) {
        found.push(relPath);
      }
    }
  };
  walk(gitdir, '');
  return found.sort();
}

function patchtxKeeps(packDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(packDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.keep') && readFileSync(path.join(packDir, n), 'utf8').startsWith('patchtx transaction '))
    .map((n) => `objects/pack/${n}`);
}

/** No leftoverFiles in a checkout's or bare repository's git dir, nor (a linked worktree's) in the
 * common dir, where its journal paths do not start with patchtx/. */
export function expectNoLeftovers(dir: string): void {
  const gitDir = gitDirOf(dir);
  const common = commonDirOf(dir);
  const dirs = gitDir === common ? [common] : [common, gitDir];
  expect(dirs.flatMap((d) => leftoverFiles(d).map((f) => path.join(d, f)))).toEqual([]);
}

export function expectFsckClean(dir: string): void {
  const r = gitTry(dir, 'fsck', '--strict', '--no-progress');
  expect(r.stderr + r.stdout).not.toMatch(/error|fatal|missing|broken|corrupt/i);
  expect(r.status).toBe(0);
}

/** The repository is exactly as `before`, with nothing left behind, and fsck clean. */
export function expectUntouched(dir: string, before: Snapshot): void {
  expect(snapshot(dir)).toEqual(before);
  expectNoLeftovers(dir);
  expectFsckClean(dir);
}

/** The redo stack patchtx keeps for `ref` (one commit id per line, most recent last), in a file
 * named by the ref with `%` and `/` escaped. */
export function redoStack(commonDir: string, ref: string): string[] {
  try {
    return readFileSync(path.join(commonDir, 'patchtx', 'redo', ref.replace(/%/g, '%25').replace(/\//g, '%2F')), 'utf8')
      .split('\n')
      .filter((l) => /^[0-9a-f]{40}$/.test(l));
  } catch {
    return [];
  }
}
