// Bytes -> text for files the patch reads: a file is text when it is valid UTF-8 with no NUL
// byte. The matcher, the rebuild and the engine's diff all work on the text decoded here.
import { Buffer, isAscii } from 'node:buffer';
import { PatchtxError } from '../errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of `bytes` when they are UTF-8 text (valid UTF-8, no NUL byte), else undefined.
 * A BOM is kept as the first character.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  let text: string;
  if (isAscii(bytes)) {
    // Pure ASCII (most source files): a single-byte decode gives the same string, much faster.
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  } else {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  return text.indexOf('\0') === -1 ? text : undefined;
}

/** `binary_or_encoding` for an Update of a file that is not UTF-8 text. */
export function notTextError(path: string, reason: string): PatchtxError {
  return new PatchtxError(
    'binary_or_encoding',
    `Failed to read file to update ${path}: ${reason}; patchtx updates UTF-8 text files only ` + `(replace such a file with Delete File + Add File)`,
    { path },
  );
}
