import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { DEFAULT_LIMITS, parseLimitSpec } from '../../src/patch/limits.js';
import { parsePatch } from '../../src/patch/parse.js';

function thrown(fn: () => unknown): PatchtxError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error('no error');
}

const adds = (n: number): string => ['*** Begin Patch', ...Array.from({ length: n }, (_, i) => `*** Add File: f${i}.txt\n+${i}`), '*** End Patch'].join('\n');

describe('patch limits in the parser', () => {
  it('defaults: 64 MiB of patch, 1 MiB a line, 10,000 operations', () => {
    expect(DEFAULT_LIMITS).toMatchObject({ patchBytes: 64 * 1024 * 1024, lineBytes: 1024 * 1024, operations: 10_000 });
  });

  it('operations: at the limit parses, one more is limit_exceeded naming the limit and where', () => {
    expect(parsePatch(adds(10_000)).hunks).toHaveLength(10_000);
    const e = thrown(() => parsePatch(adds(10_001)));
    expect(e.kind).toBe('limit_exceeded');
    expect(e.data).toMatchObject({ limit: 'operations', max: 10_000, line: 20_002 });
    expect(e.message).toMatch(/more than 10,000 operations/);
    expect(e.message).toMatch(/operations/);
    expect(parsePatch(adds(4), { operations: 4 }).hunks).toHaveLength(4);
    expect(thrown(() => parsePatch(adds(4), { operations: 3 })).data).toMatchObject({ limit: 'operations', max: 3 });
  });

  it('line length counts UTF-8 bytes, not characters', () => {
    // the other lines are 15 bytes at most; '+' and 8 two-byte characters: 9 characters, 17 bytes
    const patch = `*** Begin Patch\n*** Add File: a\n+${'\u00e9'.repeat(8)}\r\n*** End Patch\n`;
    expect(parsePatch(patch, { lineBytes: 17 }).hunks).toHaveLength(1);
    const e = thrown(() => parsePatch(patch, { lineBytes: 16 }));
    expect(e.kind).toBe('limit_exceeded');
    expect(e.data).toMatchObject({ limit: 'line-bytes', max: 16, value: 17, line: 3 });
    expect(e.message).toMatch(/line 3 of the patch is longer than 16 bytes: 17 bytes/);
  });

  it('the whole text counts UTF-8 bytes', () => {
    const text = `*** Begin Patch\n*** Add File: a.txt\n+\u20ac\n*** End Patch\n`;
    const size = Buffer.byteLength(text);
    expect(parsePatch(text, { patchBytes: size }).hunks).toHaveLength(1);
    const e = thrown(() => parsePatch(text, { patchBytes: size - 1 }));
    expect(e.kind).toBe('limit_exceeded');
    expect(e.data).toMatchObject({ limit: 'patch-bytes', max: size - 1, value: size });
  });
});

describe('parseLimitSpec', () => {
  it('reads names with sizes (K, M, G are powers of 1024) and plain counts', () => {
    expect(parseLimitSpec('patch-bytes=128M,line-bytes=4k, operations=20000', '--limits')).toEqual({
      patchBytes: 128 * 1024 * 1024,
      lineBytes: 4 * 1024,
      operations: 20_000,
    });
    expect(parseLimitSpec('match-work=1G', '--limits')).toEqual({ matchWork: 1024 ** 3 });
    expect(parseLimitSpec('', '--limits')).toEqual({});
  });

  it('refuses unknown names and values that are not positive whole numbers (usage)', () => {
    for (const bad of ['patch-size=1', 'operations', 'operations=0', 'operations=-1', 'operations=1.5', 'line-bytes=1T', 'operations=x']) {
      const e = thrown(() => parseLimitSpec(bad, 'PATCHTX_LIMITS'));
      expect(e.kind, bad).toBe('usage');
      expect(e.message).toContain('PATCHTX_LIMITS');
    }
  });
});
