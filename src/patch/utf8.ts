// Patch bytes to patch text. A patch is UTF-8 text: bytes that are not (a Latin-1 file, a binary
// pasted in) are refused with where they are, never decoded with replacement characters, which
// would be committed as U+FFFD in place of what the author had. A BOM is kept, as the bytes say.
import { Buffer, isUtf8 } from 'node:buffer';
import { PatchtxError } from '../errors.js';

/** The text of `bytes`; throws `parse_error` (data: 0-based `offset`, 1-based `line`) if not UTF-8. */
export function decodePatchBytes(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  const offset = firstInvalidOffset(bytes);
  let line = 1;
  for (let i = buffer.indexOf(0x0a); i !== -1 && i < offset; i = buffer.indexOf(0x0a, i + 1)) line++;
  return invalid(offset, line, `0x${bytes[offset]!.toString(16).padStart(2, '0')}`);
}

function invalid(offset: number, line: number, byte: string): never {
  throw new PatchtxError(
    'parse_error',
    `Invalid patch: not UTF-8 text at byte offset ${offset} (line ${line}): byte ${byte}. ` +
      'A patch must be UTF-8; re-encode it (the files it changes may be in any encoding git stores)',
    { offset, line },
  );
}

/**
 * Where the first byte sequence that is not UTF-8 starts (bytes.length when there is none): the
 * well-formed sequences of Unicode's table 3-7, so overlong forms, surrogates and code points past
 * U+10FFFF are refused, as a strict decoder refuses them.
 */
export function firstInvalidOffset(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let size: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) size = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      size = 3;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      size = 4;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + size > n) return i;
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k < size; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += size;
  }
  return n;
}
