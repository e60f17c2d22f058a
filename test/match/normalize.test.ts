import { describe, expect, it } from 'vitest';
import { foldTypography, MATCH_PASSES, normalizeLine } from '../../src/match/normalize.js';

describe('match passes', () => {
  it('come in the reference order', () => {
    expect(MATCH_PASSES).toEqual(['exact', 'trim_end', 'trim', 'fold']);
  });

  it('exact keeps the line as it is', () => {
    expect(normalizeLine('  a \t', 'exact')).toBe('  a \t');
  });

  it('trim_end drops trailing whitespace only', () => {
    expect(normalizeLine('  a \t', 'trim_end')).toBe('  a');
  });

  it('trim drops whitespace at both ends', () => {
    expect(normalizeLine('  a \t', 'trim')).toBe('a');
  });

  it("trims with Rust's whitespace set, not JavaScript's", () => {
    // U+0085 (NEL) is whitespace to Rust, not to String.prototype.trim.
    expect(normalizeLine('a\u0085', 'trim_end')).toBe('a');
    expect(normalizeLine('\u0085a', 'trim')).toBe('a');
    // U+FEFF (BOM / ZWNBSP) is trimmed by JavaScript, not by Rust.
    expect(normalizeLine('\ufeffa', 'trim')).toBe('\ufeffa');
    expect(normalizeLine('a\ufeff', 'trim_end')).toBe('a\ufeff');
    expect(normalizeLine('a\ufeff', 'fold')).toBe('a\ufeff');
    // Other Rust whitespace at the ends: NBSP, ogham space, U+2000-200A, line/paragraph separators.
    expect(normalizeLine('\u00a0\u1680\u2000a\u2028\u2029\u202f\u205f\u3000', 'trim')).toBe('a');
  });

  it('fold maps dashes, quotes and exotic spaces to ASCII after trimming', () => {
    for (const dash of ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212']) {
      expect(normalizeLine(`a${dash}b`, 'fold')).toBe('a-b');
    }
    for (const q of ['\u2018', '\u2019', '\u201a', '\u201b']) expect(normalizeLine(`${q}x${q}`, 'fold')).toBe("'x'");
    for (const q of ['\u201c', '\u201d', '\u201e', '\u201f']) expect(normalizeLine(`${q}x${q}`, 'fold')).toBe('"x"');
    const spaces = ['\u00a0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200a'];
    for (const sp of [...spaces, '\u202f', '\u205f', '\u3000']) expect(normalizeLine(`a${sp}b`, 'fold')).toBe('a b');
    expect(normalizeLine('  \u201chi\u201d  ', 'fold')).toBe('"hi"');
  });

  it('fold maps nothing else', () => {
    // U+2000 and U+2001 are whitespace (trimmed at the ends) but not mapped inside a line.
    expect(foldTypography('a\u2000b\u2001c')).toBe('a\u2000b\u2001c');
    expect(foldTypography('\u2016\u2017\u2020\u00ab\u00bb\u2026')).toBe('\u2016\u2017\u2020\u00ab\u00bb\u2026');
    expect(foldTypography('ABC abc')).toBe('ABC abc');
    // no Unicode normalisation: é precomposed vs decomposed stay different
    expect(normalizeLine('\u00e9', 'fold')).not.toBe(normalizeLine('e\u0301', 'fold'));
  });

  it('returns the same string when nothing changes', () => {
    const s = 'plain line';
    for (const pass of MATCH_PASSES) expect(normalizeLine(s, pass)).toBe(s);
  });
});
