// Every failure patchtx reports is a PatchtxError with a stable `kind` (also exposed as `code`,
// as isomorphic-git does) and structured data, so callers (agents, CI bots) can act on it
// without parsing the message. The kinds, their exit codes and their meanings are one table
// (ERROR_KINDS): the README's exit-code table is generated from it (test/errors.test.ts).

interface KindInfo {
  /** the process exit code of the programs for this kind */
  readonly exit: number;
  /** one line for the README's table */
  readonly meaning: string;
}

/** Every error kind, in the order the README lists them (by exit code). */
export const ERROR_KINDS = {
  context_not_found: { exit: 1, meaning: "a chunk's old lines or `@@` context are not in the file (the closest region is named)" },
  ambiguous_match: { exit: 1, meaning: 'strict mode: a chunk matches at more than one place' },
  file_not_found: { exit: 1, meaning: 'a file to update, delete or move does not exist' },
  already_exists: { exit: 1, meaning: 'strict mode: Add File or a move onto a file that exists' },
  is_directory: { exit: 1, meaning: 'the patch names a directory where it needs a file' },
  binary_or_encoding: { exit: 1, meaning: 'a file to update is not UTF-8 text' },
  no_changes: { exit: 1, meaning: 'a Patch with no hunk given to the library (patch text without one is a `parse_error`)' },
  usage: { exit: 2, meaning: 'the invocation is wrong: an option, an argument, an operation in progress in the checkout' },
  not_a_repository: { exit: 2, meaning: 'no git repository where one is needed' },
  unsupported_repository: { exit: 2, meaning: 'a repository feature patchtx does not handle (named), or a git directory it cannot write' },
  bad_revision: { exit: 2, meaning: 'a revision or ref that does not resolve' },
  missing_identity: { exit: 2, meaning: 'no author or committer name and email configured' },
  missing_object: { exit: 2, meaning: 'an object the repository should hold is absent (shallow or partial clone, pruned)' },
  limit_exceeded: { exit: 2, meaning: 'a bound on input size or matching work was exceeded (how to raise it is named)' },
  corrupt_repository: { exit: 2, meaning: 'an object or file git wrote does not parse' },
  parse_error: { exit: 3, meaning: 'the patch text is malformed (the line is named)' },
  path_rejected: {
    exit: 4,
    meaning:
      'a path is not acceptable: absolute, a `..` segment, `.git`, backslash, control characters, a symbolic link or submodule on the way, a name of more than 255 bytes, a path of 4,096 bytes or more with the working tree in front',
  },
  stale: { exit: 5, meaning: 'the branch moved, the expected head or base did not match, or another process holds a lock: retry' },
  dirty: { exit: 6, meaning: 'touched paths have uncommitted changes (listed)' },
  undo_refused: { exit: 7, meaning: 'the commit cannot be undone (the reason is named)' },
  internal: { exit: 70, meaning: 'a bug: one line; `PATCHTX_DEBUG=1` adds the stack' },
  io_error: { exit: 74, meaning: 'the file system refused: disk full, read-only file system, permission denied (the cause is named)' },
  replay_mismatch: { exit: 8, meaning: 'replay: an entry would not make the tree its log records, or cannot be reproduced (named)' },
  commit_refused: { exit: 9, meaning: 'a commit hook or the signing program failed: nothing was committed (its output is shown)' },
} as const satisfies Record<string, KindInfo>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** Fields any kind may carry; each kind's own are in ErrorDataByKind. */
export interface ErrorData {
  /** the path the error is about, as spelled in the patch */
  path?: string;
  /** 1-based chunk number within the Update hunk */
  chunk?: number;
  /** 1-based line number in the patch text */
  line?: number;
  /** 1-based file line numbers where a chunk could also match, or where the closest region starts */
  candidates?: number[];
  /** several paths (dirty, undo_refused) */
  paths?: string[];
  /**
   * The caller's option whose value is wrong (an ApplyOptions key: `ref`, `base`, `trailers`...);
   * the programs name their flag for it.
   */
  option?: string;
  /** 0-based index of the edit operation (Aider block, file of a unified diff) the error is about */
  operation?: number;
  /** The option setting that would get past this error; the programs name their flag for it. */
  remedy?: { option: string; value: string };
  [key: string]: unknown;
}

type Located = { path: string; chunk?: number; line?: number; candidates?: number[] };

/** The data each kind carries besides ErrorData's common fields. */
export interface ErrorDataByKind {
  context_not_found: Located;
  ambiguous_match: Located & { candidates: number[] };
  file_not_found: Located & { suggestion?: string };
  already_exists: Located & { from?: string; conflictsWith?: string };
  is_directory: { path?: string; line?: number };
  binary_or_encoding: { path: string };
  no_changes: Record<string, never>;
  usage: { ref?: string; target?: string; file?: string; key?: string; option?: string; value?: unknown; variable?: string; reason?: string };
  not_a_repository: { dir?: string; file?: string; gitdir?: string };
  unsupported_repository: { feature?: string; path?: string; reason?: string };
  bad_revision: { revision?: string; ref?: string; commit?: string };
  missing_identity: { role: 'author' | 'committer'; missing: string[] };
  missing_object: { oid: string; path?: string; commit?: string };
  /** `limit`: the Limits key; `max`: its value */
  limit_exceeded: { limit: string; max: number };
  corrupt_repository: { oid?: string; path?: string; pack?: string; offset?: number; ref?: string; type?: string };
  parse_error: { line?: number; offset?: number; format?: string | null };
  path_rejected: { path: string; reason?: string; by?: string; line?: number };
  stale: { ref?: string; expected?: string | null; actual?: string | null; journal?: string; pid?: number };
  dirty: { paths: string[]; reasons?: Record<string, string | undefined> };
  undo_refused: { commit?: string; paths?: string[] };
  internal: { path?: string };
  /** `errno`: the system's code (ENOSPC, EROFS, EACCES...) */
  io_error: { path?: string; errno?: string };
  /** `expected`/`actual`: tree ids; `paths`: what differs or cannot be reproduced */
  replay_mismatch: { expected?: string; actual?: string; paths?: string[]; reason?: string };
  /** `hook`: the hook that failed, or `program`: the signing program; `status`: its exit status */
  commit_refused: { hook?: string; program?: string; status?: number | null; output: string };
}

export type ErrorDataOf<K extends ErrorKind> = ErrorDataByKind[K] & ErrorData;

export class PatchtxError<K extends ErrorKind = ErrorKind> extends Error {
  readonly kind: K;
  readonly data: ErrorData;

  // `{} extends T`: every field of T is optional, so the data argument may be left out
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  constructor(kind: K, message: string, ...data: {} extends ErrorDataOf<K> ? [data?: ErrorDataOf<K>] : [data: ErrorDataOf<K>]) {
    super(message);
    this.name = 'PatchtxError';
    this.kind = kind;
    this.data = data[0] ?? {};
  }

  /** isomorphic-git style alias of `kind` */
  get code(): K {
    return this.kind;
  }

  toJSON(): { kind: K; message: string } & ErrorData {
    return { kind: this.kind, message: this.message, ...this.data };
  }
}

export function isPatchtxError(e: unknown): e is PatchtxError {
  return e instanceof PatchtxError;
}

/** The exit code of the programs for `kind` (see ERROR_KINDS). */
export function exitCodeFor(kind: ErrorKind): number {
  return ERROR_KINDS[kind]?.exit ?? ERROR_KINDS.internal.exit;
}
