import { describe, expect, it } from 'vitest';
import { splitFileLines } from '../../src/text/lines.js';
import { rebuildText } from '../../src/apply/rebuild.js';
import { matchBudget } from '../../src/match/budget.js';
import { locateChunks, withoutTrailingEmptyLine } from '../../src/match/locate.js';
import { searchableLines } from '../../src/match/searchable.js';
import type { Chunk } from '../../src/patch/types.js';
import { chunk } from './chunks.js';
import { failure } from '../engine/support.js';

/** The file after the chunks, written with `\n` terminators. */
function apply(fileLines: string[], chunks: Chunk[], strict = false): { text: string; warnings: unknown[] } {
  const file = splitFileLines(fileLines.map((l) => l + '\n').join(''));
  const { edits, warnings } = locateChunks(searchableLines(file), chunks, 'f.txt', { strict });
  return { text: rebuildText(file, edits), warnings };
}

const lines = (text: string) => text.split('\n').slice(0, -1);

describe('locateChunks', () => {
  it('replaces a block found from the cursor, chunks in file order', () => {
    const r = apply(['a', 'b', 'c', 'd'], [chunk(['-b', '+B']), chunk([' c', '-d', '+D'])]);
    expect(r.text).toBe('a\nB\nc\nD\n');
    expect(r.warnings).toEqual([]);
  });

  it('an @@ context must equal a whole line and moves the cursor past it', () => {
    const file = ['def f():', '    return 1', 'def g():', '    return 1'];
    expect(apply(file, [chunk(['-    return 1', '+    return 2'], { contexts: ['def g():'] })]).text).toBe('def f():\n    return 1\ndef g():\n    return 2\n');
    // the header is compared with the match passes: indentation and trailing spaces ignored
    expect(apply(file, [chunk(['-    return 1', '+    return 2'], { contexts: ['  def g():  '] })]).text).toContain('def g():\n    return 2');
    const e = failure(() => apply(file, [chunk(['-    return 1', '+x'], { contexts: ['def g'] })]));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toMatch(/^Failed to find context 'def g' in f\.txt\n/);
    expect(e.data).toMatchObject({ path: 'f.txt', chunk: 1, line: 3, candidates: [3] });
  });

  it('stacked @@ contexts narrow the search step by step', () => {
    const file = ['class A:', '  def run(self):', '    pass', 'class B:', '  def run(self):', '    pass'];
    const r = apply(file, [chunk(['-    pass', '+    return 1'], { contexts: ['class B:', 'def run(self):'] })]);
    expect(r.text).toBe('class A:\n  def run(self):\n    pass\nclass B:\n  def run(self):\n    return 1\n');
    const e = failure(() => apply(file, [chunk(['-    pass'], { contexts: ['class B:', 'class A:'] })]));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain("Failed to find context 'class A:' in f.txt");
    expect(e.message).toContain('occurs at line 1, before line 5');
  });

  it('a pure addition without context is appended at the end of the file (as Codex)', () => {
    expect(apply(['a', 'b'], [chunk(['+c', '+d'])]).text).toBe('a\nb\nc\nd\n');
    // even when it comes first and another chunk follows (upstream test)
    expect(apply(['a', 'b'], [chunk(['+z']), chunk(['-a', '+A'])]).text).toBe('A\nb\nz\n');
  });

  it('a pure addition under an @@ context is inserted right after the context line (divergence)', () => {
    expect(apply(['a', 'b', 'c'], [chunk(['+inserted'], { contexts: ['a'] })]).text).toBe('a\ninserted\nb\nc\n');
    expect(apply(['a', 'b', 'c'], [chunk(['+x'], { contexts: ['a'] }), chunk(['+y'], { contexts: ['b'] })]).text).toBe('a\nx\nb\ny\nc\n');
  });

  it('retries without a trailing empty old line (and empty new line)', () => {
    // the file has no empty line after `b`
    expect(apply(['a', 'b', 'c'], [chunk(['-b', '+B', ''])]).text).toBe('a\nB\nc\n');
    // the empty line is dropped from the old side only when the new side does not end with it
    expect(apply(['a', 'b'], [chunk([' b', '-', '+x'])]).text).toBe('a\nb\nx\n');
  });

  it('withoutTrailingEmptyLine drops the last old line and an empty last new line', () => {
    expect(withoutTrailingEmptyLine(chunk(['-a', '+b', '']).lines)).toEqual([
      { op: '-', text: 'a' },
      { op: '+', text: 'b' },
    ]);
    // a context line dropped from the old side only stays on the new side
    expect(withoutTrailingEmptyLine(chunk(['-a', '', '+b']).lines)).toEqual([
      { op: '-', text: 'a' },
      { op: '+', text: '' },
      { op: '+', text: 'b' },
    ]);
    // Codex: old ['', ''] -> [''], new [''] -> []: the first context line becomes a removal
    expect(withoutTrailingEmptyLine(chunk(['', '-']).lines)).toEqual([{ op: '-', text: '' }]);
  });

  it('a chunk pinned with End of File matches only the last lines', () => {
    const file = ['x', 'y', 'x', 'y'];
    expect(apply(file, [chunk(['-x', '+X', ' y'], { eof: true })]).text).toBe('x\ny\nX\ny\n');
    const e = failure(() => apply(file, [chunk(['-x'], { eof: true })]));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain('End of File requires them to be the last lines');
  });

  it('refuses chunks out of file order and says so', () => {
    const e = failure(() => apply(['a', 'b', 'c'], [chunk(['-c', '+C']), chunk(['-a', '+A'], { line: 9 })]));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toMatch(/^Failed to find expected lines in f\.txt:\na\n\n/);
    expect(e.message).toContain('occur at line 1, before line 4 where the search started');
    expect(e.message).toContain('chunks must be in file order');
    expect(e.data).toMatchObject({ path: 'f.txt', chunk: 2, line: 9, candidates: [1] });
  });

  it('warns about an ambiguous chunk and uses the first match', () => {
    const file = ['x = 1', 'y', 'x = 1', 'y', 'x = 1'];
    const r = apply(file, [chunk(['-x = 1', '+x = 2'], { line: 4 })]);
    expect(r.text).toBe('x = 2\ny\nx = 1\ny\nx = 1\n');
    expect(r.warnings).toEqual([expect.objectContaining({ kind: 'ambiguous_match', path: 'f.txt', chunk: 1, line: 4, candidates: [3, 5] })]);
    expect((r.warnings[0] as { message: string }).message).toContain('match at line 1 and also at lines 3, 5');
  });

  it('strict mode turns ambiguity into an error whose candidates are every place it matches (none was used)', () => {
    const e = failure(() => apply(['x', 'x'], [chunk(['-x'], { line: 7 })], true));
    expect(e.kind).toBe('ambiguous_match');
    expect(e.data).toEqual({ path: 'f.txt', chunk: 1, line: 7, candidates: [1, 2] });
    expect(e.message).toBe(
      'f.txt: chunk 1 (patch line 7) is ambiguous: its lines match at line 1 and also at line 2. Add context lines (or an @@ line) so the chunk matches only one place.',
    );
  });

  it('only counts alternatives of the same pass', () => {
    const r = apply(['x', 'x  '], [chunk(['-x'])]);
    expect(r.warnings).toEqual([]);
  });

  it('ambiguity is judged where the chunk could have gone instead', () => {
    // chunk 1's lines repeat after chunk 2's place: chunk 1 cannot move there (chunk 2 would
    // then have to come before it), so it is not ambiguous
    const file = ['a', 'b', 'c', 'a'];
    expect(apply(file, [chunk(['-a', '+A']), chunk(['-b', '+B'])]).warnings).toEqual([]);
    // the whole edited region repeats: the last chunk reports the alternative
    const twice = ['a', 'b', 'a', 'b'];
    const r = apply(twice, [chunk(['-a', '+A']), chunk(['-b', '+B'])]);
    expect(r.warnings).toEqual([expect.objectContaining({ chunk: 2, candidates: [4] })]);
    // a duplicate between a chunk and the next one's place is reported for that chunk
    const between = ['a', 'x', 'a', 'b'];
    expect(apply(between, [chunk(['-a', '+A']), chunk(['-b', '+B'])]).warnings).toEqual([expect.objectContaining({ chunk: 1, candidates: [3] })]);
  });

  it('an ambiguous @@ context of a pure addition is reported', () => {
    const r = apply(['}', 'a', '}'], [chunk(['+x'], { contexts: ['}'] })]);
    expect(r.text).toBe('}\nx\na\n}\n');
    expect(r.warnings).toEqual([expect.objectContaining({ kind: 'ambiguous_match', candidates: [3] })]);
  });

  it('chunks at the same place keep patch order', () => {
    expect(apply(['a'], [chunk(['+1']), chunk(['+2'])]).text).toBe('a\n1\n2\n');
  });

  it('reports old lines that are not in the file in the reference form', () => {
    const e = failure(() => apply(['a', 'b'], [chunk(['-missing', '+changed'])]));
    expect(e.kind).toBe('context_not_found');
    expect(e.message.split('\n').slice(0, 2)).toEqual(['Failed to find expected lines in f.txt:', 'missing']);
  });

  it('keeps file lines that were matched fuzzily as they are', () => {
    const r = apply(['  a\u00a0b  ', 'old'], [chunk([' a b', '-old', '+new'])]);
    expect(lines(r.text)).toEqual(['  a\u00a0b  ', 'new']);
  });
});

