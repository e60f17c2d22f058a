// Bytes <-> text for files being updated, and the rebuild of a file from its placed chunks.
//
// The rebuild follows the reference's preserve-line-endings mode (always on here): only the
// runs of removed/added lines between context lines change; context lines and untouched lines
// keep their own characters and terminators, even when they were matched fuzzily; inserted
// lines get the file's preferred ending; after an update every line is terminated (unless no
// line is left).
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { PatchtxError } from '../errors.js';
import type { LineEdit } from '../match/locate.js';
import type { FileLines } from './lines.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * The text of `bytes` when they are UTF-8 text (valid UTF-8, no NUL byte), else undefined.
 * A BOM is kept as the first character.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  let text: string;
  if (isAscii(bytes)) {
    // Pure ASCII (most source files): a single-byte decode gives the same string, much faster.
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  } else {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  return text.indexOf('\0') === -1 ? text : undefined;
}

/**
 * The text of a file that is about to be updated. Files that are not valid UTF-8, or contain
 * NUL (binary), are refused: rewriting them as text would corrupt them.
 */
export function decodeFileText(bytes: Uint8Array, path: string): string {
  const text = decodeText(bytes);
  if (text !== undefined) return text;
  const reason =
    isUtf8(bytes) ? 'it contains NUL bytes (a binary file)'
      : 'stream did not contain valid UTF-8';
  throw new PatchtxError(
    'binary_or_encoding',
    `Failed to read file to update ${path}: ${reason}; patchtx updates UTF-8 text files only ` +
      `(replace such a file with Delete File + Add File)`,
    { path },
  );
}

/** True when `bytes` would be accepted by decodeFileText. */
export function isTextContent(bytes: Uint8Array): boolean {
  return decodeText(bytes) !== undefined;
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Where rebuilt content goes: stretches of the original text, and new text. */
interface PieceSink {
  /** the original text from offset `from` to `to` */
  copy(from: number, to: number): void;
  add(text: string): void;
}

/**
 * The file after applying `edits` (sorted by start; each edit's lines begin at its start line).
 * Untouched stretches are copied as one slice each, so the cost is the number of edits plus
 * one copy of the text, not a per-line join.
 */
export function rebuildText(file: FileLines, edits: readonly LineEdit[]): string {
  const pieces: string[] = [];
  const { text } = file;
  writePieces(file, edits, {
    copy: (from, to) => pieces.push(text.slice(from, to)),
    add: (s) => pieces.push(s),
  });
  return pieces.join('');
}

/**
 * rebuildText, encoded as UTF-8. When `source` is given it must be the bytes the file's text
 * was decoded from: untouched stretches are then copied as bytes and only the new lines are
 * encoded, instead of joining and re-encoding the whole text. Character offsets are turned
 * into byte offsets as the copy moves forward (identical for ASCII; otherwise the UTF-8 length
 * of each stretch in between, one pass over the text in all).
 */
export function rebuildBytes(file: FileLines, edits: readonly LineEdit[], source?: Uint8Array): Uint8Array {
  if (source === undefined) return encoder.encode(rebuildText(file, edits));
  const { text } = file;
  const oneBytePerChar = source.length === text.length;
  let charAt = 0;
  let byteAt = 0;
  const byteOffset = (offset: number): number => {
    if (oneBytePerChar) return offset;
    byteAt += Buffer.byteLength(text.slice(charAt, offset), 'utf8');
    charAt = offset;
    return byteAt;
  };
  const pieces: Uint8Array[] = [];
  let length = 0;
  writePieces(file, edits, {
    copy: (from, to) => {
      const piece = source.subarray(byteOffset(from), byteOffset(to));
      pieces.push(piece);
      length += piece.length;
    },
    add: (s) => {
      const encoded = encoder.encode(s);
      pieces.push(encoded);
      length += encoded.length;
    },
  });
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * Merges what is written into as few pieces as possible: adjacent stretches of the original
 * become one copy (a context line right after an untouched stretch, say), consecutive new
 * lines one string (encoded once).
 */
function coalescing(sink: PieceSink): PieceSink & { flush(): void } {
  let copyFrom = -1;
  let copyTo = -1;
  let added = '';
  const flushCopy = (): void => {
    if (copyFrom !== -1) sink.copy(copyFrom, copyTo);
    copyFrom = -1;
  };
  const flushAdded = (): void => {
    if (added !== '') sink.add(added);
    added = '';
  };
  return {
    copy(from, to) {
      flushAdded();
      if (copyFrom !== -1 && copyTo === from) {
        copyTo = to;
      } else {
        flushCopy();
        copyFrom = from;
        copyTo = to;
      }
    },
    add(text) {
      flushCopy();
      added += text;
    },
    flush() {
      flushCopy();
      flushAdded();
    },
  };
}

function writePieces(file: FileLines, edits: readonly LineEdit[], target: PieceSink): void {
  const { text, starts, ends, count, preferredEnding, prefixLength } = file;
  const sink = coalescing(target);
  // Set when the last thing written is the file's unterminated last line: anything written
  // after it, and the end of an updated file, needs a terminator first.
  let unterminated = false;
  let wroteLine = false;
  let next = 0; // first file line not yet written or skipped

  const copyLines = (from: number, to: number): void => {
    if (from >= to) return;
    if (!wroteLine && prefixLength > 0) sink.copy(0, prefixLength); // the BOM, once, in front
    if (unterminated) sink.add(preferredEnding);
    sink.copy(starts[from]!, starts[to]!);
    unterminated = to === count && ends[count - 1] === text.length;
    wroteLine = true;
  };
  const addLine = (line: string): void => {
    if (!wroteLine && prefixLength > 0) sink.copy(0, prefixLength);
    sink.add(unterminated ? preferredEnding + line + preferredEnding : line + preferredEnding);
    unterminated = false;
    wroteLine = true;
  };

  for (const edit of edits) {
    if (edit.start < next) {
      throw new PatchtxError('internal', `overlapping edits at line ${edit.start + 1} (chunk ${edit.chunk})`);
    }
    copyLines(next, edit.start);
    let i = edit.start;
    for (const line of edit.lines) {
      if (line.op === ' ') {
        copyLines(i, i + 1); // the file's own text and terminator, not the patch's spelling
        i++;
      } else if (line.op === '-') {
        i++;
      } else {
        addLine(line.text);
      }
    }
    next = i;
  }
  copyLines(next, count);
  // Every line ends terminated after an update; a file with no line left is empty (its BOM
  // goes too: nothing was written).
  if (unterminated) sink.add(preferredEnding);
  sink.flush();
}
