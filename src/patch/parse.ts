// V4A patch text → Patch. Accepts what Codex's apply_patch accepts, with its messages and line
// numbers, plus a few deliberate extensions: wrappers around the envelope (envelope.ts), stacked
// `@@` headers that narrow the search step by step, an Update with only a Move-to (a pure
// rename), blank lines between hunks, and unified-diff `@@ -a,b +c,d @@` headers read as `@@`.
// Every path is validated here, so nothing downstream ever sees `..`, `.git` or an absolute path.
import { PatchtxError } from '../errors.js';
import { readEnvelope } from './envelope.js';
import {
  ADD_FILE,
  BEGIN_PATCH,
  CHUNK_CONTEXT_PREFIX,
  CHUNK_MARKER,
  DELETE_FILE,
  END_OF_FILE,
  END_PATCH,
  ENVIRONMENT_ID,
  HUNK_HEADERS,
  MOVE_TO,
  UPDATE_FILE,
  hunkHeaderOf,
  isBlankRust,
  trimEndRust,
  trimRust,
} from './grammar.js';
import { checkLineLength, checkPatchSize, limitsWith, tooManyOperations, type Limits } from './limits.js';
import { cwdPathProblem, pathProblem, plainPath, quotePath } from './paths.js';
import type { Chunk, ChunkLine, Hunk, Patch } from './types.js';

export interface ParsedInvocation {
  patch: Patch;
  /** the directory of a `cd DIR && apply_patch <<'EOF'` wrapper, as written */
  cwd?: string;
}

/**
 * Throws PatchtxError `parse_error` or `path_rejected` (data.line is 1-based, Begin = line 1), or
 * `limit_exceeded` when the text is beyond `limits` (defaults: DEFAULT_LIMITS).
 */
export function parsePatch(text: string, limits?: Partial<Limits>): Patch {
  const bounds = limitsWith(limits);
  checkTextLimits(text, bounds);
  return parseLines(readEnvelope(text).lines, bounds);
}

/**
 * parsePatch, also returning the `cd DIR` of a heredoc invocation wrapper. `pathsFromCwd`: the
 * paths are taken relative to a current directory, as Codex takes them, so `..` segments and
 * absolute paths are left for the caller to resolve (and to refuse what leaves the repository).
 */
export function parsePatchInvocation(text: string, opts: { limits?: Partial<Limits>; pathsFromCwd?: boolean } = {}): ParsedInvocation {
  const bounds = limitsWith(opts.limits);
  checkTextLimits(text, bounds);
  const envelope = readEnvelope(text);
  const patch = parseLines(envelope.lines, bounds, opts.pathsFromCwd === true);
  return envelope.cwd === undefined ? { patch } : { patch, cwd: envelope.cwd };
}

/** Size and line lengths, before any work; line numbers are those of the text as given. */
function checkTextLimits(text: string, limits: Limits): void {
  checkPatchSize(text, limits);
  // a line can only be too long when the text is: most patches skip the scan
  if (text.length * 3 <= limits.lineBytes) return;
  let index = 0;
  for (let start = 0; start <= text.length; index++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if ((end - start) * 3 > limits.lineBytes) checkLineLength(text.slice(start, end).replace(/\r$/, ''), index, limits);
    start = end + 1;
  }
}

