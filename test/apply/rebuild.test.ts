import { describe, expect, it } from 'vitest';
import { splitFileLines } from '../../src/text/lines.js';
import { rebuildBytes, rebuildText } from '../../src/apply/rebuild.js';
import { locateChunks } from '../../src/match/locate.js';
import { searchableLines } from '../../src/match/searchable.js';
import type { Chunk } from '../../src/patch/types.js';
import { chunk } from '../match/chunks.js';

function update(text: string, ...chunks: Chunk[]): string {
  const file = splitFileLines(text);
  const { edits } = locateChunks(searchableLines(file), chunks, 'f.txt');
  const out = rebuildText(file, edits);
  // the byte routes (copying from the source bytes, or encoding the text) give the same bytes
  const expected = new TextEncoder().encode(out);
  expect(rebuildBytes(file, edits, new TextEncoder().encode(text))).toEqual(expected);
  expect(rebuildBytes(file, edits)).toEqual(expected);
  return out;
}

describe('rebuildText (preserve line endings)', () => {
  it('scenario 023: CRLF file, new lines get CRLF', () => {
    expect(update('one\r\ntwo\r\nthree\r\n', chunk(['-one', '+ONE', ' two', '+between', ' three']))).toBe('ONE\r\ntwo\r\nbetween\r\nthree\r\n');
  });

  it('mixed endings: context lines keep their own, a lone CR stays inside its line', () => {
    expect(update('one\r\ntwo\rthree\nfour\r\n', chunk([' one', '-two\rthree', '+TWO', ' four']))).toBe('one\r\nTWO\r\nfour\r\n');
    // the reported case: the inserted line ends as the first line does (CRLF), never in a bare CR
    expect(update('foo\r\r\nbar\r\nbaz\n', chunk(['-bar', '+BAR']))).toBe('foo\r\r\nBAR\r\nbaz\n');
  });

  it('scenario 024: a lone CR does not end a line, so its patch does not match', () => {
    expect(() => update('one\r\ntwo\rthree\nfour\r\n', chunk([' one', ' two', '-three', '+THREE', ' four']))).toThrow(/Failed to find expected lines/);
  });

  it('a surviving context line keeps its LF in a CRLF-first file (upstream test)', () => {
    expect(update('same\r\nsame\n', chunk(['-same', ' same']))).toBe('same\n');
  });

  it('terminates every line after an update', () => {
    expect(update('one\r\ntwo', chunk(['-one', '+ONE']))).toBe('ONE\r\ntwo\r\n');
    expect(update('no newline at end', chunk(['-no newline at end', '+first line', '+second line']))).toBe('first line\nsecond line\n');
    // an appended line after an unterminated last line
    expect(update('a', chunk(['+b']))).toBe('a\nb\n');
    expect(update('a\r\nb', chunk(['+c']))).toBe('a\r\nb\r\nc\r\n');
    // a file whose only CRs are lone ones has no ending but LF: it is one line
    expect(update('a\rb\r', chunk(['-a\rb\r', '+B', '+C']))).toBe('B\nC\n');
  });

  it('appends after a final blank line (preserve mode, not NormalizeToLf)', () => {
    expect(update('a\n\n', chunk(['+b']))).toBe('a\n\nb\n');
  });

  it('a file whose every line is removed becomes empty', () => {
    expect(update('a\nb', chunk(['-a', '-b']))).toBe('');
    expect(update('\ufeffa\n', chunk(['-a']))).toBe('');
  });

  it('keeps the BOM in front and matches line 1 without it', () => {
    expect(update('\ufeffa\r\nb\r\n', chunk(['-a', '+A']))).toBe('\ufeffA\r\nb\r\n');
    expect(update('\ufeffa\nb\n', chunk(['-b', '+B']))).toBe('\ufeffa\nB\n');
    expect(update('\ufeffa\n', chunk(['+z'], { contexts: ['a'] }))).toBe('\ufeffa\nz\n');
  });

  it('context lines keep the file bytes even when matched fuzzily', () => {
    expect(update('  x  \r\n\u201cq\u201d\r\nold\r\n', chunk([' x', ' "q"', '-old', '+new']))).toBe('  x  \r\n\u201cq\u201d\r\nnew\r\n');
  });

  it('copies non-ASCII stretches byte for byte', () => {
    expect(update('\ufeffé\n✅ ok\nñ\n𝄞 x\n', chunk([' ✅ ok', '-ñ', '+ü', ' 𝄞 x']))).toBe('\ufeffé\n✅ ok\nü\n𝄞 x\n');
    expect(update('日本\r\n語\r\n', chunk(['+追加'], { contexts: ['日本'] }))).toBe('日本\r\n追加\r\n語\r\n');
  });

  it('removed lines may be matched fuzzily too; added lines are the patch text', () => {
    expect(update('a\u2014b  \n', chunk(['-a-b', '+a - b']))).toBe('a - b\n');
  });
});
