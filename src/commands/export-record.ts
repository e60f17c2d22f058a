// One patchtx transaction as a record of patchtx's export (and of `show --json`): the patch text
// kept in its note, the whole message, author and committer with their dates and zones, its
// trailers, Patch-Id, base, tree and files, and the paths whose uncommitted content the commit
// took in besides the patch (those a replay of the patch alone cannot reproduce).
import type { CommitObject } from '../git/objects/model/commit.js';
import { formatTimezone, type Identity } from '../git/objects/model/identity.js';
import { readTrailers } from '../git/objects/model/trailers.js';
import { diffTrees } from '../git/objects/tree-diff.js';
import { EXPORT_RECORD_TYPE, EXPORT_VERSION, type ExportIdentity, type ExportRecord } from '../logs/patchtx-export.js';
import { parsePatch } from '../patch/parse.js';
import { changesOf, patchtxInfo } from '../tx/history.js';
import { NOTES_REF } from '../tx/run.js';
import { readSavedRecord } from '../tx/saved.js';
import type { Session } from '../tx/session.js';
import { touchedPaths } from '../tx/touched.js';
import { movedFrom, withMoves } from './moves.js';

/** `2026-11-24T17:05:00+02:00`: the moment in the identity's own zone. */
function isoInZone(id: Identity): string {
  const zone = formatTimezone(id.timezoneOffset);
  const local = new Date((id.timestamp - id.timezoneOffset * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  return `${local}${zone.slice(0, 3)}:${zone.slice(3)}`;
}

export function exportIdentity(id: Identity): ExportIdentity {
  return { name: id.name, email: id.email, date: isoInZone(id), timestamp: id.timestamp, timezone: formatTimezone(id.timezoneOffset) };
}

/**
 * Paths whose uncommitted content the commit took in: saved beside its note, and first updated
 * (or moved away) by the patch. Where the patch first added, deleted or moved another file onto
 * the path, the uncommitted content was replaced and the patch alone makes the commit's file.
 */
async function uncommittedPaths(session: Session, oid: string, patchText: string): Promise<string[]> {
  const saved = await readSavedRecord(session.store, session.repo, NOTES_REF, oid);
  if (saved === null || saved.length === 0) return [];
  let touched;
  try {
    touched = touchedPaths(parsePatch(patchText));
  } catch {
    return saved.map((s) => s.path);
  }
  return saved
    .map((s) => s.path)
    .filter((p) => {
      const first = touched.get(p)?.kinds.values().next().value;
      return first === 'update' || first === 'move-source';
    });
}

/** The record of the patchtx commit `oid` whose note holds `patchText`; null when it is not one. */
export async function transactionRecord(session: Session, oid: string, commit: CommitObject, patchText: string): Promise<ExportRecord | null> {
  const info = patchtxInfo(commit);
  if (info === null) return null;
  const base = commit.parents[0] ?? null;
  const baseTree = base === null ? null : (await session.store.readCommit(base)).tree;
  const files = withMoves(changesOf(await diffTrees(session.store, baseTree, commit.tree)), movedFrom(patchText));
  const uncommitted = await uncommittedPaths(session, oid, patchText);
  return {
    type: EXPORT_RECORD_TYPE,
    version: EXPORT_VERSION,
    commit: oid,
    base,
    tree: commit.tree,
    baseTree,
    patchId: info.patchId,
    patch: patchText,
    message: commit.message,
    subject: commit.message.split('\n')[0]!,
    trailers: readTrailers(commit.message),
    author: exportIdentity(commit.author),
    committer: exportIdentity(commit.committer),
    undoOf: info.undoOf,
    files: files.map((f) => (f.from === undefined ? { op: f.op, path: f.path } : { op: f.op, path: f.path, from: f.from })),
    ...(uncommitted.length > 0 ? { uncommitted } : {}),
    ...(commit.gpgsig !== undefined ? { gpgsig: commit.gpgsig } : {}),
  };
}
