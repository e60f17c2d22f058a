// The parsed form of a V4A patch: plain data, produced by parse.ts, consumed by the engine.

export interface ChunkLine {
  /** ' ' context (in old and new), '-' removed (old only), '+' added (new only) */
  op: ' ' | '-' | '+';
  text: string;
}

export interface Chunk {
  /**
   * The `@@ text` headers that open this chunk, in order. Empty for a bare `@@` or for an
   * implicit first chunk. Several entries (stacked `@@` lines) narrow the search step by step.
   */
  contexts: string[];
  lines: ChunkLine[];
  /** context + removed lines, in order (what must be found in the file) */
  oldLines: string[];
  /** context + added lines, in order (what replaces it) */
  newLines: string[];
  /** `*** End of File` closed the chunk: it must match at the end of the file */
  isEndOfFile: boolean;
  /** 1-based patch line where the chunk starts (its first `@@`, or its first diff line) */
  line: number;
}

/**
 * Where a hunk made from an edit operation (or an Aider block, or a unified diff's file) came
 * from, so that its error names it: `operations[index] (name)`.
 */
export interface HunkOrigin {
  /** 0-based index of the operation in the list it was given in */
  index: number;
  /** the operation's verb (`str_replace`, `create`...) or what it was read from */
  name: string;
}

/** A change to one existing file's content or mode that V4A cannot express (see src/edits). */
export type ContentEdit =
  | {
      type: 'str_replace';
      old: string;
      new: string;
      replaceAll: boolean;
      /** old and new are whole lines (an Aider block): old's last line may be a file's last line without a line break */
      wholeLines?: true;
    }
  | { type: 'insert'; line: number; text: string }
  /** an Aider block with an empty SEARCH part: the text goes at the end of the file */
  | { type: 'append'; text: string }
  /** a unified diff's hunks for one file, placed as `git apply` places them; `remove`: the result must be empty */
  | { type: 'hunks'; hunks: DiffHunk[]; remove: boolean }
  | { type: 'mode'; mode: '100644' | '100755' };

/** One `@@ -a,b +c,d @@` hunk of a unified diff, its lines with their terminators. */
export interface DiffHunk {
  oldStart: number;
  newStart: number;
  /** the lines the file must have at the place (context and removed), each with its `\n` unless at a missing final newline */
  before: string[];
  /** what replaces them (context and added) */
  after: string[];
  /** lines of context before the first change and after the last one */
  leading: number;
  trailing: number;
  /** 1-based line of the `@@` header in the diff text */
  line: number;
}

export type Hunk =
  | {
      kind: 'add';
      path: string;
      /** the `+` lines, each followed by `\n` (zero lines = empty file) */
      contents: string;
      line: number;
      /** an existing file is an error (`already_exists`) instead of being overwritten */
      exclusive?: boolean;
      /** the contents are the file as git stores it (a unified diff's new file): committed as they are */
      stored?: true;
      origin?: HunkOrigin;
    }
  | { kind: 'delete'; path: string; line: number; origin?: HunkOrigin }
  | {
      kind: 'update';
      path: string;
      /** `*** Move to:` destination, or null */
      moveTo: string | null;
      /** zero chunks only with a moveTo (a pure rename) */
      chunks: Chunk[];
      line: number;
      /** a move onto an existing file is an error (`already_exists`) instead of overwriting it */
      exclusive?: boolean;
      origin?: HunkOrigin;
    }
  | { kind: 'edit'; path: string; edit: ContentEdit; line: number; origin?: HunkOrigin };

export interface Patch {
  hunks: Hunk[];
  /** canonical patch text: the accepted lines (envelope and wrappers removed) joined with `\n` */
  text: string;
  /** `*** Environment ID:` preamble, when present */
  environmentId?: string;
  /**
   * The directory of a `cd DIR && apply_patch <<'EOF'` wrapper, as written, when the library's
   * parsePatch read one: the hunks' paths are relative to it (applyPatch applies them there;
   * planPatch takes the paths as they are).
   */
  cwd?: string;
}
