// Replaying an entry of patchtx's own export: how its commit is made. The record says which
// tree the patch made; where the replay starts from the tree the transaction started from, the
// new commit must have that tree too (else replay_mismatch, before anything is written). With
// its metadata kept, the commit gets the recorded message, author and committer, so on the same
// parent it is the very commit the export records. A transaction that took in uncommitted content
// besides its patch cannot be made again from the patch: it is refused, naming the paths.
import { PatchtxError } from '../errors.js';
import { parseTimezone, type Identity } from '../git/objects/model/identity.js';
import type { ExportIdentity, ExportRecord } from '../logs/patchtx-export.js';
import type { Limits } from '../patch/limits.js';
import type { ApplyOptions } from './apply.js';
import { recordedPatchId } from './replay-patch-id.js';

const identityOf = (id: ExportIdentity): Identity => ({
  name: id.name,
  email: id.email,
  timestamp: id.timestamp,
  timezoneOffset: parseTimezone(id.timezone) ?? 0,
});

/** Throws replay_mismatch for a record whose commit the patch alone does not make. */
export function refuseUnreproducible(record: ExportRecord): void {
  if (record.uncommitted === undefined || record.uncommitted.length === 0) return;
  throw new PatchtxError(
    'replay_mismatch',
    `the commit ${record.commit.slice(0, 12)} took in uncommitted content besides its patch (${record.uncommitted.join(', ')}), which the export does not hold: it cannot be replayed`,
    { paths: record.uncommitted, reason: 'uncommitted', commit: record.commit },
  );
}

export interface ExportCommitOptions {
  /** keep the recorded message, author and committer */
  keep: boolean;
  /** the Replayed-From value */
  source: string;
  /** the tree of the commit the entry applies onto */
  treeBefore: string | null;
  replayedFromTrailer: string;
  replayedCommitTrailer: string;
  limits?: Partial<Limits>;
}

/** What the entry's transaction is given besides the patch text. */
export function exportCommitOptions(
  record: ExportRecord,
  o: ExportCommitOptions,
): Pick<ApplyOptions, 'trailers' | 'expectTree' | 'kept' | 'allowReapply' | 'dialect'> {
  // the same start, the same patch: the same tree, or the replay stops
  const sameStart = o.treeBefore === record.baseTree;
  const compare = sameStart ? { expectTree: record.tree } : {};
  const { dialect, adopted } = recordedPatchId(record, { keep: o.keep, sameStart, limits: o.limits });
  // the branch's history says what was replayed: a patch that follows itself is applied again
  const common = { ...compare, allowReapply: true, ...(dialect ? { dialect } : {}) };
  if (o.keep) {
    const signature = record.gpgsig === undefined ? {} : { signature: { gpgsig: record.gpgsig, commit: record.commit } };
    const kept = { message: record.message, author: identityOf(record.author), committer: identityOf(record.committer), ...signature };
    return { ...common, kept: { ...kept, ...(adopted ? { patchId: adopted } : {}) } };
  }
  return { ...common, trailers: [`${o.replayedFromTrailer}=${o.source}`, `${o.replayedCommitTrailer}=${record.commit}`] };
}