/** `lines` = the accepted lines, Begin first and End last; indexes are line numbers - 1. */
function parseLines(lines: string[], limits: Limits, pathsFromCwd = false): Patch {
  const last = lines.length - 1;
  let i = 1;
  let environmentId: string | undefined;
  for (; i < last; i++) {
    const t = trimRust(lines[i]!);
    if (t === '') continue;
    if (!t.startsWith(ENVIRONMENT_ID)) break;
    const id = trimRust(t.slice(ENVIRONMENT_ID.length));
    if (id === '') throw hunkError(i, 'apply_patch environment_id cannot be empty');
    if (environmentId !== undefined) throw hunkError(i, 'apply_patch environment_id cannot be specified more than once');
    environmentId = id;
  }

  const hunks: Hunk[] = [];
  while (i < last) {
    const t = trimRust(lines[i]!);
    if (t === '') {
      i = skipBlankLines(lines, i, last, hunks.at(-1));
      continue;
    }
    const header = hunkHeaderOf(t);
    if (header === undefined) throw invalidHeader(i, t, hunks.at(-1));
    if (hunks.length >= limits.operations) throw tooManyOperations(i + 1, limits.operations);
    const path = checkedPath(t.slice(header.length), i, pathsFromCwd);
    if (header === ADD_FILE) {
      const contents: string[] = [];
      let k = i + 1;
      for (; k < last && lines[k]!.charCodeAt(0) === 0x2b /* + */; k++) contents.push(lines[k]!.slice(1));
      hunks.push({ kind: 'add', path, contents: contents.length === 0 ? '' : `${contents.join('\n')}\n`, line: i + 1 });
      i = k;
    } else if (header === DELETE_FILE) {
      hunks.push({ kind: 'delete', path, line: i + 1 });
      i++;
    } else {
      const update = parseUpdate(lines, i, last, path, pathsFromCwd);
      hunks.push(update.hunk);
      i = update.next;
    }
  }
  if (hunks.length === 0) {
    // The reference parses this and fails when applying; failing here keeps every error before I/O.
    throw new PatchtxError('parse_error', 'Invalid patch: No files were modified. The patch has no hunks.', {
      line: last + 1,
    });
  }
  const patch: Patch = { hunks, text: lines.join('\n') };
  if (environmentId !== undefined) patch.environmentId = environmentId;
  return patch;
}

/**
 * Blank lines where a hunk header is expected: skipped when a header (or End) follows, since the
 * reference's "'' is not a valid hunk header" helps nobody. Inside an Add body they are an error,
 * though: the author most likely meant an empty line, and guessing would change file contents.
 */
function skipBlankLines(lines: string[], i: number, last: number, prev: Hunk | undefined): number {
  let j = i + 1;
  while (j < last && isBlankRust(lines[j]!)) j++;
  if (prev?.kind === 'add' && j < last && lines[j]!.startsWith('+')) {
    throw hunkError(i, `${notAHeader(trimRust(lines[i]!))} (an empty line of an Add File body is written '+')`, prev.path);
  }
  return j;
}

interface DraftChunk {
  contexts: string[];
  lines: ChunkLine[];
  isEndOfFile: boolean;
  line: number;
}

