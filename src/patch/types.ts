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

export type Hunk =
  | {
      kind: 'add';
      path: string;
      /** the `+` lines, each followed by `\n` (zero lines = empty file) */
      contents: string;
      line: number;
    }
  | { kind: 'delete'; path: string; line: number }
  | {
      kind: 'update';
      path: string;
      /** `*** Move to:` destination, or null */
      moveTo: string | null;
      /** zero chunks only with a moveTo (a pure rename) */
      chunks: Chunk[];
      line: number;
    };

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
