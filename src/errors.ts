// Every failure patchtx reports is a PatchtxError with a stable `kind` (also exposed as `code`,
// as isomorphic-git does) and structured data, so callers (agents, CI bots) can act on it
// without parsing the message.

export type ErrorKind =
  // the patch text itself is malformed (exit 3)
  | 'parse_error'
  // a path in the patch is not acceptable: absolute, `..`, `.git`, symlink prefix, gitlink (exit 4)
  | 'path_rejected'
  // the patch does not apply to the files it names (exit 1)
  | 'context_not_found'
  | 'ambiguous_match'
  | 'file_not_found'
  | 'already_exists'
  | 'is_directory'
  | 'binary_or_encoding'
  | 'no_changes'
  // transaction-level outcomes
  | 'stale' // the branch moved, or another patchtx holds the lock (exit 5)
  | 'dirty' // touched paths have uncommitted changes (exit 6)
  | 'undo_refused' // exit 7
  // the invocation or the environment is wrong (exit 2)
  | 'usage'
  | 'not_a_repository'
  | 'unsupported_repository'
  | 'bad_revision'
  | 'missing_identity'
  // an object the repository should hold is absent (shallow or partial clone, pruned) (exit 2)
  | 'missing_object'
  // a configured bound on input size or matching work was exceeded; options raise them (exit 2)
  | 'limit_exceeded'
  // the repository is corrupt: an object or file git wrote does not parse (exit 2)
  | 'corrupt_repository'
  // the file system refused: disk full, read-only, permission denied, name too long (exit 74)
  | 'io_error'
  // a bug we did not expect (exit 70)
  | 'internal';

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
  [key: string]: unknown;
}

export class PatchtxError extends Error {
  readonly kind: ErrorKind;
  readonly data: ErrorData;

  constructor(kind: ErrorKind, message: string, data: ErrorData = {}) {
    super(message);
    this.name = 'PatchtxError';
    this.kind = kind;
    this.data = data;
  }

  /** isomorphic-git style alias of `kind` */
  get code(): ErrorKind {
    return this.kind;
  }

  toJSON(): { kind: ErrorKind; message: string } & ErrorData {
    return { kind: this.kind, message: this.message, ...this.data };
  }
}

export function isPatchtxError(e: unknown): e is PatchtxError {
  return e instanceof PatchtxError;
}

/** Exit code per error class; the README lists them. */
export function exitCodeFor(kind: ErrorKind): number {
  switch (kind) {
    case 'parse_error':
      return 3;
    case 'path_rejected':
      return 4;
    case 'stale':
      return 5;
    case 'dirty':
      return 6;
    case 'undo_refused':
      return 7;
    case 'usage':
    case 'not_a_repository':
    case 'unsupported_repository':
    case 'bad_revision':
    case 'missing_identity':
    case 'missing_object':
    case 'limit_exceeded':
    case 'corrupt_repository':
      return 2;
    case 'io_error':
      return 74;
    case 'internal':
      return 70;
    default:
      return 1;
  }
}
