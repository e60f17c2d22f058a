// seek_sequence: where does a block of patch lines occur in a file, at or after a cursor?
//
// Reference rules: the passes of normalize.ts are tried in order and each one scans every
// candidate position before the next pass starts (an exact match late in the file beats a
// fuzzy one early); the first position that matches wins; `*** End of File` tries only the last
// window, and only when it lies at or after the cursor; an empty pattern matches at the cursor.
import { MATCH_PASSES, type MatchPass, normalizeLine } from './normalize.js';
import { SearchableLines } from './searchable.js';

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
 * Finds `pattern` in `lines` at or after `start`. With `maxOthers > 0` it also lists further
 * matches of the winning pass up to the end of the file (that costs a scan of the rest of the
 * file; the chunk locator bounds that scan itself, see locate.ts).
 */
export function seekSequence(
  lines: SearchableLines | readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
  maxOthers: number = DEFAULT_MAX_OTHERS,
): SeekMatch | undefined {
  const search = lines instanceof SearchableLines ? lines : SearchableLines.of(lines);
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
      const others =
        maxOthers > 0 && !eof ? collectMatches(search, pass, wanted, index + 1, last, maxOthers, false) : [];
      return { index, pass, others };
    }
  }
  return undefined;
}

/**
 * Starts in `from..=to` (0-based, inclusive) where `pattern` matches in exactly `pass`, in
 * ascending order, at most `max` of them.
 */
export function findMatchesOfPass(
  search: SearchableLines,
  pattern: readonly string[],
  pass: MatchPass,
  from: number,
  to: number,
  max: number,
): number[] {
  if (pattern.length === 0 || max <= 0) return [];
  const last = Math.min(to, search.count - pattern.length);
  if (last < from) return [];
  return collectMatches(search, pass, normalizePattern(pattern, pass), from, last, max, false);
}

function normalizePattern(pattern: readonly string[], pass: MatchPass): readonly string[] {
  return pass === 'exact' ? pattern : pattern.map((line) => normalizeLine(line, pass));
}

function matchesAt(search: SearchableLines, pass: MatchPass, wanted: readonly string[], pos: number): boolean {
  for (let j = 0; j < wanted.length; j++) {
    if (!search.lineEquals(pass, pos + j, wanted[j]!)) return false;
  }
  return true;
}

/**
 * Matches of `wanted` (already in `pass` form) starting in `from..=to`, at most `max`.
 * `isSearch`: this is a search for a chunk's location, whose misses feed the decision to index
 * a fuzzy pass (scans for further matches cover disjoint stretches and must not trigger that).
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
  const index = search.index(pass);
  if (index !== undefined) return collectIndexed(search, pass, wanted, index, from, to, max, found);
  if (pass === 'exact') return collectExact(search, wanted, from, to, max, found, isSearch);
  const lines = search.normalizedLines(pass);
  const first = wanted[0]!;
  for (let pos = from; pos <= to; pos++) {
    // Comparing the first line before the rest keeps the scan to one cheap test per position.
    if (lines[pos] === first && matchesAt(search, pass, wanted, pos)) {
      found.push(pos);
      if (found.length >= max) return found;
    }
  }
  if (found.length === 0 && isSearch) search.noteFruitlessScan(pass, to - from + 1);
  return found;
}

/**
 * The exact pass searches the file's text itself: the pattern's longest line is looked for
 * with the engine's native substring search, and only hits that are a whole line are checked
 * further. That skips through the text far faster than comparing line by line, and needs
 * neither one string per line nor an index. The search runs on a slice (a view, not a copy)
 * that ends with the last line the anchor may occupy, so a bounded scan stays bounded.
 */
function collectExact(
  search: SearchableLines,
  wanted: readonly string[],
  from: number,
  to: number,
  max: number,
  found: number[],
  isSearch: boolean,
): number[] {
  let anchor = 0;
  for (let j = 1; j < wanted.length; j++) if (wanted[j]!.length > wanted[anchor]!.length) anchor = j;
  const needle = wanted[anchor]!;
  if (needle.length === 0) {
    // Only empty lines: nothing to search for, compare lengths position by position.
    for (let pos = from; pos <= to; pos++) {
      if (matchesAt(search, 'exact', wanted, pos)) {
        found.push(pos);
        if (found.length >= max) break;
      }
    }
    return found;
  }
  const { text, starts, ends } = search.file;
  const base = starts[from + anchor]!;
  const region = text.slice(base, ends[to + anchor]!);
  let at = region.indexOf(needle);
  while (at !== -1) {
    const line = search.lineStartingAt(base + at);
    if (line !== -1 && ends[line]! - (base + at) === needle.length) {
      const pos = line - anchor;
      if (matchesAt(search, 'exact', wanted, pos)) {
        found.push(pos);
        if (found.length >= max) break;
      }
      at = region.indexOf(needle, starts[line + 1]! - base);
    } else {
      at = region.indexOf(needle, at + 1);
    }
  }
  if (found.length === 0 && isSearch) search.noteFruitlessScan('exact', region.length);
  return found;
}

/** A fuzzy pass with an index: walk the occurrences of the pattern's rarest line. */
function collectIndexed(
  search: SearchableLines,
  pass: MatchPass,
  wanted: readonly string[],
  index: Map<string, number[]>,
  from: number,
  to: number,
  max: number,
  found: number[],
): number[] {
  let anchor = 0;
  let positions: number[] | undefined;
  for (let j = 0; j < wanted.length; j++) {
    const ps = index.get(wanted[j]!);
    if (ps === undefined) return found;
    if (positions === undefined || ps.length < positions.length) {
      positions = ps;
      anchor = j;
    }
  }
  for (let k = lowerBound(positions!, from + anchor); k < positions!.length; k++) {
    const pos = positions![k]! - anchor;
    if (pos > to) break;
    if (matchesAt(search, pass, wanted, pos)) {
      found.push(pos);
      if (found.length >= max) break;
    }
  }
  return found;
}

/** First k with sorted[k] >= value. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
