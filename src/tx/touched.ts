// The paths a patch touches and what the patch does to each, read off the parsed patch before any
// file is looked at: this is all the transaction ever loads.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { pathProblem, quotePath } from '../patch/paths.js';
import type { Patch } from '../patch/types.js';

export type TouchKind = 'add' | 'delete' | 'update' | 'move-source' | 'move-dest';

export interface TouchedPath {
  path: string;
  kinds: Set<TouchKind>;
  /** 1-based patch line of the first hunk that names this path (0: an edit operation, which has none) */
  line: number;
  /** the index of the edit operation (block, file of a diff) of that hunk, when it came from one */
  operation?: number;
}

export function touchedPaths(patch: Patch): Map<string, TouchedPath> {
  const out = new Map<string, TouchedPath>();
  for (const h of patch.hunks) {
    if (h.kind === 'add') touch(out, h, h.path, 'add');
    else if (h.kind === 'delete') touch(out, h, h.path, 'delete');
    else if (h.kind === 'edit') touch(out, h, h.path, 'update');
    else if (h.moveTo !== null && h.moveTo !== h.path) {
      touch(out, h, h.path, 'move-source');
      touch(out, h, h.moveTo, 'move-dest');
    } else touch(out, h, h.path, 'update');
  }
  return out;
}

/** Records that hunk `h` does `kind` to `path` (a function of its own, not a closure per hunk:
 * the bundle names every function made at run time, and a large patch has thousands of hunks). */
function touch(out: Map<string, TouchedPath>, h: Patch['hunks'][number], path: string, kind: TouchKind): void {
  let t = out.get(path);
  if (!t) {
    t = { path, kinds: new Set(), line: h.line };
    if (h.origin) t.operation = h.origin.index;
    out.set(path, t);
  }
  t.kinds.add(kind);
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

/**
 * `p`, a path of the patch relative to `dir` (a repository-relative directory), as a path from the
 * repository root. An absolute path (which Codex accepts) is taken relative to `root`, the
 * working tree; `..` segments are resolved as the shell would from `dir`. What then leaves the
 * repository is `path_rejected`, and so is whatever the usual checks refuse.
 */
function resolveAt(dir: string, p: string, root: string | null): string {
  const reject = (why: string): PatchtxError => new PatchtxError('path_rejected', `Path ${quotePath(p)} is rejected: ${why}`, { path: p });
  let rel: string;
  if (p.startsWith('/')) {
    if (root === null) throw reject('an absolute path needs a working tree');
    rel = path.relative(root, realParent(p)).split(path.sep).join('/');
    if (path.isAbsolute(rel)) throw reject('it is outside the repository');
  } else {
    rel = dir === '' ? p : `${dir}/${p}`;
  }
  rel = path.posix.normalize(rel);
  if (rel === '..' || rel.startsWith('../')) throw reject('it is outside the repository');
  const problem = pathProblem(rel);
  if (problem !== null) throw reject(problem);
  return rel;
}

/** `p` with its directory's real path (the file itself may not exist yet; a link there is refused later). */
function realParent(p: string): string {
  try {
    return path.join(realpathSync(path.dirname(p)), path.basename(p));
  } catch {
    return p; // not there (yet): compare as written
  }
}

/**
 * `patch` with every path taken relative to `dir` (a repository-relative directory) and resolved
 * (see resolveAt); the same object when no path changes.
 */
export function rerootPatch(patch: Patch, dir: string, root: string | null = null): Patch {
  const at = (p: string): string => resolveAt(dir, p, root);
  let changed = false;
  const hunks = patch.hunks.map((h) => {
    const moved = h.kind === 'update' && h.moveTo !== null ? at(h.moveTo) : null;
    const resolved = at(h.path);
    if (resolved === h.path && (h.kind !== 'update' || moved === h.moveTo)) return h;
    changed = true;
    return h.kind === 'update' ? { ...h, path: resolved, moveTo: moved } : { ...h, path: resolved };
  });
  return changed ? { ...patch, hunks } : patch;
}
