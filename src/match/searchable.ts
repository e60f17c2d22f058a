// A file prepared for repeated chunk searches. Everything beyond the raw line offsets is built
// lazily, once per file and pass, and only when a search needs it: the normalised form of every
// line for a fuzzy pass, and a line -> positions index for a pass whose linear scan has already
// come up empty once (that scan cost O(n) anyway; the index makes every later miss cheap).
import { type FileLines, fileLinesOf, lineText } from '../apply/lines.js';
import { type MatchPass, normalizeLine } from './normalize.js';

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
  normalizedLines(pass: Exclude<MatchPass, 'exact'>): readonly string[] {
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

  /** The positions index of `pass`, if one has been built. */
  index(pass: MatchPass): Map<string, number[]> | undefined {
    return this.indexes.get(pass);
  }

  /**
   * Records a linear scan of `lines` positions that found nothing. Once such wasted work adds
   * up to the size of the file, the pass gets an index: an index then costs no more than what
   * was already spent, and every later miss (a chunk that needs a fuzzier pass, or is absent)
   * becomes cheap instead of another full scan.
   */
  noteFruitlessScan(pass: MatchPass, lines: number): void {
    const total = (this.fruitlessWork.get(pass) ?? 0) + lines;
    this.fruitlessWork.set(pass, total);
    if (total >= this.count) this.buildIndex(pass);
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