describe('an @@ header restated behind the cursor (the scope of an earlier chunk)', () => {
  // `class T` with a typographic dash in the file; the patch writes an ASCII hyphen
  const file = ['class T \u2013 x:', '    def first():', '        pass', '    def second():', '        pass'];
  const restated = [
    chunk(['-        pass', '+        return 1'], { contexts: ['class T - x:', 'def first():'], line: 3 }),
    chunk(['-        pass', '+        return 2'], { contexts: ['class T - x:', 'def second():'], line: 7 }),
  ];

  it('found only with punctuation folded: the same warning as a header ahead of the cursor', () => {
    const r = apply(file, restated);
    expect(lines(r.text)).toEqual(['class T \u2013 x:', '    def first():', '        return 1', '    def second():', '        return 2']);
    // one warning for each chunk's `@@ class T - x:`, the second found behind the cursor
    expect(r.warnings).toEqual([
      expect.objectContaining({ kind: 'lenient_match', pass: 'fold', chunk: 1, line: 3, fileLines: [1, 1] }),
      expect.objectContaining({ kind: 'lenient_match', pass: 'fold', chunk: 2, line: 7, fileLines: [1, 1] }),
    ]);
    expect((r.warnings[1] as { message: string }).message).toContain("the @@ line 'class T - x:' of chunk 2");
  });

  it('strict refuses it as it refuses the header ahead of the cursor', () => {
    // the first chunk's header written as in the file: only the restated one needs folding
    const exactFirst = [chunk(['-        pass', '+        return 1'], { contexts: ['class T \u2013 x:', 'def first():'] }), restated[1]!];
    expect(apply(file, exactFirst).warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', pass: 'fold', chunk: 2 })]);
    const e = failure(() => apply(file, exactFirst, true));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain("the @@ line 'class T - x:' of chunk 2");
    expect(e.message).toContain('strict');
    expect(e.data).toMatchObject({ path: 'f.txt', chunk: 2, candidates: [1] });
  });

  it('the passes come in the same order: an exact scope behind the cursor beats a folded one nearer to it', () => {
    // the first chunk opens both `x \u2013 y` (line 1) and `x - y` (line 3); the restated
    // `x \u2013 y` equals line 3 only with punctuation folded, line 1 exactly
    const f = ['x \u2013 y', 'a', 'x - y', 'b', 'c'];
    const chunks = [chunk(['-b', '+B'], { contexts: ['x \u2013 y', 'x - y'] }), chunk(['-c', '+C'], { contexts: ['x \u2013 y'] })];
    const r = apply(f, chunks, true);
    expect(lines(r.text)).toEqual(['x \u2013 y', 'a', 'x - y', 'B', 'C']);
    expect(r.warnings).toEqual([]);
  });

  it("written '@@ class T: @@': read without the closing @@ behind the cursor too, with the same warning", () => {
    const f = ['class T:', '    def first():', '        pass', '    def second():', '        pass'];
    const r = apply(f, [
      chunk(['-        pass', '+        return 1'], { contexts: ['class T: @@', 'def first():'], line: 3 }),
      chunk(['-        pass', '+        return 2'], { contexts: ['class T: @@', 'def second():'], line: 7 }),
    ]);
    expect(lines(r.text)).toEqual(['class T:', '    def first():', '        return 1', '    def second():', '        return 2']);
    expect(r.warnings).toEqual([
      expect.objectContaining({ kind: 'nonstandard_form', chunk: 1, line: 3 }),
      expect.objectContaining({ kind: 'nonstandard_form', chunk: 2, line: 7 }),
    ]);
  });

  it('the search spends the match budget', () => {
    // the first chunk opens every line of the file as a header, so the cursor ends at the end
    // of the file and the restated header is looked for among those scopes only
    const n = 1000;
    const headers = Array.from({ length: n }, (_, i) => `h${i}`);
    const opening = chunk(['+end'], { contexts: headers });
    const restating = chunk(['+again'], { contexts: ['h0'] });
    const file = splitFileLines(headers.map((l) => l + '\n').join(''));
    const usedBy = (chunks: Chunk[], max = Number.POSITIVE_INFINITY) => {
      const budget = matchBudget(max);
      locateChunks(searchableLines(file, budget), chunks, 'f.txt');
      return budget.used;
    };
    const opened = usedBy([opening]);
    // `h0` is the oldest of the scopes: every other one is compared with it first
    expect(usedBy([opening, restating]) - opened).toBeGreaterThanOrEqual(n);
    const e = failure(() => usedBy([opening, restating], opened + n / 2));
    expect(e.kind).toBe('limit_exceeded');
  });
});
