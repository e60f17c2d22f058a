// Bytes <-> text for files being updated, and the rebuild of a file from its placed chunks.
//
// The rebuild follows the reference's preserve-line-endings mode (always on here): only the
// runs of removed/added lines between context lines change; context lines and untouched lines
// keep their own characters and terminators, even when they were matched fuzzily; inserted
// lines get the file's preferred ending; after an update every line is terminated (unless no
// line is left).
import { Buffer, isAscii } from 'node:buffer';
import { PatchtxError } from '../errors.js';
import type { LineEdit } from '../match/locate.js';
import type { FileLines } from './lines.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * The text of a file that is about to be updated. Files that are not valid UTF-8, or contain
 * NUL (binary), are refused: rewriting them as text would corrupt them.
 */
export function decodeFileText(bytes: Uint8Array, path: string): string {
  let text: string;
  if (isAscii(bytes)) {
    // Pure ASCII (most source files): a single-byte decode gives the same string, faster.
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  } else {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      throw new PatchtxError(
        'binary_or_encoding',
        `Failed to read file to update ${path}: stream did not contain valid UTF-8 ` +
          `(patchtx updates UTF-8 text files only; replace the file with Delete File + Add File)`,
        { path },
      );
    }
  }
  if (text.indexOf('\0') !== -1) {
    throw new PatchtxError(
      'binary_or_encoding',
      `Failed to read file to update ${path}: it contains NUL bytes (a binary file); ` +
        `patchtx updates text files only`,
      { path },
    );
  }
  return text;
}

/** True when `bytes` would be accepted by decodeFileText. */
export function isTextContent(bytes: Uint8Array): boolean {
  if (isAscii(bytes)) return bytes.indexOf(0) === -1;
  try {
    return strictUtf8.decode(bytes).indexOf('\0') === -1;
  } catch {
    return false;
  }
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The file after applying `edits` (sorted by start; each edit's lines begin at its start line).
 * Untouched stretches are copied as one slice each, so the cost is the number of edits plus
 * one copy of the text, not a per-line join.
 */
export function rebuildText(file: FileLines, edits: readonly LineEdit[]): string {
  const { text, starts, count, preferredEnding } = file;
  const pieces: string[] = [];
  // Set when the last thing written is the file's unterminated last line: anything written
  // after it, and the end of an updated file, needs a terminator first.
  let unterminated = false;
  let next = 0; // first file line not yet written or skipped

  const copyLines = (from: number, to: number): void => {
    if (from >= to) return;
    if (unterminated) pieces.push(preferredEnding);
    pieces.push(text.slice(starts[from], starts[to]));
    unterminated = to === count && file.ends[count - 1] === text.length;
  };
  const addLine = (line: string): void => {
    if (unterminated) pieces.push(preferredEnding);
    pieces.push(line, preferredEnding);
    unterminated = false;
  };

  for (const edit of edits) {
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
  if (unterminated) pieces.push(preferredEnding);
  const body = pieces.join('');
  // The BOM stays in front as long as the file has any content left.
  return body === '' ? '' : text.slice(0, file.prefixLength) + body;
}
