import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { createPatchFromTexts } from '../../src/patch/create.js';
import { parsePatch } from '../../src/patch/parse.js';
import { applyForTest, linesOf } from './v4a-reference-apply.js';

function roundTrip(before: string | null, after: string | null, path = 'f.txt'): string | undefined {
  const text = createPatchFromTexts([{ path, before, after }]);
  const start = new Map<string, string>();
  if (before !== null) start.set(path, before);
  return applyForTest(start, parsePatch(text)).get(path);
}

const terminated = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
/** What an Update can deliver: every line terminated, line endings LF. */
const normalized = (t: string) =>
  linesOf(t)
    .map((l) => `${l}\n`)
    .join('');

describe('createPatchFromTexts', () => {
  it('writes Add, Delete and Update hunks', () => {
    const text = createPatchFromTexts([
      { path: 'new.txt', before: null, after: 'a\nb\n' },
      { path: 'old.txt', before: 'x\n', after: null },
      { path: 'mod.txt', before: '1\n2\n3\n4\n5\n6\n7\n8\n9\n', after: '1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n' },
    ]);
    expect(text).toBe(
      [
        '*** Begin Patch',
        '*** Add File: new.txt',
        '+a',
        '+b',
        '*** Delete File: old.txt',
        '*** Update File: mod.txt',
        '@@',
        ' 2',
        ' 3',
        ' 4',
        '-5',
        '+FIVE',
        ' 6',
        ' 7',
        ' 8',
        '*** End Patch',
        '',
      ].join('\n'),
    );
  });

  it('pins a chunk that reaches the end of the file', () => {
    const text = createPatchFromTexts([{ path: 'a', before: '1\n2\n3\n', after: '1\n2\nthree\n' }]);
    expect(text).toContain('@@\n 1\n 2\n-3\n+three\n*** End of File\n');
  });

  it('merges nearby changes and splits distant ones', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join('');
    const after = before.replace('line 3\n', 'L3\n').replace('line 8\n', 'L8\n').replace('line 25\n', 'L25\n');
    const text = createPatchFromTexts([{ path: 'a', before, after }]);
    expect(text.match(/^@@$/gm)).toHaveLength(2);
    expect(roundTrip(before, after, 'a')).toBe(after);
  });

  it('Add with zero lines, and Add keeps CRLF exactly', () => {
    expect(createPatchFromTexts([{ path: 'e', before: null, after: '' }])).toBe('*** Begin Patch\n*** Add File: e\n*** End Patch\n');
    expect(roundTrip(null, 'a\r\nb\r\n\r\n')).toBe('a\r\nb\r\n\r\n');
    expect(roundTrip(null, 'x\r\r\n')).toBe('x\r\r\n');
  });

  it('adds the missing final newline (the documented limitation)', () => {
    expect(roundTrip(null, 'no newline')).toBe('no newline\n');
    expect(roundTrip('a\nb\n', 'a\nc')).toBe('a\nc\n');
  });

  it('a change that only adds the final newline is still expressed', () => {
    const text = createPatchFromTexts([{ path: 'a', before: '1\n2\n3\n4\n5', after: '1\n2\n3\n4\n5\n' }]);
    expect(text).toBe('*** Begin Patch\n*** Update File: a\n@@\n 3\n 4\n 5\n*** End of File\n*** End Patch\n');
    expect(roundTrip('1\n2\n3\n4\n5', '1\n2\n3\n4\n5\n', 'a')).toBe('1\n2\n3\n4\n5\n');
  });

  it('throws no_changes when nothing expressible differs', () => {
    for (const [before, after] of [
      ['a\n', 'a\n'],
      ['a\n', 'a'],
      ['a\r\nb\r\n', 'a\nb\n'],
    ] as const) {
      const e = (() => {
        try {
          createPatchFromTexts([{ path: 'a', before, after }]);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(e).toBeInstanceOf(PatchtxError);
      expect((e as PatchtxError).kind).toBe('no_changes');
    }
    expect(() => createPatchFromTexts([])).toThrow(/No files were modified/);
    expect(() => createPatchFromTexts([{ path: 'x', before: null, after: null }])).toThrow(PatchtxError);
  });

  it('rejects paths a patch cannot name', () => {
    expect(() => createPatchFromTexts([{ path: '../x', before: null, after: 'a' }])).toThrow(/'\.\.' segment/);
    expect(() => createPatchFromTexts([{ path: 'x ', before: null, after: 'a' }])).toThrow(/ends with whitespace/);
  });

  it('keeps a line whose text ends in \\r through the patch', () => {
    const p = parsePatch(createPatchFromTexts([{ path: 'a', before: 'x\r\r\ny\n', after: 'x\r\r\nz\n' }]));
    const u = p.hunks[0]!;
    expect(u.kind === 'update' && u.chunks[0]!.oldLines).toEqual(['x\r', 'y']);
  });

  it('lines that look like markers stay inside the chunk', () => {
    const before = '*** End Patch\n@@ x\n*** Add File: y\n\n';
    const after = '*** End Patch\n@@ x\n*** Delete File: y\n\n';
    expect(roundTrip(before, after)).toBe(after);
    expect(roundTrip(null, before)).toBe(before);
  });

  it('grows the context until the chunk is unambiguous', () => {
    // Period-2 text: any window of 3+3 context lines occurs again two lines later.
    const before = `head\n${'a\nb\n'.repeat(10)}${'t\n'.repeat(3)}${'u\n'.repeat(8)}`;
    const lines = before.split('\n');
    lines[10] = 'B';
    const after = lines.join('\n');
    expect(roundTrip(before, after)).toBe(after);
    const text = createPatchFromTexts([{ path: 'f', before, after }]);
    const chunk = text.split('\n').filter((l) => /^[ +-]/.test(l));
    expect(chunk.length).toBeGreaterThan(8);
    expect(text).not.toContain('*** End of File');
  });

  it('handles a file of identical lines quickly', () => {
    const n = 20000;
    const before = 'same\n'.repeat(n);
    const lines = before.split('\n');
    lines[n / 2] = 'changed';
    const after = lines.join('\n');
    const t0 = performance.now();
    expect(roundTrip(before, after)).toBe(after);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('property: a patch generated from any two texts applies back', () => {
    // A tiny alphabet makes repeated lines (and so ambiguous context) common.
    const line = fc.constantFrom('', 'a', 'b', 'c', ' a', '*** End Patch', '@@', '+', '-', 'x\ty');
    const text = fc.tuple(fc.array(line, { maxLength: 40 }), fc.boolean()).map(([ls, nl]) => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : '')));
    fc.assert(
      fc.property(text, text, (before, after) => {
        let patch: string;
        try {
          patch = createPatchFromTexts([{ path: 'f', before, after }]);
        } catch (e) {
          // Only differences V4A cannot express: the final newline removed, or none at all.
          expect((e as PatchtxError).kind).toBe('no_changes');
          expect(linesOf(before)).toEqual(linesOf(after));
          expect(terminated(before) === before || terminated(after) !== after).toBe(true);
          return;
        }
        expect(roundTrip(before, after, 'f')).toBe(normalized(after));
        expect(patch.endsWith('*** End Patch\n')).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('property: several files in one patch, Add/Delete/Update mixed', () => {
    const content = fc.option(fc.array(fc.constantFrom('p', 'q', 'r\r', ''), { maxLength: 12 }).map((ls) => ls.map((l) => `${l}\n`).join('')));
    fc.assert(
      fc.property(fc.array(fc.tuple(content, content), { minLength: 1, maxLength: 4 }), (pairs) => {
        const files = pairs.map(([before, after], i) => ({ path: `d${i}/f.txt`, before, after }));
        let text: string;
        try {
          text = createPatchFromTexts(files);
        } catch (e) {
          expect((e as PatchtxError).kind).toBe('no_changes');
          return;
        }
        const start = new Map<string, string>();
        for (const f of files) if (f.before !== null) start.set(f.path, f.before);
        const end = applyForTest(start, parsePatch(text));
        for (const f of files) {
          const got = end.get(f.path);
          if (f.after === null) expect(got).toBeUndefined();
          else if (f.before === null) expect(got).toBe(f.after);
          else expect(normalized(got ?? '')).toBe(normalized(f.after));
        }
      }),
      { numRuns: 500 },
    );
  });
});
