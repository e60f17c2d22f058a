// Texts before and after → a V4A patch that turns one into the other (undo, property tests, the
// benchmark).
//
// A V4A applier finds each chunk by searching for its old lines from where the previous chunk
// ended, taking the first match. A chunk whose old lines also occur earlier in that range would
// land in the wrong place, so each chunk gets more context (towards the previous chunk first,
// then towards the next) until its old lines occur exactly once from that point on; a chunk that
// reaches the end of the file is pinned there with `*** End of File`.
//
// What V4A cannot say, and so what a round trip loses:
//  - "no newline at end of file": an Update rewrites every line terminated, an Add ends every
//    line with `\n`. A change that only adds the final newline is still emitted (a context-only
//    chunk at the end); one that only removes it cannot be.
//  - line endings of an Update: chunk lines are compared and written without their `\r\n`/`\n`;
//    the applier's line-ending policy decides what is written. A change that only converts
//    line endings produces no chunk.
//  - a lone `\r` is kept inside a line (the patch format does not split on it), which an applier
//    that treats lone CR as a line break will not match.
// Add bodies are exact for CRLF text: a patch line loses one trailing `\r` when read, so a line
// whose text ends in `\r` is written with one more.
import { diffArrays } from 'diff';
import { PatchtxError } from '../errors.js';
import { ADD_FILE, BEGIN_PATCH, CHUNK_MARKER, DELETE_FILE, END_OF_FILE, END_PATCH, UPDATE_FILE, trimEndRust } from './grammar.js';
import { checkPatchPath, quotePath } from './paths.js';

export interface FileTexts {
  path: string;
  /** null: the file does not exist before (Add) */
  before: string | null;
  /** null: the file does not exist after (Delete) */
  after: string | null;
}

/** Lines of unchanged context around each change, as in unified diffs. */
const CONTEXT = 3;

/**
 * Throws `path_rejected` for a path a patch cannot name, and `no_changes` when no file has a
 * difference V4A can express (an envelope without hunks would not parse).
 */
export function createPatchFromTexts(files: FileTexts[]): string {
  const out: string[] = [BEGIN_PATCH];
  for (const { path, before, after } of files) {
    if (before === after) continue;
    checkPatchPath(path);
    if (trimEndRust(path) !== path) {
      // The header's path is the rest of the *trimmed* line.
      throw new PatchtxError('path_rejected', `Path ${quotePath(path)} ends with whitespace, which a V4A header cannot carry`, { path });
    }
    if (before === null) {
      out.push(ADD_FILE + path);
      for (const line of addLines(after!)) out.push(`+${line}`);
    } else if (after === null) {
      out.push(DELETE_FILE + path);
    } else {
      const chunks = updateChunks(before, after);
      if (chunks.length > 0) out.push(UPDATE_FILE + path, ...chunks);
    }
  }
  if (out.length === 1) {
    throw new PatchtxError('no_changes', 'No files were modified: the texts differ in nothing a V4A patch can express.');
  }
  out.push(END_PATCH);
  return `${out.join('\n')}\n`;
}

/** A patch line loses one trailing `\r` when read back; give it one to lose. */
function encode(line: string): string {
  return line.charCodeAt(line.length - 1) === 0x0d ? `${line}\r` : line;
}

/** Raw lines of an added file, each `\r` kept (the Add body is written byte for byte). */
function addLines(text: string): string[] {
  if (text === '') return [];
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map(encode);
}

interface Lines {
  /** line texts without their `\n` or `\r\n` */
  lines: string[];
  /** the text ends with a newline (or is empty) */
  terminated: boolean;
}

function toLines(text: string): Lines {
  if (text === '') return { lines: [], terminated: true };
  const terminated = text.endsWith('\n');
  const lines = (terminated ? text.slice(0, -1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.charCodeAt(l.length - 1) === 0x0d) lines[i] = l.slice(0, -1);
  }
  return { lines, terminated };
}

