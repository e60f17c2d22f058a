// The paths a patch touches and what the patch does to each, read off the parsed patch before any
// file is looked at: this is all the transaction ever loads.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { pathProblem } from '../patch/paths.js';
import type { Patch } from '../patch/types.js';

export type TouchKind = 'add' | 'delete' | 'update' | 'move-source' | 'move-dest';

export interface TouchedPath {
  path: string;
  kinds: Set<TouchKind>;
  /** 1-based patch line of the first hunk that names this path */
  line: number;
}

export function touchedPaths(patch: Patch): Map<string, TouchedPath> {
  const out = new Map<string, TouchedPath>();
  const touch = (path: string, kind: TouchKind, line: number): void => {
    let t = out.get(path);
    if (!t) out.set(path, (t = { path, kinds: new Set(), line }));
    t.kinds.add(kind);
  };
  for (const h of patch.hunks) {
    if (h.kind === 'add') touch(h.path, 'add', h.line);
    else if (h.kind === 'delete') touch(h.path, 'delete', h.line);
    else if (h.moveTo !== null && h.moveTo !== h.path) {
      touch(h.path, 'move-source', h.line);
      touch(h.moveTo, 'move-dest', h.line);
    } else touch(h.path, 'update', h.line);
  }
  return out;
}

/**
 * The directory (relative to the repository root, '' for the root) that a patch's paths are
 * relative to: `base` (where apply_patch was run from), then a `cd DIR &&` of the patch's heredoc
 * wrapper on top, as the shell would have done. Absolute directories must lie inside `root`.
 * Anything that would leave the repository, or reach into `.git`, is `path_rejected`.
 */
export function patchDirectory(root: string | null, base: string, dir: string | undefined): string {
  const reject = (why: string): PatchtxError =>
    new PatchtxError('path_rejected', `cannot apply the patch in ${JSON.stringify(dir ?? base)}: ${why}`, { path: dir ?? base, reason: 'directory' });
  let rel: string;
  if (dir === undefined || dir === '') rel = base;
  else if (path.isAbsolute(dir)) {
    if (root === null) throw reject('an absolute directory needs a working tree');
    let abs = dir;
    try {
      abs = realpathSync(dir);
    } catch {
      // not there (yet): compare as written
    }
    rel = path.relative(root, abs).split(path.sep).join('/');
    if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) throw reject('it is outside the repository');
  } else rel = path.posix.join(base === '' ? '.' : base, dir);
  rel = path.posix.normalize(rel === '' ? '.' : rel).replace(/\/+$/, '');
  if (rel === '.') return '';
  if (rel === '..' || rel.startsWith('../')) throw reject('it is outside the repository');
  const problem = pathProblem(rel);
  if (problem !== null) throw reject(problem);
  return rel;
}

/** `patch` with every path taken relative to `dir` (a repository-relative directory). */
export function rerootPatch(patch: Patch, dir: string): Patch {
  if (dir === '') return patch;
  const at = (p: string): string => `${dir}/${p}`;
  return {
    ...patch,
    hunks: patch.hunks.map((h) => (h.kind === 'update' ? { ...h, path: at(h.path), moveTo: h.moveTo === null ? null : at(h.moveTo) } : { ...h, path: at(h.path) })),
  };
}
