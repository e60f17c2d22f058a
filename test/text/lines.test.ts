import { describe, expect, it } from 'vitest';
import { fileLinesOf, lineTerminator, lineText, lineTexts, recycleFileLines, splitFileLines } from '../../src/text/lines.js';

function shape(text: string) {
  const f = splitFileLines(text);
  return {
    lines: Array.from({ length: f.count }, (_, i) => [lineText(f, i), lineTerminator(f, i)]),
    preferred: f.preferredEnding,
    prefix: f.prefixLength,
  };
}

describe('splitFileLines', () => {
  it('an empty file has no lines', () => {
    expect(shape('')).toEqual({ lines: [], preferred: '\n', prefix: 0 });
  });

  it('keeps each line terminator, none for an unterminated last line', () => {
    expect(shape('a\nb')).toEqual({
      lines: [
        ['a', '\n'],
        ['b', ''],
      ],
      preferred: '\n',
      prefix: 0,
    });
    expect(shape('a\n\n')).toEqual({
      lines: [
        ['a', '\n'],
        ['', '\n'],
      ],
      preferred: '\n',
      prefix: 0,
    });
    expect(shape('a').lines).toEqual([['a', '']]);
  });

  it('splits on LF only: CRLF is an ending, a lone CR is part of the line (as git and upstream read it)', () => {
    expect(shape('one\r\ntwo\rthree\nfour\r\n')).toEqual({
      lines: [
        ['one', '\r\n'],
        ['two\rthree', '\n'],
        ['four', '\r\n'],
      ],
      preferred: '\r\n',
      prefix: 0,
    });
    expect(shape('a\r\r\nb').lines).toEqual([
      ['a\r', '\r\n'],
      ['b', ''],
    ]);
    expect(shape('\r').lines).toEqual([['\r', '']]);
    expect(shape('\r\n\r').lines).toEqual([
      ['', '\r\n'],
      ['\r', ''],
    ]);
  });

  it('the preferred ending is that of the first line that has one, LF when there is none', () => {
    expect(shape('a\nb\r\nc\r\n').preferred).toBe('\n');
    expect(shape('a\rb\nc\r\n').preferred).toBe('\n');
    expect(shape('a\r\nb\n').preferred).toBe('\r\n');
    expect(shape('a\rb\r').preferred).toBe('\n');
    expect(shape('no terminator').preferred).toBe('\n');
  });

  it('keeps a leading BOM out of line 1', () => {
    expect(shape('\ufeffa\r\nb')).toEqual({
      lines: [
        ['a', '\r\n'],
        ['b', ''],
      ],
      preferred: '\r\n',
      prefix: 1,
    });
    expect(shape('\ufeff')).toEqual({ lines: [], preferred: '\n', prefix: 1 });
    // only at the very start
    expect(shape('a\n\ufeffb').lines).toEqual([
      ['a', '\n'],
      ['\ufeffb', ''],
    ]);
  });

  it('grows past its initial capacity', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `l${i}`).join('\r\n');
    const f = splitFileLines(text);
    expect(f.count).toBe(1000);
    expect(lineText(f, 999)).toBe('l999');
    expect(f.starts[f.count]).toBe(text.length);
    expect(lineTexts(splitFileLines('x\ny\n'))).toEqual(['x', 'y']);
  });

  it('fileLinesOf joins with LF', () => {
    expect(lineTexts(fileLinesOf(['a', '', 'b']))).toEqual(['a', '', 'b']);
    expect(fileLinesOf(['a'], false).text).toBe('a');
  });
});

describe('recycleFileLines', () => {
  it('a split into recycled arrays gives the same lines as a fresh one, for files of any size', () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i}${i % 3 === 0 ? '\r\n' : '\n'}`).join('');
    const small = 'x\ny\r\nz';
    // long lines (few lines for the text's length), then many short ones: the second needs to grow
    const long = Array.from({ length: 50 }, (_, i) => `${'w'.repeat(200)}${i}\n`).join('');
    const short = 'a\n'.repeat(20000);
    const sequence = [big, small, big, long, short, big, '', small];
    // splits no arrays were given back to yet (this is the first test that recycles)
    const expected = sequence.map((text) => lineTexts(splitFileLines(text)));
    for (const [k, text] of sequence.entries()) {
      const reused = splitFileLines(text);
      expect(lineTexts(reused)).toEqual(expected[k]);
      expect(reused.starts.length).toBe(reused.count + 1);
      expect(reused.ends.length).toBe(reused.count);
      expect(reused.starts[reused.count]).toBe(text.length);
      recycleFileLines(reused);
    }
  });

  it('the next split fills the recycled arrays instead of allocating', () => {
    const text = 'one\ntwo\nthree\n'.repeat(1000);
    const first = splitFileLines(text);
    const buffer = first.starts.buffer;
    recycleFileLines(first);
    const second = splitFileLines(text);
    expect(second.starts.buffer).toBe(buffer);
    expect(lineTexts(second)).toEqual(lineTexts(splitFileLines(text)));
    recycleFileLines(second);
  });
});
