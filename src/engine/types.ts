// The engine's contract: a parsed patch plus a read-only view of the current files in,
// a plan (final contents of every touched path) out. No disk I/O anywhere below this line.

import type { MatchWarning } from '../match/locate.js';
import type { WarningKind } from '../warnings.js';
import type { LineForm } from '../edits/line-form.js';

export interface FileLookup {
  /** bytes of the regular file at `path`, or undefined when there is no file there */
  read(path: string): Uint8Array | undefined;
  /** true when `path` is a directory (some file lives below it) */
  isDirectory(path: string): boolean;
}

export interface PlanOptions {
  /**
   * Strict mode turns silent choices into errors: an ambiguous chunk match (`ambiguous_match`),
   * a match that needed more than trailing whitespace ignored (`context_not_found`), Add onto an
   * existing file and Move onto an existing file (`already_exists`).
   */
  strict?: boolean;
  /**
   * The line comparisons locating the chunks of the whole patch may cost (see src/match/budget.ts);
   * beyond it, `limit_exceeded`. Default: DEFAULT_LIMITS.matchWork.
   */
  matchWork?: number;
  /**
   * Whose rules decide final newlines. `codex` (the default, Codex's apply_patch): an added file
   * ends with a newline, and so does every updated file. `agents-sdk` (the OpenAI Agents SDK's
   * applyDiff): an added file's last line has none, and an updated file ends with a newline only
   * when it did before.
   */
  dialect?: Dialect;
  /**
   * The conversions of a file between the working tree and what git stores, for the files whose
   * line endings (or `$Id$`) git converts: a unified diff's hunks are placed in the stored form,
   * as `git apply` places them (src/edits/line-form.ts). None: the files are patched as they are.
   */
  lineForms?: (path: string) => LineForm | undefined;
}

export type Dialect = 'codex' | 'agents-sdk';

/** Net effect on one path relative to the base, in order of first touch. */
export interface FileChange {
  op: 'A' | 'M' | 'D' | 'R';
  /** the path as it is after the patch (for D: the deleted path) */
  path: string;
  /** for R: the old path */
  from?: string;
}

/** A matcher's warning (see MatchWarning), or one of the layers above it; kinds: WARNING_KINDS. */
export interface PlanWarning extends Omit<MatchWarning, 'kind'> {
  kind: WarningKind;
  /** dirty_included: the uncommitted changes were replaced, not taken into the commit */
  replaced?: true;
  /** commit_id_unknown: what sets the id when the commit is made (`signing`, a hook's name) */
  reasons?: string[];
}

export interface Plan {
  /** final content of every path the patch touched; null = the path no longer exists */
  files: Map<string, Uint8Array | null>;
  /** net A/M/D/R changes relative to the base (paths whose final bytes equal the base are left out) */
  changes: FileChange[];
  /** Codex-style summary lines, one per hunk: `A path`, `M path` (destination for a move), `D path` */
  summary: string[];
  warnings: PlanWarning[];
  /** new file modes set by the patch (a unified diff's mode change), by path after the patch */
  modes?: Map<string, '100644' | '100755'>;
  /**
   * The paths whose content a unified diff gave last, with that content as git stores it: a new
   * file's lines, or a diff's result placed in the stored form (edits/line-form.ts). `git apply
   * --index` commits these as they are, with no clean conversion, and checks them out converted.
   */
  stored?: Map<string, string>;
}
