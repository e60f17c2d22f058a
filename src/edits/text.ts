// What the content edits share: a file's text (an edit rewrites UTF-8 text files only), its line
// ending, and new text given the file's line endings, so an edit of a CRLF file stays CRLF.
import { notTextError } from '../text/decode.js';
import type { FileContent } from '../engine/content.js';

/** The content's text, or `binary_or_encoding` for a file that is not UTF-8 text. */
export function textOf(content: FileContent, path: string): string {
  const text = content.text();
  if (text === undefined) throw notTextError(path, content.whyNotText());
  return text;
}

/** The file's line ending: that of its first line (`\n` for a file without one). */
export function lineEndingOf(text: string): '\n' | '\r\n' {
  const nl = text.indexOf('\n');
  return nl > 0 && text.charCodeAt(nl - 1) === 0x0d ? '\r\n' : '\n';
}

/** `s` with each `\n` not already after a `\r` written as `eol`. */
export function withLineEnding(s: string, eol: '\n' | '\r\n'): string {
  return eol === '\n' ? s : s.replace(/\r?\n/g, '\r\n');
}

/** 1-based line number of the character at `offset`. */
export function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The file's lines without their terminators (a final empty piece after the last newline left out). */
export function plainLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
