// The paths a patch touches and what the patch does to each, read off the parsed patch before any
// file is looked at: this is all the transaction ever loads.
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
