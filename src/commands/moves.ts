// Moves in a transaction's tree diff. A tree diff only sees a path that vanished and a path that
// appeared; the patch stored with the commit (its note) says which of those pairs is one file
// moved, edited or not, as `apply` reported it. Git's own rename detection guesses from content
// similarity instead, so a heavily edited move shows as a rename here and as D + A in git.
import type { FileChange } from '../engine/types.js';
import { parseStep } from '../edits/step.js';

/** Where each path written by `patchText`'s moves came from (following chains: a -> b -> c). */
export function movedFrom(patchText: string): Map<string, string> {
  let hunks;
  try {
    // a note is V4A, or a unified diff in git's form (see edit-note.ts)
    hunks = parseStep(patchText).patch.hunks;
  } catch {
    return new Map(); // a note that is not a patch says nothing about moves
  }
  const origin = new Map<string, string>(); // destination -> where its content started
  for (const h of hunks) {
    if (h.kind === 'update' && h.moveTo !== null && h.moveTo !== h.path) {
      const start = origin.get(h.path) ?? h.path;
      origin.delete(h.path);
      origin.set(h.moveTo, start);
    } else if (h.kind === 'add' || h.kind === 'delete') {
      origin.delete(h.path); // added over or deleted: whatever moved there is gone
    }
  }
  return origin;
}

/**
 * `changes` with each D of a move's source and A (or M) of its destination merged into one R,
 * when both are there (a later hunk may have put a new file at the source, or removed the
 * destination).
 */
export function withMoves(changes: readonly FileChange[], moves: ReadonlyMap<string, string>): FileChange[] {
  const deleted = new Set(changes.filter((c) => c.op === 'D').map((c) => c.path));
  const paired = new Set<string>();
  const out: FileChange[] = [];
  for (const c of changes) {
    // A, or M when the move replaced a file that was there before (as `apply` reports it too)
    const from = c.op === 'A' || c.op === 'M' ? moves.get(c.path) : undefined;
    if (from !== undefined && deleted.has(from) && !paired.has(from)) {
      paired.add(from);
      out.push({ op: 'R', path: c.path, from });
    } else {
      out.push(c);
    }
  }
  return out.filter((c) => !(c.op === 'D' && paired.has(c.path)));
}

/** The moves of a transaction taken back (an undo of it): each destination goes back to its source. */
export function invertMoves(moves: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...moves].map(([to, from]) => [from, to]));
}