/** One run of changed lines: `bLen` lines at `b` in the old text became `aLen` lines at `a`. */
interface Edit {
  b: number;
  bLen: number;
  a: number;
  aLen: number;
}

function editsBetween(old: string[], neu: string[]): Edit[] {
  const edits: Edit[] = [];
  let b = 0;
  let a = 0;
  let current: Edit | null = null;
  for (const change of diffArrays(old, neu)) {
    const count = change.value.length;
    if (change.removed || change.added) {
      current ??= { b, bLen: 0, a, aLen: 0 };
      if (change.removed) {
        current.bLen += count;
        b += count;
      } else {
        current.aLen += count;
        a += count;
      }
    } else {
      if (current !== null) edits.push(current);
      current = null;
      b += count;
      a += count;
    }
  }
  if (current !== null) edits.push(current);
  return edits;
}

const editEnd = (e: Edit): number => e.b + e.bLen;

/** The chunk lines (from `@@` on) of an Update turning `before` into `after`; [] if none. */
function updateChunks(before: string, after: string): string[] {
  const old = toLines(before);
  const neu = toLines(after);
  const edits = editsBetween(old.lines, neu.lines);
  const n = old.lines.length;
  const out: string[] = [];
  if (edits.length === 0) {
    // Same lines; only an added final newline is expressible: rewriting the tail adds it.
    if (!old.terminated && neu.terminated) emitChunk(out, old.lines, neu.lines, [], Math.max(0, n - CONTEXT), n);
    return out;
  }

  let cursor = 0;
  for (let first = 0; first < edits.length;) {
    let last = first;
    while (last + 1 < edits.length && edits[last + 1]!.b - editEnd(edits[last]!) <= 2 * CONTEXT) last++;
    let s = Math.max(cursor, edits[first]!.b - CONTEXT);
    let e = Math.min(n, editEnd(edits[last]!) + CONTEXT);
    // Grow geometrically: a file of many identical lines must not cost one search per line.
    let lead = 1;
    let trail = 1;
    while (e !== n && !occursOnlyAt(old.lines, s, e, cursor)) {
      // The trailing context must stop where the next change starts, or that change's lines
      // would be behind the cursor; when it gets there, that change joins this chunk.
      const limit = last + 1 < edits.length ? edits[last + 1]!.b : n;
      if (s > cursor) {
        s = Math.max(cursor, s - lead);
        lead *= 2;
      } else if (e < limit) {
        e = Math.min(limit, e + trail);
        trail *= 2;
      } else {
        last++;
        e = Math.min(n, editEnd(edits[last]!) + CONTEXT);
      }
    }
    emitChunk(out, old.lines, neu.lines, edits.slice(first, last + 1), s, e);
    cursor = e;
    first = last + 1;
  }
  return out;
}

/** Whether old[s, e) occurs at no other position p ≥ from. */
function occursOnlyAt(lines: string[], s: number, e: number, from: number): boolean {
  const len = e - s;
  if (len === 0) return false;
  const head = lines[s];
  for (let p = from; p + len <= lines.length; p++) {
    if (p === s || lines[p] !== head) continue;
    let k = 1;
    while (k < len && lines[p + k] === lines[s + k]) k++;
    if (k === len) return false;
  }
  return true;
}

/** One chunk covering old[s, e), which contains `edits`; pinned to EOF when it reaches the end. */
function emitChunk(out: string[], old: string[], neu: string[], edits: Edit[], s: number, e: number): void {
  out.push(CHUNK_MARKER);
  let p = s;
  for (const edit of edits) {
    for (; p < edit.b; p++) out.push(` ${encode(old[p]!)}`);
    for (let q = 0; q < edit.bLen; q++) out.push(`-${encode(old[edit.b + q]!)}`);
    for (let q = 0; q < edit.aLen; q++) out.push(`+${encode(neu[edit.a + q]!)}`);
    p = editEnd(edit);
  }
  for (; p < e; p++) out.push(` ${encode(old[p]!)}`);
  if (e === old.length) out.push(END_OF_FILE);
}
