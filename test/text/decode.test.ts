import { describe, expect, it } from 'vitest';
import { decodeText, notTextError } from '../../src/text/decode.js';

describe('decodeText', () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('decodes ASCII and UTF-8, keeping a BOM', () => {
    expect(decodeText(enc('plain\n'))).toBe('plain\n');
    expect(decodeText(enc('\ufeffcaf\u00e9 \u2705\n'))).toBe('\ufeffcaf\u00e9 \u2705\n');
    expect(decodeText(new Uint8Array([]))).toBe('');
  });

  it('refuses invalid UTF-8 and NUL bytes', () => {
    expect(decodeText(new Uint8Array([0x61, 0xff, 0x0a]))).toBeUndefined();
    expect(decodeText(new Uint8Array([0x61, 0x00, 0x62]))).toBeUndefined();
    expect(decodeText(new Uint8Array([0xc3, 0xa9, 0]))).toBeUndefined();
  });

  it('notTextError names the path and the reason', () => {
    const e = notTextError('img/logo.png', 'stream did not contain valid UTF-8');
    expect(e.kind).toBe('binary_or_encoding');
    expect(e.message).toMatch(/^Failed to read file to update img\/logo\.png: stream did not contain valid UTF-8; /);
    expect(e.data).toEqual({ path: 'img/logo.png' });
  });
});
