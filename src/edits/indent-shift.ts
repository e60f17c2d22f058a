// Aider's fallback for a SEARCH part that is not in the file as written: the lines may differ from
// the file's only by leading whitespace, the same on every line (the whole block indented less, or
// more, than the file has it). Such a region is replaced when it is the only one, and the REPLACE
// lines get the same shift (the missing indentation put in front, or the extra taken off). Blank
// lines match blank lines whatever their whitespace.
import { PatchtxError } from '../errors.js';

/** A shift of indentation: `prefix` put in front of each line (`add`), or taken off it. */
interface Shift {
  prefix: string;
  add: boolean;
}

interface Line {
  /** the line without its terminator */
  body: string;
  /** offset of its first character in the text */
  start: number;
  /** offset just past its terminator (or its end, for a last line without one) */
  end: number;
}

const leading = (s: string): string => /^[ \t]*/.exec(s)![0];
const blank = (s: string): boolean => s.trim() === '';

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let from = 0;
  while (from < text.length) {
    const nl = text.indexOf('\n', from);
    const end = nl === -1 ? text.length : nl + 1;
    const body = text.slice(from, nl === -1 ? end : nl > from && text[nl - 1] === '\r' ? nl - 1 : nl);
    out.push({ body, start: from, end });
    from = end;
  }
  return out;
}

/** The shift that turns `wanted` into `have` (same text after the indentation), or null. */
function shiftBetween(wanted: string, have: string): Shift | null {
  const [w, h] = [leading(wanted), leading(have)];
  if (wanted.slice(w.length) !== have.slice(h.length)) return null;
  if (h.endsWith(w)) return { prefix: h.slice(0, h.length - w.length), add: true };
  if (w.endsWith(h)) return { prefix: w.slice(0, w.length - h.length), add: false };
  return null;
}

/** The one shift taking every line of `wanted` to the file's lines from `at`, or null. */
function shiftAt(file: readonly Line[], wanted: readonly string[], at: number): Shift | null {
  let shift: Shift | null = null;
  for (let j = 0; j < wanted.length; j++) {
    const have = file[at + j]!.body;
    if (blank(wanted[j]!)) {
      if (!blank(have)) return null;
      continue;
    }
    const s = shiftBetween(wanted[j]!, have);
    if (s === null) return null;
    if (shift === null) shift = s;
    else if (s.prefix !== shift.prefix || (s.add !== shift.add && s.prefix !== '')) return null;
  }
  return shift;
}

/** `line` shifted: the prefix put in front, or as much of it taken off as the line starts with. */
function shifted(line: string, shift: Shift): string {
  if (blank(line) || shift.prefix === '') return line;
  if (shift.add) return shift.prefix + line;
  let n = 0;
  while (n < shift.prefix.length && line[n] === shift.prefix[n]) n++;
  return line.slice(n);
}

/**
 * `text` with the one region whose lines are `old`'s shifted alike replaced by `replacement`
 * shifted the same way (both whole lines, `\n`-terminated; the result takes `eol`); undefined
 * when no region matches so, ambiguous_match when several do.
 */
export function replaceShifted(text: string, old: string, replacement: string, eol: string, path: string): string | undefined {
  const wanted = old.replace(/\n$/, '').split('\n');
  if (wanted.every(blank)) return undefined;
  const file = linesOf(text);
  const found: { at: number; shift: Shift }[] = [];
  for (let at = 0; at + wanted.length <= file.length; at++) {
    const shift = shiftAt(file, wanted, at);
    if (shift !== null) found.push({ at, shift });
  }
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    const candidates = found.map((f) => f.at + 1);
    throw new PatchtxError(
      'ambiguous_match',
      `the old text is not in ${path} as written, and occurs with other leading whitespace ${found.length} times, at lines ${candidates.join(', ')}: give more surrounding text so that it occurs once`,
      { path, candidates },
    );
  }
  const { at, shift } = found[0]!;
  const first = file[at]!;
  const last = file[at + wanted.length - 1]!;
  // a region ending at a last line without a line break keeps the file without a final one
  const finalBreak = last.end > last.start + last.body.length;
  const lines = replacement.replace(/\n$/, '').split('\n');
  const body = replacement === '' ? '' : lines.map((l) => shifted(l, shift)).join(eol) + (finalBreak ? eol : '');
  return text.slice(0, first.start) + body + text.slice(last.end);
}
