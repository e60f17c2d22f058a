import { describe, expect, it } from 'vitest';
import { splitFileLines } from '../../src/text/lines.js';
import { closestRegion, linesNotFoundError, makeVisible } from '../../src/match/diagnose.js';
import { PatchtxError } from '../../src/errors.js';
import { locateChunks } from '../../src/match/locate.js';
import { searchableLines } from '../../src/match/searchable.js';
import type { Chunk } from '../../src/patch/types.js';
import { chunk } from '../match/chunks.js';

function failure(text: string, ...chunks: Chunk[]): PatchtxError {
  try {
    locateChunks(searchableLines(splitFileLines(text)), chunks, 'src/app.py');
  } catch (e) {
    if (e instanceof PatchtxError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

const FILE = ['import os', '', 'def main():', '\tprint("hello")  ', '    return 0', '', 'main()'].join('\n') + '\n';

describe('linesNotFoundError', () => {
  it('starts with the reference message, then points at the closest region', () => {
    const e = failure(FILE, chunk([' def main():', '-    print("hallo")', '+    print("bye")', '     return 0'], { line: 5 }));
    expect(e.kind).toBe('context_not_found');
    const [head, hints] = e.message.split('\n\n');
    expect(head).toBe('Failed to find expected lines in src/app.py:\ndef main():\n    print("hallo")\n    return 0');
    expect(hints).toContain('Chunk 1 (patch line 5): searched from line 1 on.');
    expect(hints).toContain('Closest match: lines 3-5 (2 of 3 lines equal ignoring surrounding whitespace).');
    expect(hints).toContain('First difference at line 4:');
    expect(hints).toContain(`  patch: '    print("hallo")'`);
    expect(hints).toContain(`  file:  '→print("hello")··'`);
    expect(e.data).toEqual({ path: 'src/app.py', chunk: 1, line: 5, candidates: [3] });
  });

  it('names the line that keeps the chunk from matching, not an earlier one that differs only in spacing', () => {
    // line 1 differs from the patch by a no-break space, which the most forgiving pass ignores;
    // line 2 is the real difference
    const e = failure('\tx := 1\u00a0// note\n\treturn\n', chunk(['  x := 1 // note', ' \treturn2', '+y']));
    expect(e.message).toContain('First difference at line 2:');
    expect(e.message).toContain("  patch: '→return2'");
    expect(e.message).not.toContain('First difference at line 1');
  });

  it('notices a change that is already applied', () => {
    const e = failure('a\nB\nc\n', chunk([' a', '-b', '+B', ' c']));
    expect(e.message).toContain('The + lines are already present at line 1 (already applied?)');
    expect(e.message).toContain("  patch: 'b'");
    expect(e.message).toContain("  file:  'B'");
  });

  it('prefers regions at/after the cursor among equally close ones', () => {
    const e = failure('x\ny\nq\nx\ny\nq\n', chunk(['-q', '+Q']), chunk([' x', '-z']));
    expect(e.data.candidates).toEqual([4]);
  });

  it('says when the file ends before the expected lines do', () => {
    const e = failure('a\n', chunk([' a', '-b']));
    expect(e.message).toContain('The file ends after line 1; the patch expects more lines:');
    expect(e.message).toContain("  patch: 'b'");
  });

  it('says when nothing resembles the lines', () => {
    const e = failure('a\nb\n', chunk(['-zzz']));
    expect(e.message).toContain('No region of the file resembles these lines.');
    expect(e.data.candidates).toBeUndefined();
  });

  it('passes over typographic and trailing-whitespace differences, which would have matched, to the line that did not', () => {
    const e = failure('say \u201chi\u201d\nend \nx\n', chunk([' say "hi"', ' end', '-y']));
    expect(e.message).toContain("First difference at line 3:\n  patch: 'y'\n  file:  'x'");
    const t = failure('a  \nb\n', chunk(['-a', '-c']));
    expect(t.message).toContain("First difference at line 2:\n  patch: 'c'\n  file:  'b'");
  });

  it('can be built directly', () => {
    const search = searchableLines(splitFileLines('one\n'));
    const e = linesNotFoundError({ search, path: 'p', chunk: chunk(['-two']), chunkNumber: 2, cursor: 0 });
    expect(e.message.startsWith('Failed to find expected lines in p:\ntwo\n\n')).toBe(true);
    expect(e.data).toMatchObject({ path: 'p', chunk: 2 });
  });
});

describe('contextNotFoundError', () => {
  it('points at a line that contains the @@ text', () => {
    const e = failure('class Foo(Base):\n    x = 1\n', chunk(['-    x = 1'], { contexts: ['class Foo'] }));
    expect(e.message.split('\n')[0]).toBe("Failed to find context 'class Foo' in src/app.py");
    expect(e.message).toContain("Line 1 contains it: 'class Foo(Base):'");
    expect(e.data).toMatchObject({ path: 'src/app.py', chunk: 1, candidates: [1] });
  });

  it('points at a line that differs in letter case', () => {
    const e = failure('Class foo:\n', chunk(['+x'], { contexts: ['class Foo:'] }));
    expect(e.message).toContain('Line 1 differs only in letter case');
  });
});

describe('closestRegion', () => {
  it('scores windows by lines equal after trimming', () => {
    const search = searchableLines(splitFileLines('a\nb\nc\na\nB\nc\n'));
    expect(closestRegion(search, ['a', 'b', 'x'], 0)).toEqual({ start: 0, score: 2 });
    expect(closestRegion(search, ['a', 'X', 'c'], 2)).toEqual({ start: 3, score: 2 });
    expect(closestRegion(search, ['', ''], 0)).toBeUndefined();
  });
});

describe('makeVisible', () => {
  it('shows invisible characters', () => {
    expect(makeVisible('\tx  ')).toBe('→x··');
    expect(makeVisible('a\rb')).toBe('a\\rb');
    expect(makeVisible('a\u00a0b')).toBe('a<NBSP>b');
    expect(makeVisible('\ufeffx')).toBe('<BOM>x');
    expect(makeVisible('a\u200bb\u3000c\u0085')).toBe('a<U+200B>b<U+3000>c<U+0085>');
    expect(makeVisible('a b')).toBe('a b');
    expect(makeVisible('  ')).toBe('··');
  });
});

describe('closest region when no line is equal', () => {
  it('points at the most alike lines and shows the first difference', async () => {
    const { applyPatch } = await import('../../src/index.js');
    const file = 'export function add(a, b) {\n  return a + b; // sum\n}\n\nexport const unrelated = 42;\n';
    const patch = '*** Begin Patch\n*** Update File: m.js\n@@\n-  return a - b;\n+  return a * b;\n*** End Patch\n';
    let message = '';
    let candidates: unknown;
    try {
      applyPatch(patch, { 'm.js': file });
    } catch (e) {
      message = (e as Error).message;
      candidates = (e as { data: { candidates?: number[] } }).data.candidates;
    }
    expect(message).toContain('Closest match: line 2 (alike, but no line equal');
    expect(message).toContain("file:  '  return a + b; // sum'");
    expect(candidates).toEqual([2]);
  });

  it('still says so when nothing is alike', async () => {
    const { applyPatch } = await import('../../src/index.js');
    const patch = '*** Begin Patch\n*** Update File: m.js\n@@\n-zzzz qqqq\n+x\n*** End Patch\n';
    expect(() => applyPatch(patch, { 'm.js': 'alpha\nbeta\n' })).toThrow('No region of the file resembles these lines.');
  });
});
