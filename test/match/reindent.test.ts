// The re-indentation of + lines after a match that ignored leading whitespace, on its own.
import { describe, expect, it } from 'vitest';
import { indentUnit, reindentChunk } from '../../src/match/reindent.js';
import { chunk } from './chunks.js';

/** The + lines of `patch` after re-indenting against the file's text of its old lines. */
function added(patch: string[], fileOld: string[], unit?: string): string[] {
  const c = chunk(patch);
  return reindentChunk(c.lines, fileOld, unit ?? indentUnit(fileOld))
    .lines.filter((l) => l.op === '+')
    .map((l) => l.text);
}

describe('indentUnit', () => {
  it('tabs when most indented lines start with one, else the commonest step in spaces', () => {
    expect(indentUnit(['a', '\tb', '\t\tc', '  d'])).toBe('\t');
    expect(indentUnit(['a:', '  b:', '    c: 1', '    d: 2', '  e:', '    f: 1'])).toBe('  ');
    expect(indentUnit(['def f():', '    if x:', '        y(1,', '          2)'])).toBe('    ');
    expect(indentUnit(['a', 'b', ''])).toBeUndefined();
  });
});

describe('reindentChunk', () => {
  it("leaves the lines alone when every old line has the file's indentation", () => {
    const c = chunk([' a', '-  b', '+  B']);
    expect(reindentChunk(c.lines, ['a', '  b'], '  ')).toEqual({ lines: c.lines, changed: false });
  });

  it('adds or removes a common prefix, whatever it is made of', () => {
    expect(added([' x', '-  y', '+  Y', '+    z'], ['\t x', '\t   y'])).toEqual(['\t   Y', '\t     z']);
    expect(added(['     x', '-      y', '+      Y', '+  w'], [' x', '  y'])).toEqual(['  Y', 'w']);
  });

  it('maps levels between units: tabs for spaces, four spaces for two', () => {
    expect(added([' if x:', '-    a()', '+    b()', '+        c()', '+      aligned'], ['if x:', '\ta()'], '\t')).toEqual(['\tb()', '\t\tc()', '\t  aligned']);
    expect(added([' k:', '-  a: 1', '+  a: 2', '+  b:', '+    c: 3'], ['    k:', '        a: 1'], '    ')).toEqual([
      '        a: 2',
      '        b:',
      '            c: 3',
    ]);
  });

  it('keeps blank + lines blank', () => {
    expect(added([' x', '+', '+  y'], ['    x'], '    ')).toEqual(['', '      y']);
  });
});
