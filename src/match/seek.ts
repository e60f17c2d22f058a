// seek_sequence: where does a block of patch lines occur in a file, at or after a cursor?
//
// Reference rules: the passes of normalize.ts are tried in order and each one scans every
// candidate position before the next pass starts (an exact match late in the file beats a
// fuzzy one early); the first position that matches wins; `*** End of File` tries only the last
// window, and only when it lies at or after the cursor; an empty pattern matches at the cursor.
import { MATCH_PASSES, type MatchPass, normalizeLine } from './normalize.js';
import {
  type LineIndex,
  type SearchableLines,
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

function isLineArray(lines: SearchableLines | readonly string[]): lines is readonly string[] {
  return Array.isArray(lines);
}

function normalizePattern(pattern: readonly string[], pass: MatchPass): readonly string[] {
  return pass === 'exact' ? pattern : pattern.map((line) => normalizeLine(line, pass));
}

function matchesAt(search: SearchableLines, pass: MatchPass, wanted: readonly string[], pos: number): boolean {
  for (let j = 0; j < wanted.length; j++) {
    if (!lineEquals(search, pass, pos + j, wanted[j]!)) return false;
  }
  return true;
}

/**
 * Matches of `wanted` (already in `pass` form) starting in `from..=to`, at most `max`.
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
  const index = lineIndex(search, pass);
  if (index !== undefined) return collectIndexed(search, pass, wanted, index, from, to, max, found);

  // Walk the lines where the pattern's longest line would have to be. A length test and one
  // character from the middle rule out almost every line before a string comparison (which
  // costs far more than a character read); the exact pass reads both from the text itself.
  let anchor = 0;
  for (let j = 1; j < wanted.length; j++) if (wanted[j]!.length > wanted[anchor]!.length) anchor = j;
  const needle = wanted[anchor]!;
  const size = needle.length;
  const probe = size >> 1;
  const probeChar = needle.charCodeAt(probe);
  const last = to + anchor;
  if (pass === 'exact') {
    const { text, starts, ends } = search.file;
    for (let line = from + anchor; line <= last; line++) {
      const start = starts[line]!;
      if (ends[line]! - start !== size || (size !== 0 && text.charCodeAt(start + probe) !== probeChar)) continue;
      if (matchesAt(search, pass, wanted, line - anchor)) {
        found.push(line - anchor);
        if (found.length >= max) return found;
      }
    }
  } else {
    const lines = normalizedLines(search, pass);
    for (let line = from + anchor; line <= last; line++) {
      const l = lines[line]!;
      if (l.length !== size || (size !== 0 && l.charCodeAt(probe) !== probeChar)) continue;
      if (matchesAt(search, pass, wanted, line - anchor)) {
        found.push(line - anchor);
        if (found.length >= max) return found;
      }
    }
  }
  if (found.length === 0 && isSearch) noteFruitlessScan(search, pass, to - from + 1);
  return found;
}

/** With a line index: walk only the lines that share a key with the pattern's rarest line. */
function collectIndexed(
  search: SearchableLines,
  pass: MatchPass,
  wanted: readonly string[],
  index: LineIndex,
  from: number,
  to: number,
  max: number,
  found: number[],
): number[] {
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
  for (let k = lowerBound(order, first, end, from + anchor); k < end; k++) {
    const pos = order[k]! - anchor;
    if (pos > to) break;
    if (matchesAt(search, pass, wanted, pos)) {
      found.push(pos);
      if (found.length >= max) break;
    }
  }
  return found;
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
