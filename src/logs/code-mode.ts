// Codex's code mode runs a JavaScript snippet (an `exec` tool call) in which the model calls its
// tools as `await tools.apply_patch(PATCH)`. The patch is then a string literal in that source:
// a double- or single-quoted string, or a template literal without substitutions. Those are read
// here, by a small scanner of exactly those three literal forms; a call whose argument is not a
// literal (a variable, a template with `${…}`) cannot be replayed from the log and is skipped
// by the caller, with a note.

const CALL = /\btools\s*\.\s*apply_patch\s*\(\s*/g;

export interface CodeModePatch {
  /** the patch text, or null when the argument is not a plain literal */
  patch: string | null;
}

/** Every `tools.apply_patch(...)` call in `source`, in order. */
export function patchesOfCodeMode(source: string): CodeModePatch[] {
  const out: CodeModePatch[] = [];
  for (const m of source.matchAll(CALL)) {
    const start = m.index! + m[0].length;
    out.push({ patch: readLiteral(source, start) });
  }
  return out;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** The value of the string literal that starts at `at`, or null. */
function readLiteral(src: string, at: number): string | null {
  const quote = src[at];
  if (quote !== '"' && quote !== "'" && quote !== '`') return null;
  let out = '';
  for (let i = at + 1; i < src.length; i++) {
    const c = src[i]!;
    if (c === quote) return out;
    if (quote === '`' && c === '$' && src[i + 1] === '{') return null;
    if (quote !== '`' && c === '\n') return null;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = src[++i];
    if (e === undefined) return null;
    if (e === '\n') continue; // a line continuation
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (e === 'x' || e === 'u') {
      const code = unicodeEscape(src, i);
      if (code === null) return null;
      out += String.fromCodePoint(code.value);
      i = code.end;
    } else out += e;
  }
  return null;
}

/** `\xHH`, `\uHHHH` or `\u{H…}` with `at` on the x or u; returns the code point and the last index used. */
function unicodeEscape(src: string, at: number): { value: number; end: number } | null {
  if (src[at] === 'x') {
    const hex = src.slice(at + 1, at + 3);
    return /^[0-9a-fA-F]{2}$/.test(hex) ? { value: parseInt(hex, 16), end: at + 2 } : null;
  }
  if (src[at + 1] === '{') {
    const close = src.indexOf('}', at + 2);
    const hex = close < 0 ? '' : src.slice(at + 2, close);
    return /^[0-9a-fA-F]{1,6}$/.test(hex) && parseInt(hex, 16) <= 0x10ffff ? { value: parseInt(hex, 16), end: close } : null;
  }
  const hex = src.slice(at + 1, at + 5);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? { value: parseInt(hex, 16), end: at + 4 } : null;
}
