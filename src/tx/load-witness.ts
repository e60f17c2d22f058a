// What a load of the touched paths (state.ts loadTouched) was made from, so that the load made
// before the index lock is taken can stand in for the one the lock requires. The lock's promise is
// that nobody following git's protocol changes the index while it is held; the working tree has no
// lock at all. So the load made ahead is reused only when everything it read is still as it was
// under the lock: the same base tree, the same index file (identity: stat data and checksum), the
// same lstat of each touched path in the working tree, and the same attributes files read from disk
// (info/attributes, core.attributesFile). Anything else: it is read again, as before. The as-read
// check just before the ref moves (as-read.ts) stays as it is, for what changes after this point.
import { statSync } from 'node:fs';
import { indexIdentity } from '../git/index/read.js';
import type { GitIndex } from '../git/index/format.js';
import { outerAttributeFiles } from '../git/repo/attributes.js';
import { inspectWorktreePath, stampOf, statStamp } from '../git/worktree/worktree.js';
import { stampsOf } from './as-read.js';
import type { Session } from './session.js';
import type { LoadedState } from './state.js';

export interface LoadWitness {
  baseTree: string | null;
  /** indexIdentity of the index the load was made with; '' for none (no index file, or no checkout) */
  index: string;
  /** statStamp of each touched path in the working tree (none without a checkout) */
  worktree: ReadonlyMap<string, string>;
  /** statStamp of the attributes files read from disk */
  attributes: string;
}

/** The stat data of the attributes files outside the tree, as one string. */
function attributesStamp(session: Session): string {
  const { globalFile, infoFile } = outerAttributeFiles({ repo: session.repo, config: session.config, env: session.env });
  return [globalFile, infoFile].map((f) => statStamp(statSync(f, { bigint: true, throwIfNoEntry: false }) ?? null)).join('|');
}

/**
 * What `loaded` was made from; null when that cannot be told (an index not read from its file),
 * so that it is never reused.
 */
export function witnessLoad(session: Session, baseTree: string | null, index: GitIndex | null, loaded: LoadedState): LoadWitness | null {
  const identity = index === null ? '' : indexIdentity(index);
  if (identity === null) return null;
  return { baseTree, index: identity, worktree: stampsOf(loaded.states.values()), attributes: attributesStamp(session) };
}

/** Whether a load made now, with `baseTree` and `index`, would read what `witness` describes. */
export async function stillWitnessed(session: Session, witness: LoadWitness, baseTree: string | null, index: GitIndex | null): Promise<boolean> {
  if (witness.baseTree !== baseTree) return false;
  if ((index === null ? '' : indexIdentity(index)) !== witness.index) return false;
  if (attributesStamp(session) !== witness.attributes) return false;
  const workdir = session.repo.workdir;
  if (witness.worktree.size > 0 && workdir === null) return false;
  const knownDirs = new Set<string>();
  for (const [p, stamp] of witness.worktree) {
    if (stampOf(await inspectWorktreePath(workdir!, p, knownDirs)) !== stamp) return false;
  }
  return true;
}
