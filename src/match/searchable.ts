// A file prepared for repeated chunk searches. The exact pass works on the raw text and line
// offsets, without a string per line. Everything else is built lazily, once per file and pass,
// and only when a search needs it: the normalised form of every line for a fuzzy pass, and a
// line index of a pass whose fruitless scans have already cost a full scan of the file, or one of
// whose scans compares more lines than it passes (a file of repeated lines, see seek.ts).
//
// The index groups lines by a key made of the line's length and a few of its characters, so
// it is a counting sort in typed arrays (a few milliseconds for 100,000 lines). A Map from
// line text to positions would be exact but costs some 30 ms to build for such a file, more
// than the scans it saves; lines that share a key are told apart by the comparison that
// follows anyway.
import { type FileLines, fileLinesOf, keepShapesAlive, lineText } from '../text/lines.js';
import { type MatchBudget, matchBudget, spend } from './budget.js';
import { type MatchPass, normalizeLine } from './normalize.js';

export type FuzzyPass = Exclude<MatchPass, 'exact'>;

/**
 * Line numbers grouped by `lineKey`, ascending within a group: the lines whose key is k are
 * `order[groupStart[k]] .. order[groupStart[k + 1] - 1]`.
 */
export interface LineIndex {
  /** keys are `lineKey(...) & mask` */
  readonly mask: number;
  /** every line's key, in file order (for searches that step through the file by key) */
  readonly keys: Int32Array;
  readonly groupStart: Int32Array;
  readonly order: Int32Array;
}

/**
 * A hash of a line's length and five of its characters (first, last, and at 1/4, 1/2, 3/4 of
 * its length): cheap to compute for every line, and different for most different lines.
 */
export function lineKey(s: string, start: number, length: number): number {
  let h = Math.imul(length, 0x9e3779b1);
  if (length > 0) {
    h = Math.imul(h ^ s.charCodeAt(start), 0x85ebca6b);
    h = Math.imul(h ^ s.charCodeAt(start + (length >> 2)), 0xc2b2ae35);
    h = Math.imul(h ^ s.charCodeAt(start + (length >> 1)), 0x85ebca6b);
    h = Math.imul(h ^ s.charCodeAt(start + ((3 * length) >> 2)), 0xc2b2ae35);
    h = Math.imul(h ^ s.charCodeAt(start + length - 1), 0x85ebca6b);
  }
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * A file being searched, with what has been built for it so far. A plain object with free
 * functions rather than a class: V8 keeps the shape of an object literal alive with the code
 * that creates it, while the shapes of class instances can be collected between patches, and
 * optimised search code that depended on them is thrown away (measured: the search loops then
 * run several times slower after every full garbage collection).
 */
export interface SearchableLines {
  readonly file: FileLines;
  readonly count: number;
  /** normalised lines per fuzzy pass, built on first use */
  readonly normalized: Map<FuzzyPass, readonly string[]>;
  /** line index per pass, built once its fruitless scans add up to a file's worth */
  readonly indexes: Map<MatchPass, LineIndex>;
  readonly fruitlessWork: Map<MatchPass, number>;
  /** the matching work of the patch this file belongs to */
  readonly budget: MatchBudget;
}

export function searchableLines(file: FileLines, budget: MatchBudget = matchBudget()): SearchableLines {
  return { file, count: file.count, normalized: new Map(), indexes: new Map(), fruitlessWork: new Map(), budget };
}

/** For tests and small inputs: lines given as strings (no `\r`/`\n` inside them). */
export function searchableOf(lines: readonly string[]): SearchableLines {
  return searchableLines(fileLinesOf(lines));
}

/** Line i's own text, without terminator (and without the BOM for line 0). */
export function lineAt(search: SearchableLines, i: number): string {
  return lineText(search.file, i);
}

/** Every line in `pass`'s form; built on first use and kept. */
export function normalizedLines(search: SearchableLines, pass: FuzzyPass): readonly string[] {
  let lines = search.normalized.get(pass);
  if (lines === undefined) {
    const out = new Array<string>(search.count);
    for (let i = 0; i < out.length; i++) out[i] = normalizeLine(lineText(search.file, i), pass);
    lines = out;
    search.normalized.set(pass, lines);
  }
  return lines;
}

/**
 * True when line i equals `wanted` in `pass` (`wanted` already normalised for that pass).
 * The exact pass compares a slice of the text (a view, no copy of the characters).
 */
export function lineEquals(search: SearchableLines, pass: MatchPass, i: number, wanted: string): boolean {
  if (pass === 'exact') {
    const { text, starts, ends } = search.file;
    const start = starts[i]!;
    const end = ends[i]!;
    return end - start === wanted.length && (wanted.length === 0 || text.slice(start, end) === wanted);
  }
  return normalizedLines(search, pass)[i] === wanted;
}

/**
 * Records a search that scanned `lines` positions and found nothing. Once such waste adds up
 * to a scan of the whole file, the pass gets its line index: it costs a few more scans, and
 * makes every later search of the pass touch only lines with a fitting key (a chunk that needs
 * a fuzzy pass, or is absent, no longer costs a scan of the rest of the file).
 */
export function noteFruitlessScan(search: SearchableLines, pass: MatchPass, lines: number): void {
  const total = (search.fruitlessWork.get(pass) ?? 0) + lines;
  search.fruitlessWork.set(pass, total);
  if (total >= search.count) buildLineIndex(search, pass);
}

/** The line index of `pass`, if one has been built. */
export function lineIndex(search: SearchableLines, pass: MatchPass): LineIndex | undefined {
  return search.indexes.get(pass);
}

/** Builds (once) the line index of `pass`: a counting sort of line numbers by key. */
export function buildLineIndex(search: SearchableLines, pass: MatchPass): LineIndex {
  let index = search.indexes.get(pass);
  if (index === undefined) {
    const count = search.count;
    let groups = 256;
    while (groups < count) groups *= 2;
    const mask = groups - 1;
    const keys = new Int32Array(count);
    if (pass === 'exact') {
      const { text, starts, ends } = search.file;
      for (let i = 0; i < count; i++) keys[i] = lineKey(text, starts[i]!, ends[i]! - starts[i]!) & mask;
    } else {
      const lines = normalizedLines(search, pass);
      for (let i = 0; i < count; i++) keys[i] = lineKey(lines[i]!, 0, lines[i]!.length) & mask;
    }
    const groupStart = new Int32Array(groups + 1);
    for (let i = 0; i < count; i++) groupStart[keys[i]! + 1]!++;
    for (let k = 0; k < groups; k++) groupStart[k + 1]! += groupStart[k]!;
    const fill = groupStart.slice(0, groups);
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) order[fill[keys[i]!]!++] = i;
    index = { mask, keys, groupStart, order };
    search.indexes.set(pass, index);
    spend(search.budget, count);
  }
  return index;
}

// Same reason as in lines.ts: one SearchableLines alive keeps its shape, and with it the
// optimised search code, across full garbage collections.
keepShapesAlive.push(searchableLines(keepShapesAlive[0] as FileLines));
