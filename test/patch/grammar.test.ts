import { describe, expect, it } from 'vitest';
import { hunkHeaderOf, isBlankRust, isRustWhitespace, splitLinesRust, trimEndRust, trimRust, trimStartRust } from '../../src/patch/grammar.js';

// Rust's char::is_whitespace, listed independently of the implementation.
const RUST_WHITESPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
  0x2029, 0x202f, 0x205f, 0x3000,
];

describe('isRustWhitespace', () => {
  it('matches exactly the Rust set over the whole BMP', () => {
    const expected = new Set(RUST_WHITESPACE);
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) if (isRustWhitespace(c) !== expected.has(c)) wrong.push(`U+${c.toString(16)}`);
    expect(wrong).toEqual([]);
  });

  it('differs from JS trim on U+FEFF and U+0085', () => {
    expect('\ufeffx'.trim()).toBe('x');
    expect(trimRust('\ufeffx')).toBe('\ufeffx');
    expect('\u0085x\u0085'.trim()).toBe('\u0085x\u0085');
    expect(trimRust('\u0085x\u0085')).toBe('x');
  });
});

describe('trim helpers', () => {
  it('trim both ends, one end, or nothing', () => {
    expect(trimRust(' \t\u3000a b\u2028\r\n')).toBe('a b');
    expect(trimStartRust(' \u00a0a b ')).toBe('a b ');
    expect(trimEndRust(' a b \u205f')).toBe(' a b');
    expect(trimRust('   ')).toBe('');
    expect(trimEndRust('')).toBe('');
    expect(trimStartRust('\u1680')).toBe('');
  });

  it('return the same string when nothing is cut', () => {
    const s = 'no padding here';
    expect(trimRust(s)).toBe(s);
    expect(trimStartRust(s)).toBe(s);
    expect(trimEndRust(s)).toBe(s);
  });

  it('isBlankRust', () => {
    expect(isBlankRust('')).toBe(true);
    expect(isBlankRust(' \t\u0085')).toBe(true);
    expect(isBlankRust('\ufeff')).toBe(false);
  });
});

describe('splitLinesRust', () => {
  it('behaves like Rust lines()', () => {
    expect(splitLinesRust('')).toEqual([]);
    expect(splitLinesRust('a')).toEqual(['a']);
    expect(splitLinesRust('a\n')).toEqual(['a']);
    expect(splitLinesRust('a\n\n')).toEqual(['a', '']);
    expect(splitLinesRust('a\r\nb\r\n')).toEqual(['a', 'b']);
    // only one \r is dropped, and a lone \r does not break a line
    expect(splitLinesRust('a\r\r\nb\rc')).toEqual(['a\r', 'b\rc']);
    expect(splitLinesRust('\n')).toEqual(['']);
  });
});

describe('hunkHeaderOf', () => {
  it('recognises the three headers by prefix', () => {
    expect(hunkHeaderOf('*** Add File: a')).toBe('*** Add File: ');
    expect(hunkHeaderOf('*** Delete File: a')).toBe('*** Delete File: ');
    expect(hunkHeaderOf('*** Update File: a')).toBe('*** Update File: ');
    expect(hunkHeaderOf('*** Update File:')).toBeUndefined();
    expect(hunkHeaderOf('*** update file: a')).toBeUndefined();
  });
});
