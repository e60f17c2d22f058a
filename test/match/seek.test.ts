import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitFileLines } from '../../src/text/lines.js';
import { buildLineIndex, lineIndex, searchableLines, searchableOf } from '../../src/match/searchable.js';
import { findMatchesOfPass, seekSequence } from '../../src/match/seek.js';

const at = (lines: string[], pattern: string[], start = 0, eof = false) => seekSequence(lines, pattern, start, eof);

describe('seekSequence', () => {
  it('finds an exact block at/after the cursor', () => {
    const file = ['a', 'b', 'c', 'b', 'c'];
    expect(at(file, ['b', 'c'])).toMatchObject({ index: 1, pass: 'exact' });
    expect(at(file, ['b', 'c'], 2)).toMatchObject({ index: 3, pass: 'exact' });
    expect(at(file, ['b', 'c'], 4)).toBeUndefined();
  });

  it('matches whole lines only', () => {
    expect(at(['xa', 'ab', 'a'], ['a'])).toMatchObject({ index: 2 });
    expect(at(['class Foo(Base):'], ['class Foo'])).toBeUndefined();
  });

  it('an empty pattern matches at the cursor', () => {
    expect(at(['a', 'b'], [], 1)).toEqual({ index: 1, pass: 'exact', others: [] });
    expect(at(['a', 'b'], [], 1, true)).toEqual({ index: 1, pass: 'exact', others: [] });
  });

  it('a pattern longer than the file is not found', () => {
    expect(at(['a'], ['a', 'b'])).toBeUndefined();
    expect(at([], ['a'])).toBeUndefined();
  });

  it('tries each pass over all positions before the next pass', () => {
    // a trailing-space match comes first in the file, the exact one later: exact wins
    expect(at(['foo  ', 'foo'], ['foo'])).toMatchObject({ index: 1, pass: 'exact' });
    expect(at(['  foo', 'foo '], ['foo'])).toMatchObject({ index: 1, pass: 'trim_end' });
    expect(at(['\u201cfoo\u201d', '  "foo"'], ['"foo"'])).toMatchObject({ index: 1, pass: 'trim' });
  });

  it('each fuzzy pass', () => {
    expect(at(['x', 'foo \t'], ['foo'])).toMatchObject({ index: 1, pass: 'trim_end' });
    expect(at(['x', '    foo'], ['foo  '])).toMatchObject({ index: 1, pass: 'trim' });
    expect(at(['x', 'a \u2014 b\u00a0c'], ['a - b c'])).toMatchObject({ index: 1, pass: 'fold' });
    expect(at(['x', 'it\u2019s'], ["it's"])).toMatchObject({ index: 1, pass: 'fold' });
  });

  it("uses Rust's whitespace: U+0085 is trimmed, U+FEFF is not", () => {
    expect(at(['foo\u0085'], ['foo'])).toMatchObject({ index: 0, pass: 'trim_end' });
    // (on line 2: a BOM at the very start of a file is the file's BOM, not part of line 1)
    expect(at(['x', '\ufefffoo'], ['foo'])).toBeUndefined();
    expect(at(['x', 'foo\ufeff'], ['foo'])).toBeUndefined();
    expect(at(['x', '\ufefffoo'], ['\ufefffoo'])).toMatchObject({ index: 1, pass: 'exact' });
  });

  it('with End of File tries only the last window', () => {
    const file = ['a', 'b', 'a', 'b', 'c'];
    expect(at(file, ['a', 'b'], 0, true)).toBeUndefined();
    expect(at(file, ['b', 'c'], 0, true)).toMatchObject({ index: 3, pass: 'exact' });
    expect(at(file, ['b', 'c '], 0, true)).toMatchObject({ index: 3, pass: 'trim_end' });
    // the last window lies before the cursor: nothing matches (no fallback)
    expect(at(file, ['b', 'c'], 4, true)).toBeUndefined();
    expect(at(file, ['c'], 4, true)).toMatchObject({ index: 4 });
  });

  it('reports further matches of the same pass, capped', () => {
    const file = ['x', 'a', 'x', 'a ', 'x', 'a', 'x', 'a', 'x', 'a', 'x', 'a', 'x', 'a', 'x', 'a'];
    const m = at(file, ['x', 'a']);
    expect(m).toMatchObject({ index: 0, pass: 'exact' });
    // position 2 matches only with trim_end: not reported; at most 5 are listed
    expect(m!.others).toEqual([4, 6, 8, 10, 12]);
    expect(seekSequence(file, ['x', 'a'], 0, false, 0)!.others).toEqual([]);
    expect(seekSequence(file, ['x', 'a'], 0, false, 2)!.others).toEqual([4, 6]);
    expect(at(file, ['x', 'a '])).toMatchObject({ index: 2, pass: 'exact', others: [] });
  });

  it('works on CRLF, lone-CR and BOM files', () => {
    const crlf = searchableLines(splitFileLines('one\r\ntwo\r\nthree\r\n'));
    expect(seekSequence(crlf, ['two', 'three'], 0, true)).toMatchObject({ index: 1, pass: 'exact' });
    const mixed = searchableLines(splitFileLines('one\r\ntwo\rthree\nfour'));
    expect(seekSequence(mixed, ['two\rthree', 'four'], 0, false)).toMatchObject({ index: 1, pass: 'exact' });
    expect(seekSequence(mixed, ['two', 'three', 'four'], 0, false)).toBeUndefined();
    const bom = searchableLines(splitFileLines('\ufeffhead\nbody\n'));
    expect(seekSequence(bom, ['head'], 0, false)).toMatchObject({ index: 0, pass: 'exact' });
  });

  it('finds blocks made only of empty lines', () => {
    expect(at(['a', '', 'b', '', ''], ['', ''])).toMatchObject({ index: 3, pass: 'exact' });
  });

  it('skips substring hits of the anchor line', () => {
    const file = ['  let x = 1; let x = 1;', 'let x = 1;', 'y'];
    expect(at(file, ['let x = 1;', 'y'])).toMatchObject({ index: 1, pass: 'exact' });
  });

  it('indexes a pass after repeated fruitless scans, with the same results', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i % 50}  `);
    const search = searchableOf(lines);
    const plain = searchableOf(lines);
    expect(lineIndex(search, 'exact')).toBeUndefined();
    for (let k = 0; k < 40; k++) {
      // exact misses (trailing spaces), trim_end hits: the exact pass wastes full scans
      const m = seekSequence(search, [`line ${k}`, `line ${k + 1}`], k * 7, false);
      expect(m).toMatchObject({ pass: 'trim_end' });
    }
    expect(lineIndex(search, 'exact')).toBeDefined();
    for (let k = 0; k < 30; k++) {
      const pattern = [`line ${k}  `, `line ${(k + 1) % 50}  `];
      expect(seekSequence(search, pattern, k * 11, false)).toEqual(seekSequence(plain, pattern, k * 11, false));
    }
    // with the index, a pattern containing a line absent from the file is a miss at once
    expect(seekSequence(search, ['line 1  ', 'nope'], 0, false)).toBeUndefined();
    // the fuzzy pass that kept being used gets its index too
    expect(lineIndex(search, 'trim_end')).toBeUndefined();
    for (let k = 0; k < 400; k++) seekSequence(search, ['absent'], 0, false);
    expect(lineIndex(search, 'trim_end')).toBeDefined();
  });
});

describe('line indexes', () => {
  it('give the same answers as scanning', () => {
    const alphabet = ['a', 'b', ' a', 'a ', '', '\u2013', '-', 'ab', 'ba', 'a\u00a0b', 'a b'];
    const line = fc.constantFrom(...alphabet);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { minLength: 1, maxLength: 3 }), fc.nat(40), fc.boolean(), (file, pattern, start, eof) => {
        const plain = searchableOf(file);
        const indexed = searchableOf(file);
        for (const pass of ['exact', 'trim_end', 'trim', 'fold'] as const) buildLineIndex(indexed, pass);
        expect(seekSequence(indexed, pattern, start, eof)).toEqual(seekSequence(plain, pattern, start, eof));
        for (const pass of ['exact', 'trim_end', 'trim', 'fold'] as const) {
          expect(findMatchesOfPass(indexed, pattern, pass, start, 40, 3)).toEqual(findMatchesOfPass(plain, pattern, pass, start, 40, 3));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('findMatchesOfPass', () => {
  it('lists matches of one pass within a window of starts', () => {
    const search = searchableOf(['a', 'b', 'a ', 'b', 'a', 'b', 'a', 'b']);
    expect(findMatchesOfPass(search, ['a', 'b'], 'exact', 1, 10, 5)).toEqual([4, 6]);
    expect(findMatchesOfPass(search, ['a', 'b'], 'exact', 1, 5, 5)).toEqual([4]);
    expect(findMatchesOfPass(search, ['a', 'b'], 'trim_end', 1, 10, 5)).toEqual([2, 4, 6]);
    expect(findMatchesOfPass(search, ['a', 'b'], 'exact', 0, 10, 1)).toEqual([0]);
    expect(findMatchesOfPass(search, ['a', 'b'], 'exact', 7, 10, 5)).toEqual([]);
  });
});