/** Parses from the Update header at `header`; `next` = the line that ended the hunk. */
function parseUpdate(lines: string[], header: number, last: number, path: string, pathsFromCwd: boolean): { hunk: Hunk; next: number } {
  let k = header + 1;
  let moveTo: string | null = null;
  if (k < last) {
    const te = trimEndRust(lines[k]!);
    if (te.startsWith(MOVE_TO)) {
      moveTo = checkedPath(te.slice(MOVE_TO.length), k, pathsFromCwd);
      k++;
    }
  }

  const chunks: Chunk[] = [];
  let draft: DraftChunk | null = null;
  for (; k < last; k++) {
    const raw = lines[k]!;
    // Most lines are diff lines. One starting with ' ', '-' or '+' cannot be a header, a chunk
    // marker or End of File (they start with '*' or '@', and only the line's end is trimmed
    // for them), so it is taken without the checks below once a chunk is open.
    const first = raw.charCodeAt(0);
    if (draft !== null && (first === 0x20 || first === 0x2d || first === 0x2b)) {
      draft.lines.push({ op: first === 0x20 ? ' ' : first === 0x2d ? '-' : '+', text: raw.slice(1) });
      continue;
    }
    // Headers are checked on the right-trimmed line only: a line with leading blanks is a
    // context line, even one that reads like a header (a patch to a document about patches).
    const te = trimEndRust(raw);
    if (te === END_PATCH || hunkHeaderOf(te) !== undefined) break;

    if (te === CHUNK_MARKER || raw.startsWith(CHUNK_CONTEXT_PREFIX)) {
      if (draft !== null && draft.lines.length > 0) {
        chunks.push(finishChunk(draft));
        draft = null;
      }
      // A header right after a header stacks (the reference rejects it): `@@ class A` then
      // `@@ def f` means "find class A, then def f after it".
      draft ??= { contexts: [], lines: [], isEndOfFile: false, line: k + 1 };
      const context = te === CHUNK_MARKER ? null : chunkContext(raw.slice(CHUNK_CONTEXT_PREFIX.length));
      if (context !== null) draft.contexts.push(context);
      continue;
    }

    if (te === END_OF_FILE) {
      if (draft === null && chunks.length > 0) throw expectedChunkMarker(k, raw, path);
      if (draft === null || draft.lines.length === 0) throw hunkError(k, 'Update hunk does not contain any lines', path);
      draft.isEndOfFile = true;
      chunks.push(finishChunk(draft));
      draft = null;
      continue;
    }

    const op = raw === '' ? ' ' : raw[0];
    if (op === ' ' || op === '-' || op === '+') {
      if (draft === null) {
        // Between chunks (and before the first one) blank lines separate; they are not context.
        if (isBlankRust(raw)) continue;
        // Only the first chunk may leave out its `@@`.
        if (chunks.length > 0) throw expectedChunkMarker(k, raw, path);
        draft = { contexts: [], lines: [], isEndOfFile: false, line: k + 1 };
      }
      draft.lines.push({ op, text: raw === '' ? '' : raw.slice(1) });
      continue;
    }

    if (draft === null && isBlankRust(raw)) continue;
    if (draft === null ? chunks.length > 0 : draft.lines.length > 0) throw expectedChunkMarker(k, raw, path);
    throw unexpectedLine(k, raw, path);
  }

  if (draft !== null) {
    if (draft.lines.length === 0) {
      if (k === last || trimEndRust(lines[k]!) === END_PATCH) {
        throw hunkError(k, 'Update hunk does not contain any lines', path);
      }
      throw unexpectedLine(k, lines[k]!, path);
    }
    chunks.push(finishChunk(draft));
  }
  // No chunks but a destination is a plain rename (the reference calls it empty).
  if (chunks.length === 0 && moveTo === null) {
    throw hunkError(header, `Update file hunk for path '${path}' is empty`, path);
  }
  return { hunk: { kind: 'update', path, moveTo, chunks, line: header + 1 }, next: k };
}

// `@@ -12,7 +12,8 @@ optional function name`: a unified-diff header. Its numbers mean nothing
// to V4A and its tail is a possibly truncated line, so the chunk is treated as a bare `@@`.
const UNIFIED_HEADER = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;

/** The `@@ text` context, kept verbatim; null when it should not constrain the search. */
function chunkContext(text: string): string | null {
  return isBlankRust(text) || UNIFIED_HEADER.test(text) ? null : text;
}

function finishChunk(draft: DraftChunk): Chunk {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const { op, text } of draft.lines) {
    if (op !== '+') oldLines.push(text);
    if (op !== '-') newLines.push(text);
  }
  // Spelled out: an object spread here cost more than the rest of the parse put together.
  return {
    contexts: draft.contexts,
    lines: draft.lines,
    oldLines,
    newLines,
    isEndOfFile: draft.isEndOfFile,
    line: draft.line,
  };
}

/**
 * The path a header names, checked; from the repository root, `./src/x` means `src/x` (models
 * write it so), so '.' segments are dropped there, and repeated '/' are one (paths from a current
 * directory are resolved by the caller). Errors quote the path as written.
 */
