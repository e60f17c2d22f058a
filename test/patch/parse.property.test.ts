// parsePatch must never fail with anything but a PatchtxError, whatever it is fed, and what it
// accepts must be self-consistent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { parsePatch } from '../../src/patch/parse.js';
import type { Patch } from '../../src/patch/types.js';

function check(text: string): Patch | undefined {
  try {
    return parsePatch(text);
  } catch (e) {
    if (!(e instanceof PatchtxError)) throw e;
    expect(['parse_error', 'path_rejected']).toContain(e.kind);
    if (e.data.line !== undefined) {
      expect(Number.isInteger(e.data.line) && e.data.line >= 1).toBe(true);
      expect(e.data.line).toBeLessThanOrEqual(text.split('\n').length);
    }
    expect(e.message).toMatch(/^Invalid patch( hunk on line \d+)?: /);
    return undefined;
  }
}

function invariants(p: Patch): void {
  expect(p.hunks.length).toBeGreaterThan(0);
  const lineCount = p.text.split('\n').length;
  for (const h of p.hunks) {
    expect(h.line).toBeGreaterThan(1);
    expect(h.line).toBeLessThan(lineCount);
    if (h.kind === 'add') expect(h.contents === '' || h.contents.endsWith('\n')).toBe(true);
    if (h.kind !== 'update') continue;
    expect(h.chunks.length > 0 || h.moveTo !== null).toBe(true);
    for (const c of h.chunks) {
      expect(c.lines.length).toBeGreaterThan(0);
      expect(c.line).toBeGreaterThan(h.line);
      expect(c.oldLines).toEqual(c.lines.filter((l) => l.op !== '+').map((l) => l.text));
      expect(c.newLines).toEqual(c.lines.filter((l) => l.op !== '-').map((l) => l.text));
    }
  }
  // The canonical text is a patch too, and says the same thing.
  expect(parsePatch(p.text)).toEqual(p);
}

const fragment = fc.oneof(
  fc.constantFrom(
    '*** Begin Patch',
    '*** End Patch',
    ' *** End Patch ',
    '*** Add File: a.txt',
    '*** Add File: ',
    '*** Delete File: b/c.txt',
    '*** Update File: d.txt',
    '  *** Update File: e.txt  ',
    '*** Move to: f/g.txt',
    '*** Move to: ../up',
    '*** Delete File: .git/config',
    '*** Environment ID: env',
    '*** Environment ID:',
    '*** End of File',
    '@@',
    '@@ ',
    '@@ def f():',
    '@@ -1,2 +1,3 @@',
    '@@@',
    ' context',
    '-removed',
    '+added',
    '+',
    '-',
    ' ',
    '',
    '\t',
    '\ttabbed',
    'plain',
    '\u0085',
    '\ufeff',
    '<<EOF',
    "<<'EOF'",
    'EOF',
    "apply_patch <<'EOF'",
    "cd sub && apply_patch <<'EOF'",
    '```',
    '```diff',
    '~~~',
    '\\ No newline at end of file',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.tuple(fc.constantFrom(' ', '-', '+', '*** Add File: ', '*** Update File: ', '@@ '), fc.string({ maxLength: 8 })).map(([a, b]) => a + b),
);

describe('parsePatch never throws anything but a PatchtxError', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const p = check(s);
        if (p) invariants(p);
      }),
      { numRuns: 1000 },
    );
  });

  it('on arbitrary strings inside a Begin/End envelope', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const p = check(`*** Begin Patch\n${s}\n*** End Patch`);
        if (p) invariants(p);
      }),
      { numRuns: 1000 },
    );
  });

  it('on lines built from marker-ish fragments, LF or CRLF', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), fc.boolean(), fc.constantFrom('\n', '\r\n'), (body, envelope, eol) => {
        const lines = envelope ? ['*** Begin Patch', ...body, '*** End Patch'] : body;
        const p = check(lines.join(eol));
        if (p) invariants(p);
      }),
      { numRuns: 3000 },
    );
  });

  it('on grammatical patches with a few lines of noise spliced in', () => {
    const path = fc.constantFrom('a.txt', 'dir/b.py', 'c d.md');
    const text = fc.string({ maxLength: 6 });
    const diffLine = fc.oneof(
      fc.tuple(fc.constantFrom(' ', '-', '+'), text).map(([op, t]) => op + t),
      fc.constant(''),
    );
    const chunk = fc
      .tuple(
        fc.array(
          fc.oneof(
            fc.constant('@@'),
            text.map((t) => `@@ ${t}`),
          ),
          { maxLength: 2 },
        ),
        fc.array(diffLine, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
      )
      .map(([headers, lines, eof]) => [...(headers.length === 0 ? ['@@'] : headers), ...lines, ...(eof ? ['*** End of File'] : [])]);
    const hunk = fc.oneof(
      fc
        .tuple(
          path,
          fc.array(
            text.map((t) => `+${t}`),
            { maxLength: 4 },
          ),
        )
        .map(([p, ls]) => [`*** Add File: ${p}`, ...ls]),
      path.map((p) => [`*** Delete File: ${p}`]),
      fc
        .tuple(path, fc.option(path), fc.array(chunk, { minLength: 1, maxLength: 3 }))
        .map(([p, to, chunks]) => [`*** Update File: ${p}`, ...(to === null ? [] : [`*** Move to: ${to}`]), ...chunks.flat()]),
    );
    let parsed = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(hunk, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fragment), { maxLength: 2 }),
        fc.constantFrom('\n', '\r\n'),
        (hunks, noise, eol) => {
          const lines = ['*** Begin Patch', ...hunks.flat(), '*** End Patch'];
          for (const [at, line] of noise) lines.splice(at % (lines.length + 1), 0, line);
          runs++;
          const p = check(lines.join(eol));
          if (p) {
            parsed++;
            invariants(p);
          }
        },
      ),
      { numRuns: 3000 },
    );
    // The generator must reach the success paths too, or the invariants test nothing.
    expect(parsed / runs).toBeGreaterThan(0.3);
  });
});
