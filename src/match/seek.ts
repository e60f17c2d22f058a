// seek_sequence: where does a block of patch lines occur in a file, at or after a cursor?
//
// Reference rules: the passes of normalize.ts are tried in order and each one scans every
// candidate position before the next pass starts (an exact match late in the file beats a
// fuzzy one early); the first position that matches wins; `*** End of File` tries only the last
// window, and only when it lies at or after the cursor; an empty pattern matches at the cursor.
import { MATCH_PASSES, type MatchPass, normalizeLine } from './normalize.js';
import { spend } from './budget.js';
import {
  type LineIndex,
  type SearchableLines,
  buildLineIndex,
  lineEquals,
  lineIndex,
  lineKey,
  normalizedLines,
  noteFruitlessScan,
  searchableOf,
} from './searchable.js';

export interface SeekMatch {
  /** 0-based index of the first matching line */
  index: number;
  /** the pass that found it */
  pass: MatchPass;
  /** 0-based starts of further matches of the same pass after `index` (at most `maxOthers`) */
  others: number[];
}

/** How many further matches seekSequence reports unless told otherwise. */
export const DEFAULT_MAX_OTHERS = 5;

/**
 * Finds `pattern` in `lines` at or after `start` (0-based). With `maxOthers > 0` it also lists
 * further matches of the winning pass up to the end of the file (that costs a scan of the rest
 * of the file; the chunk locator bounds that scan itself, see locate.ts). Lines given as an
 * array must not contain `\r` or `\n`.
 */
export function seekSequence(
  lines: SearchableLines | readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
  maxOthers: number = DEFAULT_MAX_OTHERS,
): SeekMatch | undefined {
  const search = isLineArray(lines) ? searchableOf(lines) : lines;
  if (pattern.length === 0) return { index: start, pass: 'exact', others: [] };
  const last = search.count - pattern.length;
  if (last < start) return undefined;
  for (const pass of MATCH_PASSES) {
    const wanted = normalizePattern(pattern, pass);
    let index: number | undefined;
    if (eof) {
      // Only the final window; the reference has no fallback to a search from the cursor.
      if (matchesAt(search, pass, wanted, last)) index = last;
    } else {
      index = collectMatches(search, pass, wanted, start, last, 1, true)[0];
    }
    if (index !== undefined) {
      const others = maxOthers > 0 && !eof ? collectMatches(search, pass, wanted, index + 1, last, maxOthers, false) : [];
      return { index, pass, others };
    }
  }
  return undefined;
}

/**
 * Starts in `from..=to` (0-based, inclusive) where `pattern` matches in exactly `pass`, in
 * ascending order, at most `max` of them.
 */
export function findMatchesOfPass(search: SearchableLines, pattern: readonly string[], pass: MatchPass, from: number, to: number, max: number): number[] {
  if (pattern.length === 0 || max <= 0) return [];
  const last = Math.min(to, search.count - pattern.length);
  if (last < from) return [];
  return collectMatches(search, pass, normalizePattern(pattern, pass), from, last, max, false);
}

function isLineArray(lines: SearchableLines | readonly string[]): lines is readonly string[] {
  return Array.isArray(lines);
}

function normalizePattern(pattern: readonly string[], pass: MatchPass): readonly string[] {
  return pass === 'exact' ? pattern : pattern.map((line) => normalizeLine(line, pass));
}

function matchesAt(search: SearchableLines, pass: MatchPass, wanted: readonly string[], pos: number): boolean {
  return equalPrefix(search, pass, wanted, pos) === wanted.length;
}

/** How many of `wanted`'s lines equal the file's from `pos` on, up to the first that does not. */
function equalPrefix(search: SearchableLines, pass: MatchPass, wanted: readonly string[], pos: number): number {
  for (let j = 0; j < wanted.length; j++) {
    if (!lineEquals(search, pass, pos + j, wanted[j]!)) return j;
  }
  return wanted.length;
}

/**
 * Matches of `wanted` (already in `pass` form) starting in `from..=to`, at most `max`, in
 * ascending order. Three strategies, each handing over to the next where it would stop paying,
 * so that a search costs work in proportion to the stretch searched whatever the file holds:
 * - a scan of the lines where the pattern's longest line would be, while the pass has no index
 *   and the comparisons it makes stay below a line each;
 * - with the pass's line index: only the starts where the pattern's rarest line is, while their
 *   comparisons stay below two a line;
 * - a Knuth-Morris-Pratt walk over the lines' index keys, which never steps back, for patterns of
 *   lines the file repeats everywhere (a run of `}` in a file of braces); a window whose keys all
 *   agree is then compared line by line.
 * `isSearch`: this is a search for a chunk's location, whose misses feed the decision to index
 * the pass (scans for further matches cover disjoint stretches and must not trigger that).
 */
function collectMatches(
  search: SearchableLines,
  pass: MatchPass,
  wanted: readonly string[],
  from: number,
  to: number,
  max: number,
  isSearch: boolean,
): number[] {
  const found: number[] = [];
  if (to < from) return found;
  let index = lineIndex(search, pass);
  let next = from;
  if (index === undefined) {
    next = scanLines(search, pass, wanted, from, to, max, found);
    if (next > to || found.length >= max) {
      if (found.length === 0 && isSearch) noteFruitlessScan(search, pass, to - from + 1);
      return found;
    }
    // the scan compared too much: what is left is searched through the index
    index = buildLineIndex(search, pass);
  }
  next = walkRarest(search, pass, wanted, index, next, to, max, found);
  if (next <= to && found.length < max) walkKeys(search, pass, wanted, index, next, to, max, found);
  return found;
}

