// A file prepared for repeated chunk searches. The exact pass works on the raw text and line
// offsets (see seek.ts). Everything else is built lazily, once per file and pass, and only when
// a search needs it: the normalised form of every line for a fuzzy pass, and a line -> positions
// index for a pass whose fruitless scans have already cost about as much as building the index
// would (it then makes every later miss cheap: a file with many chunks that need a fuzzy pass,
// or many chunks that are not there, stays linear instead of one full scan per chunk).
import { type FileLines, fileLinesOf, lineText } from '../apply/lines.js';
import { type MatchPass, normalizeLine } from './normalize.js';

export type FuzzyPass = Exclude<MatchPass, 'exact'>;

export class SearchableLines {
  readonly file: FileLines;
  private readonly normalized = new Map<MatchPass, readonly string[]>();
  private readonly indexes = new Map<MatchPass, Map<string, number[]>>();
  private readonly fruitlessWork = new Map<MatchPass, number>();

  constructor(file: FileLines) {
    this.file = file;
  }

  /** For tests and small inputs: lines given as strings (no `\r`/`\n` inside them). */
  static of(lines: readonly string[]): SearchableLines {
    return new SearchableLines(fileLinesOf(lines));
  }

  get count(): number {
    return this.file.count;
  }

  /** Line i's own text, without terminator (and without the BOM for line 0). */
  text(i: number): string {
    return lineText(this.file, i);
  }

  /** Every line in `pass`'s form; built on first use and kept. */
  normalizedLines(pass: FuzzyPass): readonly string[] {
    let lines = this.normalized.get(pass);
    if (lines === undefined) {
      const out = new Array<string>(this.count);
      for (let i = 0; i < out.length; i++) out[i] = normalizeLine(this.text(i), pass);
      lines = out;
      this.normalized.set(pass, lines);
    }
    return lines;
  }

  /**
   * True when line i equals `wanted` in `pass` (`wanted` already normalised for that pass).
   * The exact pass compares in place, so the common case allocates nothing.
   */
  lineEquals(pass: MatchPass, i: number, wanted: string): boolean {
    if (pass === 'exact') {
      const { text, starts, ends } = this.file;
      const start = starts[i]!;
      return ends[i]! - start === wanted.length && (wanted.length === 0 || text.startsWith(wanted, start));
    }
    return this.normalizedLines(pass)[i] === wanted;
  }

  /**
   * The line that starts exactly at text offset `offset`, or -1 when `offset` is inside a line
   * or a terminator. A cheap look at the previous character rules out most offsets first.
   */
  lineStartingAt(offset: number): number {
    const { text, starts, count, prefixLength } = this.file;
    if (offset !== prefixLength) {
      const before = text.charCodeAt(offset - 1);
      if (before !== 0x0a && before !== 0x0d) return -1;
    }
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < count && starts[lo] === offset ? lo : -1;
  }

  /** The positions index of `pass`, if one has been built. */
  index(pass: MatchPass): Map<string, number[]> | undefined {
    return this.indexes.get(pass);
  }

  /**
   * Records a search that found nothing: `work` is characters of text for the exact pass (a
   * native substring search), lines for a fuzzy pass (a loop of string comparisons). Once the
   * waste adds up to about the cost of an index (measured: a native scan of the text is ~8x
   * cheaper than indexing it; a comparison loop about as costly), the pass gets one.
   */
  noteFruitlessScan(pass: MatchPass, work: number): void {
    const total = (this.fruitlessWork.get(pass) ?? 0) + work;
    this.fruitlessWork.set(pass, total);
    const worthIndexing = pass === 'exact' ? 8 * this.file.text.length : this.count;
    if (total >= worthIndexing) this.buildIndex(pass);
  }

  /** Builds (once) the index from each line's `pass` form to its ascending positions. */
  buildIndex(pass: MatchPass): Map<string, number[]> {
    let index = this.indexes.get(pass);
    if (index === undefined) {
      index = new Map();
      const lines = pass === 'exact' ? undefined : this.normalizedLines(pass);
      for (let i = 0; i < this.count; i++) {
        const key = lines === undefined ? this.text(i) : lines[i]!;
        const positions = index.get(key);
        if (positions === undefined) index.set(key, [i]);
        else positions.push(i);
      }
      this.indexes.set(pass, index);
    }
    return index;
  }
}
