// A path the patch names that is not there: what the caller probably meant. `patchtx apply` takes
// paths from the repository root wherever it runs, so a patch written relative to the current
// directory names files that exist under it; otherwise a typo is told the closest existing path.
// Only run on that error, so walking the base tree costs nothing on the way to a commit.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { lookupPaths } from '../git/objects/tree-edit.js';
import type { Session } from '../tx/session.js';

/** Trees of more files than this are not searched for a near name (the hint is not worth it). */
const MAX_FILES = 50_000;

/** The directory `cwd` is in, relative to the working tree; '' at its root or outside it. */
function cwdPrefix(workdir: string, cwd: string): string {
  let rel: string;
  try {
    rel = path.relative(workdir, realpathSync(cwd)).split(path.sep).join('/');
  } catch {
    return '';
  }
  return rel === '..' || rel.startsWith('../') || path.isAbsolute(rel) ? '' : rel;
}

/** Every file path of `tree`, up to MAX_FILES (null beyond). */
async function filesOf(session: Session, tree: string): Promise<string[] | null> {
  const out: string[] = [];
  const walk = async (oid: string, prefix: string): Promise<boolean> => {
    for (const [name, e] of await session.store.treeIndex(oid)) {
      if (e.mode === '40000') {
        if (!(await walk(e.oid, `${prefix}${name}/`))) return false;
      } else if (e.mode !== '160000') {
        out.push(prefix + name);
        if (out.length > MAX_FILES) return false;
      }
    }
    return true;
  };
  return (await walk(tree, '')) ? out : null;
}

/** Levenshtein distance of `a` and `b`, given up (Infinity) beyond `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > max) return Infinity;
    prev = cur;
  }
  return prev[b.length]!;
}

/** The existing path closest to `p`, when one is close enough to be a typo of it. */
function closest(files: string[], p: string): string | null {
  const max = Math.max(2, Math.floor(p.length / 4));
  let found: string | null = null;
  let best = max + 1;
  for (const f of files) {
    const d = distance(p, f, Math.min(max, best - 1));
    if (d < best) [found, best] = [f, d];
  }
  return found;
}

export interface HintOptions {
  /** the base commit's tree */
  tree: string | null;
  /** where the command runs; its directory in the working tree matters when paths are from the root */
  cwd: string;
  /** the patch's paths are relative to this directory (apply_patch); undefined: from the root */
  pathPrefix?: string;
}

/** `e` with what the caller probably meant added, when it is a file_not_found that can be helped. */
export async function withPathHint(e: unknown, session: Session, opts: HintOptions): Promise<unknown> {
  if (!(e instanceof PatchtxError) || e.kind !== 'file_not_found' || typeof e.data.path !== 'string' || opts.tree === null) return e;
  const p = e.data.path;
  try {
    // a file an earlier hunk of the same patch deleted or moved away is not a typo
    if ((await lookupPaths(session.store, opts.tree, [p])).get(p)?.type !== 'missing') return e;
    const here = session.repo.workdir === null || opts.pathPrefix !== undefined ? '' : cwdPrefix(session.repo.workdir, opts.cwd);
    if (here !== '' && (await lookupPaths(session.store, opts.tree, [`${here}/${p}`])).get(`${here}/${p}`)?.type === 'blob') {
      const meant = `${here}/${p}`;
      return new PatchtxError(
        'file_not_found',
        `${e.message}\npatch paths are taken from the repository root, not from the current directory (${here}): did you mean ${meant}?`,
        { ...e.data, path: p, suggestion: meant },
      );
    }
    const files = await filesOf(session, opts.tree);
    const near = files === null ? null : closest(files, p);
    if (near === null) return e;
    const shown = opts.pathPrefix ? path.posix.relative(opts.pathPrefix, near) : near;
    return new PatchtxError('file_not_found', `${e.message}\nthe closest existing path is ${shown}`, { ...e.data, path: p, suggestion: shown });
  } catch {
    return e; // a hint that cannot be made is no reason to report anything else
  }
}