/**
 * The scan without an index. A length test and one character from the middle rule out almost
 * every line before a string comparison (which costs far more than a character read); the exact
 * pass reads both from the text itself. Returns the first start not examined (`to + 1` when done):
 * the scan stops early once its comparisons outnumber the lines it has passed.
 */
function scanLines(search: SearchableLines, pass: MatchPass, wanted: readonly string[], from: number, to: number, max: number, found: number[]): number {
  let anchor = 0;
  for (let j = 1; j < wanted.length; j++) if (wanted[j]!.length > wanted[anchor]!.length) anchor = j;
  const needle = wanted[anchor]!;
  const size = needle.length;
  const probe = size >> 1;
  const probeChar = needle.charCodeAt(probe);
  const last = to + anchor;
  const allowance = to - from + 1 + wanted.length;
  let compared = 0;
  let line = from + anchor;
  if (pass === 'exact') {
    const { text, starts, ends } = search.file;
    for (; line <= last; line++) {
      const start = starts[line]!;
      if (ends[line]! - start !== size || (size !== 0 && text.charCodeAt(start + probe) !== probeChar)) continue;
      const equal = equalPrefix(search, pass, wanted, line - anchor);
      compared += equal + 1;
      if (equal === wanted.length) {
        found.push(line - anchor);
        if (found.length >= max) break;
      } else if (compared > allowance) break;
    }
  } else {
    const lines = normalizedLines(search, pass);
    for (; line <= last; line++) {
      const l = lines[line]!;
      if (l.length !== size || (size !== 0 && l.charCodeAt(probe) !== probeChar)) continue;
      const equal = equalPrefix(search, pass, wanted, line - anchor);
      compared += equal + 1;
      if (equal === wanted.length) {
        found.push(line - anchor);
        if (found.length >= max) break;
      } else if (compared > allowance) break;
    }
  }
  spend(search.budget, line - (from + anchor) + compared);
  return line > last ? to + 1 : line - anchor + 1;
}

/**
 * With a line index: the starts where the pattern's rarest line (by key) is. Returns the first
 * start not examined (`to + 1` when done): it stops once its comparisons pass twice the stretch.
 */
function walkRarest(
  search: SearchableLines,
  pass: MatchPass,
  wanted: readonly string[],
  index: LineIndex,
  from: number,
  to: number,
  max: number,
  found: number[],
): number {
  const { mask, groupStart, order } = index;
  let anchor = -1;
  let first = 0;
  let end = 0;
  for (let j = 0; j < wanted.length; j++) {
    const key = lineKey(wanted[j]!, 0, wanted[j]!.length) & mask;
    const size = groupStart[key + 1]! - groupStart[key]!;
    if (anchor === -1 || size < end - first) {
      anchor = j;
      first = groupStart[key]!;
      end = groupStart[key + 1]!;
    }
  }
  const allowance = 2 * (to - from + 1 + wanted.length);
  let work = wanted.length;
  let next = to + 1;
  for (let k = lowerBound(order, first, end, from + anchor); k < end; k++) {
    const pos = order[k]! - anchor;
    if (pos > to) break;
    if (work > allowance) {
      next = pos;
      break;
    }
    const equal = equalPrefix(search, pass, wanted, pos);
    work += equal + 1;
    if (equal === wanted.length) {
      found.push(pos);
      if (found.length >= max) break;
    }
  }
  spend(search.budget, work);
  return next;
}

/**
 * Knuth-Morris-Pratt over the lines' keys: the file is stepped through once from `from`, and each
 * window whose keys are the pattern's is compared line by line (keys can collide).
 */
function walkKeys(
  search: SearchableLines,
  pass: MatchPass,
  wanted: readonly string[],
  index: LineIndex,
  from: number,
  to: number,
  max: number,
  found: number[],
): void {
  const m = wanted.length;
  const { mask, keys } = index;
  const pk = new Int32Array(m);
  for (let j = 0; j < m; j++) pk[j] = lineKey(wanted[j]!, 0, wanted[j]!.length) & mask;
  // border[j]: length of the longest proper prefix of pk[0..j] that is also its suffix
  const border = new Int32Array(m);
  for (let j = 1, k = 0; j < m; j++) {
    while (k > 0 && pk[j] !== pk[k]) k = border[k - 1]!;
    if (pk[j] === pk[k]) k++;
    border[j] = k;
  }
  let work = 2 * m;
  const last = to + m - 1;
  let q = 0;
  for (let i = from; i <= last; i++) {
    const key = keys[i]!;
    work++;
    while (q > 0 && key !== pk[q]) {
      q = border[q - 1]!;
      work++;
    }
    if (key === pk[q]) q++;
    if (q === m) {
      const pos = i - m + 1;
      work += m;
      if (matchesAt(search, pass, wanted, pos)) {
        found.push(pos);
        if (found.length >= max) break;
      }
      q = border[m - 1]!;
      // colliding keys could make every window a comparison: the budget has the last word
      if (work > 1_000_000) {
        spend(search.budget, work);
        work = 0;
      }
    }
  }
  spend(search.budget, work);
}

/** First k in lo..hi with sorted[k] >= value (hi when there is none). */
function lowerBound(sorted: Int32Array, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
