// A file's text seen as lines that each keep their own terminator (`\r\n`, `\n`, or nothing for
// an unterminated last line), which is what the reference's preserve-line-endings mode works on.
// Lines are kept as offsets into the one text string instead of one string per line: large
// files are split once, cheaply, and unchanged stretches are copied back verbatim.

export type LineEnding = '\n' | '\r\n';

export interface FileLines {
  readonly text: string;
  /** characters before line 1 that belong to no line: a UTF-8 BOM (U+FEFF), or 0 */
  readonly prefixLength: number;
  readonly count: number;
  /** `starts[i]`: offset of line i's first character; `starts[count] === text.length` */
  readonly starts: Int32Array;
  /** `ends[i]`: offset just past line i's text, where its terminator begins */
  readonly ends: Int32Array;
  /** the ending of the first line that has one; `\n` when none has (new lines get this one) */
  readonly preferredEnding: LineEnding;
}

const BOM = 0xfeff;

// The offset arrays of the last file given back by recycleFileLines, for the next split to
// fill. A fresh pair for a large file costs more than the split itself often does (zeroed
// memory the kernel has to hand over page by page: about 0.4 ms of a 3.3 ms split of a
// 100,000-line file, measured); reusing them costs nothing. At most one pair is kept, and
// none larger than SPARE_LIMIT lines, so what stays allocated between patches is bounded.
let spare: { starts: Int32Array; ends: Int32Array } | undefined;
const SPARE_LIMIT = 1 << 20;

/** Splits `text` into lines. A leading BOM is kept aside so line 1 can match without it. */
export function splitFileLines(text: string): FileLines {
  const prefixLength = text.charCodeAt(0) === BOM ? 1 : 0;
  const length = text.length;
  // Room for lines of ~32 characters; source files rarely need to grow this.
  let capacity = Math.max(64, length >> 5);
  let starts: Int32Array;
  let ends: Int32Array;
  if (spare !== undefined && spare.ends.length >= capacity) {
    ({ starts, ends } = spare);
    capacity = ends.length;
    spare = undefined;
  } else {
    starts = new Int32Array(capacity + 1);
    ends = new Int32Array(capacity);
  }
  let count = 0;
  let preferred: LineEnding | undefined;
  let pos = prefixLength;
  // Lines end at LF only, as in git and upstream's text_file.rs: a CR right before the LF makes
  // the ending CRLF, and a lone CR anywhere else is part of the line's text.
  while (pos < length) {
    if (count === capacity) {
      capacity *= 2;
      starts = grown(starts, capacity + 1);
      ends = grown(ends, capacity);
    }
    const lf = text.indexOf('\n', pos);
    starts[count] = pos;
    if (lf === -1) {
      ends[count++] = length;
      break;
    }
    const crlf = lf > pos && text.charCodeAt(lf - 1) === 0x0d;
    preferred ??= crlf ? '\r\n' : '\n';
    ends[count++] = crlf ? lf - 1 : lf;
    pos = lf + 1;
  }
  starts[count] = length;
  return {
    text,
    prefixLength,
    count,
    starts: starts.subarray(0, count + 1),
    ends: ends.subarray(0, count),
    preferredEnding: preferred ?? '\n',
  };
}

/** `array`'s values at the start of a new array of `size` (no closure per split: the bundle names
 * every function made at run time) */
function grown(array: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(array);
  return out;
}

/**
 * Hands `file`'s offset arrays to the next splitFileLines call. Only for a caller that owns
 * `file` outright and is done with it: nothing may read `file` (or a SearchableLines over it)
 * afterwards.
 */
export function recycleFileLines(file: FileLines): void {
  const { starts, ends } = file;
  // subarray views share their buffer: give back the whole arrays
  const whole = {
    starts: new Int32Array(starts.buffer, 0, starts.buffer.byteLength >> 2),
    ends: new Int32Array(ends.buffer, 0, ends.buffer.byteLength >> 2),
  };
  if (whole.ends.length <= SPARE_LIMIT && whole.starts.length === whole.ends.length + 1) spare = whole;
}

/** Line i's text without its terminator. */
export function lineText(file: FileLines, i: number): string {
  return file.text.slice(file.starts[i], file.ends[i]);
}

/** Line i's terminator: `\n`, `\r\n`, or '' for an unterminated last line. */
export function lineTerminator(file: FileLines, i: number): string {
  return file.text.slice(file.ends[i], file.starts[i + 1]);
}

/** Every line's text, without terminators (one string per line: for tests and diagnostics). */
export function lineTexts(file: FileLines): string[] {
  const out = new Array<string>(file.count);
  for (let i = 0; i < file.count; i++) out[i] = lineText(file, i);
  return out;
}

/** A FileLines over plain strings joined by `\n` (the matcher's tests build files this way). */
export function fileLinesOf(lines: readonly string[], terminated = true): FileLines {
  return splitFileLines(lines.join('\n') + (terminated && lines.length > 0 ? '\n' : ''));
}

// One FileLines kept alive for the life of the module. V8 may collect the hidden class of an
// object literal once no object of that shape is left, and then discards the optimised code
// specialised on it: after every full garbage collection, the next file would be searched by
// unoptimised code (measured: the search loops ran several times slower).
const SHAPE_ANCHOR: FileLines = splitFileLines('x\n');
/** Objects held for their shapes only (see above); other modules add theirs. */
export const keepShapesAlive: unknown[] = [SHAPE_ANCHOR];
