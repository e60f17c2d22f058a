// The rebuild of a file's text from its placed chunks: the apply step between the matcher
// (which places each chunk) and the engine (which plans the whole patch).
//
// The rebuild follows the reference's preserve-line-endings mode (always on here): only the
// runs of removed/added lines between context lines change; context lines and untouched lines
// keep their own characters and terminators, even when they were matched fuzzily; inserted
// lines get the file's preferred ending; after an update every line is terminated (unless no
// line is left).
import { Buffer } from 'node:buffer';
import { PatchtxError } from '../errors.js';
import type { LineEdit } from '../match/locate.js';
import type { FileLines } from '../text/lines.js';

const encoder = new TextEncoder();

/**
 * The rebuilt file as a list of pieces: a stretch of the original text is two numbers (its
 * start and end offsets), new text is a string. Adjacent stretches are merged (a context line
 * right after an untouched stretch, say) and consecutive new lines joined, so the list is
 * about as long as the number of edits, not of lines.
 */
type Pieces = (number | string)[];

/**
 * The file after applying `edits` (sorted by start; each edit's lines begin at its start line).
 * Untouched stretches are copied as one slice each, so the cost is the number of edits plus
 * one copy of the text, not a per-line join.
 */
export function rebuildText(file: FileLines, edits: readonly LineEdit[]): string {
  const pieces = piecesOf(file, edits);
  const { text } = file;
  const parts: string[] = [];
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (typeof piece === 'string') parts.push(piece);
    else parts.push(text.slice(piece, pieces[++k] as number));
  }
  return parts.join('');
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
  const pieces = piecesOf(file, edits);
  const { text } = file;
  // First the byte range of each stretch (in place of its character offsets) and the size of the
  // whole, then one buffer filled: new text is encoded straight into it, with no buffer per piece.
  if (source.length !== text.length) {
    let charAt = 0;
    let byteAt = 0;
    for (let k = 0; k < pieces.length; k++) {
      if (typeof pieces[k] === 'string') continue;
      const from = pieces[k] as number;
      const to = pieces[k + 1] as number;
      byteAt += Buffer.byteLength(text.slice(charAt, from), 'utf8');
      const size = Buffer.byteLength(text.slice(from, to), 'utf8');
      pieces[k] = byteAt;
      pieces[++k] = byteAt + size;
      byteAt += size;
      charAt = to;
    }
  }
  let length = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    length += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : (pieces[++k] as number) - piece;
  }
  const out = new Uint8Array(length);
  const writer = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  let at = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (typeof piece === 'string') {
      at += writer.write(piece, at, 'utf8');
    } else {
      const to = pieces[++k] as number;
      out.set(source.subarray(piece, to), at);
      at += to - piece;
    }
  }
  return out;
}

function piecesOf(file: FileLines, edits: readonly LineEdit[]): Pieces {
  const { text, starts, ends, count, preferredEnding, prefixLength } = file;
  const pieces: Pieces = [];
  let added = ''; // new text not yet in `pieces`
  let copyFrom = -1; // a stretch not yet in `pieces`, when copyFrom !== -1
  let copyTo = -1;
  // Set when the last thing written is the file's unterminated last line: anything written
  // after it, and the end of an updated file, needs a terminator first.
  let unterminated = false;
  let wroteLine = false;
  let next = 0; // first file line not yet written or skipped

  const flush = (): void => {
    if (copyFrom !== -1) pieces.push(copyFrom, copyTo);
    else if (added !== '') pieces.push(added);
    copyFrom = -1;
    added = '';
  };
  const startLine = (): void => {
    if (!wroteLine && prefixLength > 0) {
      copyFrom = 0; // the BOM, once, in front
      copyTo = prefixLength;
    }
    wroteLine = true;
    if (unterminated) {
      flush();
      added = preferredEnding;
      unterminated = false;
    }
  };
  const copyLines = (from: number, to: number): void => {
    if (from >= to) return;
    startLine();
    if (copyFrom !== -1 && copyTo === starts[from]) {
      copyTo = starts[to]!;
    } else {
      flush();
      copyFrom = starts[from]!;
      copyTo = starts[to]!;
    }
    unterminated = to === count && ends[count - 1] === text.length;
  };
  const addLine = (line: string): void => {
    startLine();
    if (copyFrom !== -1) flush();
    added += line + preferredEnding;
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
  if (unterminated) {
    flush();
    added = preferredEnding;
  }
  flush();
  return pieces;
}