function checkedPath(written: string, index: number, fromCwd: boolean): string {
  const path = fromCwd ? written : plainPath(written, true);
  const problem = fromCwd ? cwdPathProblem(written) : pathProblem(path);
  if (problem === null) return path;
  const line = index + 1;
  throw new PatchtxError('path_rejected', `Invalid patch hunk on line ${line}: path ${quotePath(written)} is rejected: ${problem}`, { path: written, line });
}

function hunkError(index: number, message: string, path?: string): PatchtxError {
  const line = index + 1;
  return new PatchtxError('parse_error', `Invalid patch hunk on line ${line}: ${message}`, path === undefined ? { line } : { line, path });
}

function notAHeader(t: string): string {
  return `'${t}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`;
}

function invalidHeader(index: number, t: string, prev: Hunk | undefined): PatchtxError {
  return hunkError(index, `${notAHeader(t)}${headerHint(t, prev)}`, prev?.path);
}

/** A short guess at the mistake, appended to the reference's message. */
function headerHint(t: string, prev: Hunk | undefined): string {
  if (t === END_PATCH || t === BEGIN_PATCH) {
    return ` (a patch is one '${BEGIN_PATCH}' ... '${END_PATCH}' block; '${t}' may appear only once)`;
  }
  if (t.startsWith(ENVIRONMENT_ID)) return ` ('${ENVIRONMENT_ID}' may only come before the first hunk)`;
  if (t.startsWith(MOVE_TO)) return ` ('${MOVE_TO.trimEnd()}' must directly follow '${UPDATE_FILE.trimEnd()}')`;
  if (t.startsWith(MOVE_FILE)) return moveFileHint(t.slice(MOVE_FILE.length));
  for (const h of HUNK_HEADERS) {
    if (t === h.trimEnd()) return ' (the path is missing)';
    if (t.toLowerCase().startsWith(h.toLowerCase())) return ' (markers are case-sensitive)';
  }
  if (t.startsWith('***')) return '';
  if (prev?.kind === 'add') return " (every line of an Add File body must start with '+')";
  if (prev?.kind === 'delete') return ' (a Delete File hunk has no body)';
  return '';
}

// `*** Move File: a -> b`, which some appliers take: V4A says it with Update File and Move to.
// Refused rather than read, so that what a patch means has one spelling; the hint shows it.
const MOVE_FILE = '*** Move File:';

function moveFileHint(rest: string): string {
  const arrow = rest.indexOf(' -> ');
  const [from, to] = arrow === -1 ? ['OLD', 'NEW'] : [trimRust(rest.slice(0, arrow)), trimRust(rest.slice(arrow + 4))];
  return ` (V4A has no Move File: write '${UPDATE_FILE}${from}' and, on the next line, '${MOVE_TO}${to}')`;
}

function unexpectedLine(index: number, raw: string, path: string): PatchtxError {
  return hunkError(
    index,
    `Unexpected line found in update hunk: '${raw}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)${lineHint(raw)}`,
    path,
  );
}

function expectedChunkMarker(index: number, raw: string, path: string): PatchtxError {
  return hunkError(index, `Expected update hunk to start with a @@ context marker, got: '${raw}'${lineHint(raw)}`, path);
}

/** A guess at why a line inside an Update hunk is not a diff line. */
function lineHint(raw: string): string {
  if (raw.startsWith('\\')) return " (V4A has no '\\ No newline at end of file' marker; drop the line)";
  if (raw.startsWith('@@')) return " (a chunk header is '@@' alone or '@@ ' followed by a line of the file)";
  if (raw.startsWith(MOVE_TO)) return ` ('${MOVE_TO.trimEnd()}' must directly follow '${UPDATE_FILE.trimEnd()}')`;
  if (raw.startsWith('*')) return '';
  // A diff line can only be out of place after `*** End of File` closed the previous chunk.
  if (raw[0] === ' ' || raw[0] === '+' || raw[0] === '-') return " (every chunk after the first needs its own '@@' line)";
  if (raw.startsWith('\t')) return ' (did you forget the leading space of a context line? This line starts with a tab)';
  return ' (did you forget the leading space of a context line?)';
}
