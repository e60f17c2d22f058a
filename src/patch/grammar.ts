// The V4A vocabulary: marker strings, and the whitespace notion the reference parser uses.
//
// The reference trims with Rust's `char::is_whitespace`, which is not JavaScript's `trim()`:
// JS also strips U+FEFF (a BOM is not whitespace to Rust) and does not strip U+0085 (NEL is
// whitespace to Rust). Patches that differ only there must parse the same way as in Codex, so
// every trim in patch handling goes through the helpers below. The chunk matcher calls them for
// every file line it compares, hence plain charCode loops and no allocation when nothing is cut.

export const BEGIN_PATCH = '*** Begin Patch';
export const END_PATCH = '*** End Patch';
/** optional preamble line right after Begin (multi-environment Codex); matched without its space */
export const ENVIRONMENT_ID = '*** Environment ID:';
// The three hunk headers and Move-to carry a trailing space: the path starts right after it.
export const ADD_FILE = '*** Add File: ';
export const DELETE_FILE = '*** Delete File: ';
export const UPDATE_FILE = '*** Update File: ';
export const MOVE_TO = '*** Move to: ';
export const END_OF_FILE = '*** End of File';
/** a chunk header: alone, or followed by a space and a line to find first */
export const CHUNK_MARKER = '@@';
export const CHUNK_CONTEXT_PREFIX = '@@ ';

export const HUNK_HEADERS = [ADD_FILE, DELETE_FILE, UPDATE_FILE] as const;

/** Rust `char::is_whitespace` for one UTF-16 code unit (every such char lives in the BMP). */
export function isRustWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

export function trimStartRust(s: string): string {
  let start = 0;
  const end = s.length;
  while (start < end && isRustWhitespace(s.charCodeAt(start))) start++;
  return start === 0 ? s : s.slice(start);
}

export function trimEndRust(s: string): string {
  let end = s.length;
  while (end > 0 && isRustWhitespace(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

export function trimRust(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isRustWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isRustWhitespace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** True when the string is empty or made of Rust whitespace only. */
export function isBlankRust(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isRustWhitespace(s.charCodeAt(i))) return false;
  return true;
}

/**
 * Rust `str::lines()`: split on `\n` and drop one `\r` before it. A lone `\r` is not a line
 * break, and a final `\n` does not produce an empty last line.
 */
export function splitLinesRust(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.charCodeAt(p.length - 1) === 0x0d) parts[i] = p.slice(0, -1);
  }
  return parts;
}

/** The hunk header the (already trimmed) line starts with, if any. */
export function hunkHeaderOf(line: string): (typeof HUNK_HEADERS)[number] | undefined {
  // every header starts with '*': the chunk markers and context lines the parser asks about do not
  if (line.charCodeAt(0) !== 0x2a) return undefined;
  for (let i = 0; i < HUNK_HEADERS.length; i++) if (line.startsWith(HUNK_HEADERS[i]!)) return HUNK_HEADERS[i];
  return undefined;
}
