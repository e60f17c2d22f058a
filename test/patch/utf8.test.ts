import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { decodePatchBytes } from '../../src/patch/utf8.js';

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

function refusal(input: Uint8Array): PatchtxError {
  try {
    decodePatchBytes(input);
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error('decoded without an error');
}

describe('decodePatchBytes', () => {
  it('decodes UTF-8 text as it is: a BOM, U+FFFD written out, four-byte characters', () => {
    const text = '\ufeff*** Begin Patch\n+caf\u00e9 \ufffd \u{1f600}\r\n';
    expect(decodePatchBytes(Buffer.from(text, 'utf8'))).toBe(text);
    expect(decodePatchBytes(new Uint8Array(0))).toBe('');
  });

  it('refuses a byte that is not UTF-8, with its 0-based offset and 1-based line', () => {
    const e = refusal(bytes('*** Begin Patch\n+ok\n+caf', [0xe9], '\n*** End Patch\n'));
    expect(e.kind).toBe('parse_error');
    expect(e.data).toMatchObject({ offset: 24, line: 3 });
    expect(e.message).toMatch(/byte offset 24 \(line 3\)/);
    expect(e.message).toMatch(/0xe9/);
    expect(e.message).not.toContain('\ufffd');
  });

  it('points at the start of each kind of bad sequence', () => {
    const cases: Array<[number[], number]> = [
      [[0x80], 0], // a continuation byte alone
      [[0xc0, 0xaf], 0], // overlong
      [[0xe0, 0x80, 0xaf], 0], // overlong, three bytes
      [[0xed, 0xa0, 0x80], 0], // a surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // beyond U+10FFFF
      [[0xf5], 0],
      [[0xff], 0],
      [[0xe2, 0x82], 0], // cut short at the end
      [[0xe2, 0x82, 0x41], 0], // cut short by an ASCII byte
    ];
    for (const [bad, at] of cases) {
      const e = refusal(bytes('ab\n', bad, 'z'));
      expect(e.data, JSON.stringify(bad)).toMatchObject({ offset: 3 + at, line: 2 });
    }
  });

  it('agrees with the strict WHATWG decoder on random bytes', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (input) => {
        let expected: string | undefined;
        try {
          expected = strict.decode(input);
        } catch {
          expected = undefined;
        }
        if (expected !== undefined) {
          expect(decodePatchBytes(input)).toBe(expected);
        } else {
          const e = refusal(input);
          const offset = e.data.offset as number;
          // the offset ends the longest prefix that is valid UTF-8
          expect(() => strict.decode(input.subarray(0, offset))).not.toThrow();
          for (let end = offset + 1; end <= input.length; end++) {
            expect(() => strict.decode(input.subarray(0, end))).toThrow();
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
