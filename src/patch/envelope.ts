// From raw text to the lines between (and including) `*** Begin Patch` and `*** End Patch`.
//
// The reference trims the whole text, splits it into lines and insists that the first and last
// lines are the Begin/End markers; its only leniency is a bare `<<EOF` heredoc wrapper. A UTF-8
// BOM as the text's first character is dropped (editors add it; it is not Rust whitespace). Models
// also hand over the patch inside the shell command they would have run (`apply_patch <<'EOF'`,
// `cd dir && apply_patch <<'EOF'`) or inside a Markdown code fence, sometimes both; those
// wrappers are peeled here, one layer at a time. Anything else around the markers is an error:
// guessing where a patch starts in prose is how the wrong text gets applied.
import { PatchtxError } from '../errors.js';
import { BEGIN_PATCH, END_PATCH, isBlankRust, splitLinesRust, trimEndRust, trimRust } from './grammar.js';

export interface Envelope {
  /** the accepted lines: the first is `*** Begin Patch`, the last `*** End Patch` (both maybe padded) */
  lines: string[];
  /** the directory of a `cd DIR && apply_patch <<'EOF'` wrapper, as written */
  cwd?: string;
}

export const FIRST_LINE_MESSAGE = `The first line of the patch must be '${BEGIN_PATCH}'`;
export const LAST_LINE_MESSAGE = `The last line of the patch must be '${END_PATCH}'`;

/** Throws `parse_error` (message `Invalid patch: …`) when no patch envelope can be found. */
export function readEnvelope(text: string): Envelope {
  // A BOM in front is what an editor saving the patch as UTF-8 adds: noise, like the padding.
  const lines = splitLinesRust(trimRust(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
  const found = unwrap({ lines, offset: 0 }, 0);
  if (found instanceof PatchtxError) throw found;
  return found;
}

/** A run of lines of the trimmed input; `offset` = index of lines[0] there, for error line numbers. */
interface Layer {
  lines: string[];
  offset: number;
}

// Three wrappers deep is already fence + heredoc + a stray extra layer; more is not a patch.
const MAX_WRAPPERS = 3;

function unwrap(layer: Layer, depth: number): Envelope | PatchtxError {
  const problem = boundaryProblem(layer);
  if (problem === null) return { lines: layer.lines };
  if (depth < MAX_WRAPPERS) {
    const peeled = peelWrapper(layer);
    if (peeled !== null) {
      // The wrapper is certain, so what is wrong is inside it: report that, as the reference does.
      const inner = unwrap(peeled.inner, depth + 1);
      if (inner instanceof PatchtxError) return inner;
      const cwd = inner.cwd ?? peeled.cwd;
      return cwd === undefined ? inner : { lines: inner.lines, cwd };
    }
  }
  return problem;
}

/** The reference's strict check, plus a pointer at stray text before Begin or after End. */
function boundaryProblem({ lines, offset }: Layer): PatchtxError | null {
  const n = lines.length;
  if (n === 0) return envelopeError(LAST_LINE_MESSAGE);
  if (trimRust(lines[0]!) !== BEGIN_PATCH) {
    const begin = lines.findIndex((l) => trimRust(l) === BEGIN_PATCH);
    if (begin > 0) {
      return envelopeError(`${FIRST_LINE_MESSAGE}; found text before it on line ${offset + 1}: '${clip(lines[0]!)}'`, offset + 1);
    }
    return envelopeError(FIRST_LINE_MESSAGE, offset + 1);
  }
  if (n === 1 || trimRust(lines[n - 1]!) !== END_PATCH) {
    let end = -1;
    for (let i = n - 1; i > 0; i--) {
      if (trimRust(lines[i]!) === END_PATCH) {
        end = i;
        break;
      }
    }
    if (end > 0) {
      const stray = end + 1;
      return envelopeError(`${LAST_LINE_MESSAGE}; found text after it on line ${offset + stray + 1}: '${clip(lines[stray]!)}'`, offset + stray + 1);
    }
    return envelopeError(LAST_LINE_MESSAGE, offset + n);
  }
  return null;
}

/** Stray text can be a whole paragraph of prose: quote enough of it to recognise it. */
function clip(line: string): string {
  return line.length <= 120 ? line : `${line.slice(0, 117)}...`;
}

function envelopeError(message: string, line?: number): PatchtxError {
  return new PatchtxError('parse_error', `Invalid patch: ${message}`, line === undefined ? {} : { line });
}

interface Peeled {
  inner: Layer;
  cwd?: string;
}

/** Removes one recognised wrapper (its first and last line), or returns null. */
function peelWrapper(layer: Layer): Peeled | null {
  const { lines } = layer;
  if (lines.length < 2) return null;
  const first = trimRust(lines[0]!);
  const last = lines[lines.length - 1]!;
  const cwd = heredocCwd(first, last);
  if (cwd === null && !isFence(first, last)) return null;
  // Blank lines just inside a wrapper are what the whole-text trim would have removed.
  let start = 1;
  let end = lines.length - 1;
  while (start < end && isBlankRust(lines[start]!)) start++;
  while (end > start && isBlankRust(lines[end - 1]!)) end--;
  // Like the reference (which wants ≥ 4 lines with the wrapper), a wrapper around fewer than two
  // lines cannot hold a patch, and the outer error is the more useful one.
  if (end - start < 2) return null;
  const inner = { lines: lines.slice(start, end), offset: layer.offset + start };
  return cwd === null || cwd === '' ? { inner } : { inner, cwd };
}

// `<<EOF`, `<<'EOF'`, `<<"EOF"` are what the reference accepts; any shell word works the same.
const BARE_HEREDOC = /^<<[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/;
// `apply_patch <<'EOF'` and `cd DIR && apply_patch <<'EOF'`, the shapes Codex itself recognises in
// a shell command. DIR: 'single quoted', "double quoted" (backslash escapes) or a bare word.
const INVOCATION_HEREDOC =
  /^(?:cd[ \t]+(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|((?:[^\s'"\\&;|<>()]|\\.)+))[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)[ \t]*<<[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\4$/;

/**
 * For a heredoc wrapper: '' when there is no `cd`, the directory otherwise. null when the first
 * and last lines do not form a heredoc.
 */
function heredocCwd(first: string, last: string): string | null {
  const bare = BARE_HEREDOC.exec(first);
  // The reference only asks that the last line *end with* the delimiter.
  if (bare !== null) return trimEndRust(last).endsWith(bare[2]!) ? '' : null;
  const call = INVOCATION_HEREDOC.exec(first);
  if (call === null || trimRust(last) !== call[5]) return null;
  if (call[1] !== undefined) return call[1];
  const dir = call[2] ?? call[3];
  return dir === undefined ? '' : dir.replace(/\\(.)/g, '$1');
}

// ``` or ```diff / ```patch / ~~~ …; closed by the same character, at least as many times.
const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;

function isFence(first: string, last: string): boolean {
  const open = FENCE_OPEN.exec(first);
  if (open === null) return false;
  const fence = open[1]!;
  // CommonMark: a backtick fence's info string cannot contain a backtick.
  if (fence[0] === '`' && open[2]!.includes('`')) return false;
  const close = trimRust(last);
  if (close.length < fence.length) return false;
  for (let i = 0; i < close.length; i++) if (close[i] !== fence[0]) return false;
  return true;
}
