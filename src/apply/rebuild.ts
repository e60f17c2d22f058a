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
    // UTF-8 is byteLength's own default: naming it makes Node look the encoding up on every call
    length += typeof piece === 'string' ? Buffer.byteLength(piece) : (pieces[++k] as number) - piece;
  }
  // Every byte is written below, so the buffer need not be zeroed first; a small one is a slice
  // of Node's shared pool, as any small Buffer is, rather than memory of its own.
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (typeof piece === 'string') {
      at += out.write(piece, at, 'utf8');
    } else {
      const to = pieces[++k] as number;
      out.set(source.subarray(piece, to), at);
      at += to - piece;
    }
  }
  // the sizes above are exact, so this cannot happen; were it to, no unwritten byte goes out
  if (at !== length) throw new PatchtxError('internal', `rebuilt file: ${at} of ${length} bytes written`);
  // a plain Uint8Array, as before: callers (and JSON) see bytes, not a Buffer
  return new Uint8Array(out.buffer, out.byteOffset, length);
}

function piecesOf(file: FileLines, edits: readonly LineEdit[]): Pieces {
  const out = new PieceWriter(file);
  let next = 0; // first file line not yet written or skipped
  for (const edit of edits) {
    if (edit.start < next) {
      throw new PatchtxError('internal', `overlapping edits at line ${edit.start + 1} (chunk ${edit.chunk})`);
    }
    out.copyLines(next, edit.start);
    let i = edit.start;
    for (const line of edit.lines) {
      if (line.op === ' ') {
        out.copyLines(i, i + 1); // the file's own text and terminator, not the patch's spelling
        i++;
      } else if (line.op === '-') {
        i++;
      } else {
        out.addLine(line.text);
      }
    }
    next = i;
  }
  out.copyLines(next, file.count);
  return out.finish();
}

/**
 * The pieces of one rebuilt file, written line by line (a class rather than closures over local
 * state: the bundle names every function made at run time, and this runs once per file).
 */
class PieceWriter {
  readonly pieces: Pieces = [];
  /** new text not yet in `pieces` */
  private added = '';
  /** a stretch not yet in `pieces`, when copyFrom !== -1 */
  private copyFrom = -1;
  private copyTo = -1;
  /** Set when the last thing written is the file's unterminated last line: anything written
   * after it, and the end of an updated file, needs a terminator first. */
  private unterminated = false;
  private wroteLine = false;

  constructor(private readonly file: FileLines) {}

  copyLines(from: number, to: number): void {
    if (from >= to) return;
    const { starts, ends, count, text } = this.file;
    this.startLine();
    if (this.copyFrom !== -1 && this.copyTo === starts[from]) {
      this.copyTo = starts[to]!;
    } else {
      this.flush();
      this.copyFrom = starts[from]!;
      this.copyTo = starts[to]!;
    }
    this.unterminated = to === count && ends[count - 1] === text.length;
  }

  addLine(line: string): void {
    this.startLine();
    if (this.copyFrom !== -1) this.flush();
    this.added += line + this.file.preferredEnding;
  }

  /** The pieces: every line ends terminated after an update; a file with no line left is empty
   * (its BOM goes too: nothing was written). */
  finish(): Pieces {
    if (this.unterminated) {
      this.flush();
      this.added = this.file.preferredEnding;
    }
    this.flush();
    return this.pieces;
  }

  private flush(): void {
    if (this.copyFrom !== -1) this.pieces.push(this.copyFrom, this.copyTo);
    else if (this.added !== '') this.pieces.push(this.added);
    this.copyFrom = -1;
    this.added = '';
  }

  private startLine(): void {
    if (!this.wroteLine && this.file.prefixLength > 0) {
      this.copyFrom = 0; // the BOM, once, in front
      this.copyTo = this.file.prefixLength;
    }
    this.wroteLine = true;
    if (this.unterminated) {
      this.flush();
      this.added = this.file.preferredEnding;
      this.unterminated = false;
    }
  }
}
