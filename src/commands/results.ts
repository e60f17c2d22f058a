// The results of the commands as callers receive them: the objects `patchtx --json` prints and
// the library returns (one shape for both, documented in docs/json.md). They are plain JSON
// values, so what a program reads from the CLI and what it gets from the library are equal.
import { unifiedDiff } from '../engine/diff.js';
import type { FileChange, PlanWarning } from '../engine/types.js';
import { formatTimezone, type Identity } from '../git/objects/model/identity.js';
import type { RecoveryReport } from '../tx/recover.js';
import type { FileContents, TxResult } from './apply.js';
import type { LogEntry, LogListing } from './log.js';
import type { UndoResult } from './undo.js';

/** An identity in JSON: git's time zone spelling, so it reads as `git log --date=format:%z` prints it. */
export interface IdentityJson {
  name: string;
  email: string;
  timestamp: number;
  timezone: string;
}

export interface ApplyJson {
  ok: true;
  /** the new commit; null for a check (see wouldCommit) and for a noop */
  commit: string | null;
  /** check only: the id the commit would have; null when it is known only once made (a
   * `commit_id_unknown` warning says why) */
  wouldCommit?: string | null;
  parent: string | null;
  ref: string;
  noop: boolean;
  checked: boolean;
  patchId: string;
  message: string | null;
  tree: string;
  author: IdentityJson;
  committer: IdentityJson;
  files: Array<{ path: string; op: FileChange['op']; from: string | null }>;
  warnings: PlanWarning[];
  /** the tip, when it was made from this very patch: nothing was written */
  alreadyApplied?: string;
  /** the unified diff of the changes, when asked for */
  diff?: string;
  /** what recovery of an interrupted earlier run did first */
  recovered?: RecoveryReport;
}

/** undo and redo: the result as the command returns it (see UndoResult) */
export type UndoJson = UndoResult;

/** one transaction of a log listing (see LogEntry) */
export type LogEntryJson = LogEntry;

export interface RecoverJson {
  ok: true;
  recovered: RecoveryReport | null;
}

/** A value as JSON carries it: undefined fields gone, nothing shared with the command's state. */
const asJson = <T>(value: unknown): T => JSON.parse(JSON.stringify(value)) as T;

const identityJson = (id: Identity): IdentityJson => ({ name: id.name, email: id.email, timestamp: id.timestamp, timezone: formatTimezone(id.timezoneOffset) });

/** The unified diff of a result's contents (never coloured), when they were asked for. */
export function diffOf(contents: FileContents[] | undefined): string | undefined {
  return contents?.map((c) => unifiedDiff(c.path, c.before, c.after, c.from)).join('');
}

export function applyJson(result: TxResult, diff?: string): ApplyJson {
  return asJson({
    ok: true,
    // a check commits nothing: the id it would have is not the id of a commit that exists
    commit: result.checked ? null : result.commit,
    ...(result.checked ? { wouldCommit: result.commit } : {}),
    parent: result.parent,
    ref: result.ref,
    noop: result.noop,
    checked: result.checked,
    patchId: result.patchId,
    message: result.message,
    tree: result.tree,
    author: identityJson(result.author),
    committer: identityJson(result.committer),
    files: result.files.map((f) => ({ path: f.path, op: f.op, from: f.from ?? null })),
    warnings: result.warnings,
    ...(result.alreadyApplied !== undefined ? { alreadyApplied: result.alreadyApplied } : {}),
    ...(diff !== undefined ? { diff } : {}),
    ...(result.recovered ? { recovered: result.recovered } : {}),
  });
}

export const undoJson = (result: UndoResult): UndoJson => asJson(result);

/** The listing's entries, newest first (where a shallow clone's history ends is told apart). */
export const logJson = (listing: LogListing): LogEntryJson[] => asJson(listing.entries);

export const recoverJson = (report: RecoveryReport | null): RecoverJson => asJson({ ok: true, recovered: report });
