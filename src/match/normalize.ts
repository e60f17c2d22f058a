// The four ways the reference compares a patch line with a file line, tried in this order:
// exact, then ignoring trailing whitespace, then ignoring whitespace at both ends, then also
// folding typographic punctuation and exotic spaces to ASCII. Whitespace is Rust's notion
// (`char::is_whitespace`), not JavaScript's `trim()` (which also eats U+FEFF and keeps U+0085).
import { trimEndRust, trimRust } from '../patch/grammar.js';

export type MatchPass = 'exact' | 'trim_end' | 'trim' | 'fold';

/** In the order the reference tries them: an earlier pass anywhere beats a later pass earlier. */
export const MATCH_PASSES: readonly MatchPass[] = ['exact', 'trim_end', 'trim', 'fold'];

// The complete folding table of the reference; nothing else is mapped (no case folding, no
// NFC, U+2000/U+2001 stay as they are).
const FOLDABLE = /[\u00a0\u2002-\u200a\u2010-\u2015\u2018-\u201f\u202f\u205f\u2212\u3000]/;
const FOLDABLE_ALL = new RegExp(FOLDABLE.source, 'g');

function foldChar(ch: string): string {
  const c = ch.charCodeAt(0);
  if ((c >= 0x2010 && c <= 0x2015) || c === 0x2212) return '-';
  if (c >= 0x2018 && c <= 0x201b) return "'";
  if (c >= 0x201c && c <= 0x201f) return '"';
  return ' '; // U+00A0, U+2002-200A, U+202F, U+205F, U+3000
}

/** Typographic dashes, quotes and spaces mapped to their ASCII look-alikes. */
export function foldTypography(s: string): string {
  // Most lines have nothing to fold: test first so they are returned without allocating.
  return FOLDABLE.test(s) ? s.replace(FOLDABLE_ALL, foldChar) : s;
}

/** The form of `line` that the given pass compares. */
export function normalizeLine(line: string, pass: MatchPass): string {
  switch (pass) {
    case 'exact':
      return line;
    case 'trim_end':
      return trimEndRust(line);
    case 'trim':
      return trimRust(line);
    case 'fold':
      // Trim first, then fold: folding turns NBSP into a plain space, which the reference
      // does not trim away afterwards (it trims, then maps).
      return foldTypography(trimRust(line));
  }
}
