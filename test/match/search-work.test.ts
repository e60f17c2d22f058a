// The chunk search does work in proportion to the file, whatever its lines repeat, and within a
// budget of line comparisons: counted here (src/match/budget.ts), not timed. A property test holds
// the search to the straightforward one: four passes, each over every position before the next,
// the first match wins.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileLinesOf } from '../../src/text/lines.js';
import { applyPatch } from '../../src/api/applyPatch.js';
import { PatchtxError } from '../../src/errors.js';
import { matchBudget } from '../../src/match/budget.js';
import { MATCH_PASSES, type MatchPass, normalizeLine } from '../../src/match/normalize.js';
import { buildLineIndex, searchableLines } from '../../src/match/searchable.js';
import { findMatchesOfPass, seekSequence } from '../../src/match/seek.js';

function searchOf(lines: readonly string[]) {
  const budget = matchBudget();
  return { search: searchableLines(fileLinesOf(lines), budget), budget };
}

/** The search as the reference writes it: every pass over every position, nothing clever. */
function naiveMatches(file: readonly string[], pattern: readonly string[], pass: MatchPass, from: number, to: number, max: number): number[] {
  const out: number[] = [];
  const last = Math.min(to, file.length - pattern.length);
  for (let p = from; p <= last && out.length < max; p++) {
    if (pattern.every((l, j) => normalizeLine(file[p + j]!, pass) === normalizeLine(l, pass))) out.push(p);
  }
  return out;
}

function naiveSeek(file: readonly string[], pattern: readonly string[], start: number, eof: boolean, maxOthers: number) {
  if (pattern.length === 0) return { index: start, pass: 'exact', others: [] };
  const last = file.length - pattern.length;
  if (last < start) return undefined;
  for (const pass of MATCH_PASSES) {
    const index = eof ? naiveMatches(file, pattern, pass, last, last, 1)[0] : naiveMatches(file, pattern, pass, start, last, 1)[0];
    if (index !== undefined) {
      const others = maxOthers > 0 && !eof ? naiveMatches(file, pattern, pass, index + 1, last, maxOthers) : [];
      return { index, pass, others };
    }
  }
  return undefined;
}

describe('search work', () => {
  it('an absent chunk of repeated lines costs work in proportion to the file, not file times chunk', () => {
    const n = 20_000;
    const m = 1_000;
    const { search, budget } = searchOf(Array.from({ length: n }, () => 'xxxx'));
    const pattern = [...Array.from({ length: m }, () => 'xxxx'), 'y'];
    expect(seekSequence(search, pattern, 0, false)).toBeUndefined();
    // four passes of a few steps a line each; a scan straight through would compare about n * m =
    // 20,000,000 lines per pass
    expect(budget.used).toBeLessThan(40 * (n + m));
  });

  it('a chunk of common lines that nearly matches everywhere: linear too, and the answers are right', () => {
    const n = 30_000;
    // `}` on every line, but every 50th line is different: 100 braces in a row are nowhere
    const lines = Array.from({ length: n }, (_, i) => (i % 50 === 49 ? `  // ${i}` : '}'));
    const { search, budget } = searchOf(lines);
    const braces = Array.from({ length: 100 }, () => '}');
    expect(seekSequence(search, braces, 0, false)).toBeUndefined();
    expect(budget.used).toBeLessThan(40 * (n + 100));
    const fortyNine = Array.from({ length: 49 }, () => '}');
    const used = budget.used;
    expect(seekSequence(search, fortyNine, 1, false)).toEqual({ index: 50, pass: 'exact', others: [100, 150, 200, 250, 300] });
    expect(findMatchesOfPass(search, fortyNine, 'exact', 51, n, 3)).toEqual([100, 150, 200]);
    expect(budget.used - used).toBeLessThan(10 * (n + 49));
  });

  it('overlapping matches in runs of one line are all found, in order', () => {
    // runs of 25 braces between other lines; 22 braces match 4 times in each run
    const lines = Array.from({ length: 26 * 8 }, (_, i) => (i % 26 === 25 ? `x${i}` : '}'));
    const { search } = searchOf(lines);
    for (const pass of MATCH_PASSES) buildLineIndex(search, pass);
    const pattern = Array.from({ length: 22 }, () => '}');
    const expected = naiveMatches(lines, pattern, 'exact', 0, lines.length, 24);
    expect(expected.slice(0, 6)).toEqual([0, 1, 2, 3, 26, 27]);
    expect(findMatchesOfPass(search, pattern, 'exact', 0, lines.length, 24)).toEqual(expected);
  });

  it('gives the straightforward search results on random files with repeated lines', () => {
    const alphabet = ['a', 'b', ' a', 'a ', '', '\u2013', '-', 'ab', 'a\u00a0b', 'a b', '}'];
    // mostly braces, so that patterns are often made of lines the file repeats everywhere
    const line = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('}', '} ') }, { weight: 2, arbitrary: fc.constantFrom(...alphabet) });
    // runs of one line, as in real files (closing braces, blank lines) and the worst cases
    const file = fc
      .array(fc.tuple(line, fc.integer({ min: 1, max: 30 })), { maxLength: 25 })
      .map((runs) => runs.flatMap(([l, k]) => Array.from({ length: k }, () => l)));
    fc.assert(
      fc.property(
        file,
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.nat(60),
        fc.boolean(),
        fc.nat(6),
        fc.boolean(),
        (lines, pattern, start, eof, max, indexed) => {
          const { search } = searchOf(lines);
          // small files seldom grow an index by themselves: half of the runs start with one
          if (indexed) for (const pass of MATCH_PASSES) buildLineIndex(search, pass);
          // several searches on one file, as a hunk makes them: the file's indexes build up meanwhile
          for (let round = 0; round < 3; round++) {
            expect(seekSequence(search, pattern, start, eof, max)).toEqual(naiveSeek(lines, pattern, start, eof, max));
            for (const pass of MATCH_PASSES) {
              expect(findMatchesOfPass(search, pattern, pass, start, start + 90, max)).toEqual(naiveMatches(lines, pattern, pass, start, start + 90, max));
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('the match-work limit', () => {
  const file = Array.from({ length: 20_000 }, () => 'x').join('\n') + '\n';
  const patch = ['*** Begin Patch', '*** Update File: big.txt', '@@', ...Array.from({ length: 500 }, () => ' x'), '-y', '+z', '*** End Patch'].join('\n');

  it('is limit_exceeded naming the limit and the file when the search needs more', () => {
    let error: unknown;
    try {
      applyPatch(patch, { 'big.txt': file }, { limits: { matchWork: 5_000 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PatchtxError);
    const e = error as PatchtxError;
    expect(e.kind).toBe('limit_exceeded');
    expect(e.data).toMatchObject({ limit: 'match-work', max: 5_000, path: 'big.txt' });
    expect(e.message).toContain('big.txt');
  });

  it('by default the same search is just done', () => {
    expect(() => applyPatch(patch, { 'big.txt': file })).toThrow(/Failed to find expected lines in big.txt/);
  });
});
