// What a patch log holds, once read: the patches an agent applied, in order, each with where it
// came from (so a replay can name it, skip it when it is already on the branch, and put trailers
// on its commit), the directory its relative paths meant, and what the log says became of it.
// Readers of the formats (codex-rollout.ts, responses-items.ts) produce these; replay consumes them.

export type LogFormat = 'codex-rollout' | 'responses-items' | 'patchtx-export' | 'patch';

/** A change as the log recorded it after the call ran (Codex's patch_apply_end `changes`). */
export type RecordedChange =
  { type: 'add'; content: string } | { type: 'delete'; content?: string } | { type: 'update'; unifiedDiff?: string; movePath?: string };

/** A person and a moment of an exported commit. */
export interface ExportIdentity {
  name: string;
  email: string;
  /** ISO 8601 in the identity's own time zone */
  date: string;
  /** seconds since the Unix epoch */
  timestamp: number;
  /** git's `+hhmm`/`-hhmm` (`-0000`: zone unknown) */
  timezone: string;
}

export interface ExportRecord {
  type: 'patchtx_transaction';
  version: number;
  commit: string;
  /** the commit it was made on (null: the first commit of the branch) */
  base: string | null;
  tree: string;
  baseTree: string | null;
  patchId: string;
  /** the patch text kept in the transaction's note */
  patch: string;
  /** the whole commit message, trailers included, byte for byte */
  message: string;
  subject: string;
  trailers: { key: string; value: string }[];
  author: ExportIdentity;
  committer: ExportIdentity;
  /** for a revert made by `patchtx undo`: the commit it reverts */
  undoOf: string | null;
  files: { op: string; path: string; from?: string }[];
  /**
   * Paths whose uncommitted content the commit took in besides the patch (`--dirty=include`,
   * apply_patch): the patch text alone does not make this commit's tree.
   */
  uncommitted?: string[];
  /**
   * The commit's signature (its gpgsig header), when it was signed: a replay that keeps the
   * metadata and makes this very commit again puts it back, so the commit keeps its id.
   */
  gpgsig?: string;
  /** `show --json --regenerate` of a commit whose note is missing: `patch` was made from its diff */
  regenerated?: true;
  /** with `regenerated`: the patch would not make `tree` again (`regenerated_differs`, with the trees) */
  warnings?: { kind: 'regenerated_differs'; message: string; path: string; expected: string; actual: string | null }[];
}

export interface LogEntry {
  /** 0-based position among the entries of this log */
  index: number;
  format: LogFormat;
  /** the tool call's id, when the log gives one */
  callId: string | null;
  /** the session (Codex: session_meta.id) and turn, when the log gives them */
  session: string | null;
  turn: string | null;
  /** 1-based line of the log the call is on (JSON arrays: the 1-based item number) */
  line: number;
  /** how the call reached apply_patch: the tool or shell form, for messages */
  via: string;
  /** the patch text, as the call gave it (wrappers such as a heredoc included) */
  patch: string;
  /** the directory relative paths are resolved against: the call's own, else the turn's or session's */
  cwd: string | null;
  /** the session's own directory (Codex: session_meta.cwd), which a replay maps onto the repository */
  sessionCwd?: string | null;
  /** what the log says the call did: applied, failed, or not recorded */
  outcome: 'success' | 'failed' | 'unknown';
  /** the tool's output or error text, when recorded */
  output?: string;
  /** Codex: the changes patch_apply_end recorded, keyed by path as written there */
  recorded?: Map<string, RecordedChange>;
  /** patchtx's own export: the transaction's record (tree, message, author, committer) */
  record?: ExportRecord;
}
