// A file's content as the engine carries it: bytes, text, or both, each made from the other
// only when someone asks. Files read from disk or git arrive as bytes; the library face is
// handed strings and wants strings back. Converting a large file costs more than patching it
// (a fresh multi-megabyte buffer per conversion), so content stays in the form it came in: an
// Update of bytes produces bytes (untouched stretches copied), an Update of text produces text.
import { Buffer, isUtf8 } from 'node:buffer';
import { decodeText } from '../text/decode.js';

const encoder = new TextEncoder();

export class FileContent {
  private bytesValue: Uint8Array | undefined;
  /** the content as a string (given, or decoded from the bytes) */
  private textValue: string | undefined;
  /** whether the content is text (UTF-8, no NUL); undefined until someone asks */
  private isText: boolean | undefined;
  /** the form the content was made in */
  readonly origin: 'bytes' | 'text';

  private constructor(bytes: Uint8Array | undefined, text: string | undefined) {
    this.bytesValue = bytes;
    this.textValue = text;
    this.origin = bytes !== undefined ? 'bytes' : 'text';
  }

  static ofBytes(bytes: Uint8Array): FileContent {
    return new FileContent(bytes, undefined);
  }

  /** `checked`: the caller knows the text has no NUL (skips a scan of a large string). */
  static ofText(text: string, checked = false): FileContent {
    const content = new FileContent(undefined, text);
    if (checked) content.isText = true;
    return content;
  }

  /** The UTF-8 bytes (encoded on first use for text content). */
  bytes(): Uint8Array {
    return (this.bytesValue ??= encoder.encode(this.textValue!));
  }

  /** The text when the content is text (valid UTF-8, no NUL), else undefined. */
  text(): string | undefined {
    if (this.isText === undefined) {
      if (this.textValue === undefined) {
        // decodeText gives nothing for bytes that are not text, a NUL included
        this.textValue = decodeText(this.bytesValue!);
        this.isText = this.textValue !== undefined;
      } else {
        this.isText = this.textValue.indexOf('\0') === -1;
      }
    }
    return this.isText ? this.textValue : undefined;
  }

  /** Why `text()` is undefined: a NUL byte, or bytes that are not UTF-8. */
  whyNotText(): string {
    return this.origin === 'text' || isUtf8(this.bytes()) ? 'it contains NUL bytes (a binary file)' : 'stream did not contain valid UTF-8';
  }

  /** Same bytes (compared as strings when both sides are strings: no encoding needed). */
  equals(other: FileContent): boolean {
    if (this === other) return true;
    if (this.origin === 'text' && other.origin === 'text') return this.textValue === other.textValue;
    return sameBytes(this.bytes(), other.bytes());
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  // memcmp, not a JS loop: files can be large
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** FileLookup, with contents instead of bytes (the library face hands strings in). */
export interface ContentLookup {
  read(path: string): FileContent | undefined;
  isDirectory(path: string): boolean;
}
