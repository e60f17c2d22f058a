// Errors for a chunk that cannot be placed. The first lines keep the reference's wording
// (`Failed to find expected lines in <path>:` + the old lines; `Failed to find context '<ctx>'
// in <path>`), so tools that look for them still do; after a blank line come hints that let an
// agent fix its patch without re-reading the file: where the closest region is, the first line
// that differs with invisible characters made visible, chunks out of file order, and whether the
// change seems to be applied already. Only runs on failure, so it may scan the whole file.
import type { Chunk } from '../patch/types.js';
import { PatchtxError, type ErrorDataOf } from '../errors.js';
import { trimEndRust, trimRust } from '../patch/grammar.js';
import { foldTypography, normalizeLine, type MatchPass } from './normalize.js';
import { type SearchableLines, lineAt, normalizedLines } from './searchable.js';
import { seekSequence } from './seek.js';

export interface ChunkFailure {
  search: SearchableLines;
  /** the path as spelled in the patch */
  path: string;
  chunk: Chunk;
  /** 1-based within the hunk */
  chunkNumber: number;
  /** 0-based line where the failed search started */
  cursor: number;
}

/** `context_not_found` for a chunk whose old lines are not in the file. */
export function linesNotFoundError(f: ChunkFailure): PatchtxError {
  const { search, path, chunk, chunkNumber, cursor } = f;
  const pattern = chunk.oldLines;
  const data: ErrorDataOf<'context_not_found'> = { path, chunk: chunkNumber, line: chunk.line };
  const hints: string[] = [];
  const where = chunk.isEndOfFile ? 'at the end of the file (*** End of File)' : `from line ${cursor + 1} on`;
  hints.push(`Chunk ${chunkNumber} (patch line ${chunk.line}): searched ${where}.`);

  const anywhere = seekSequence(search, pattern, 0, false, 0);
  if (anywhere !== undefined && anywhere.index < cursor) {
    hints.push(
      `These lines occur at line ${anywhere.index + 1}, before line ${cursor + 1} where the search ` +
        `started (after the previous chunk or @@ line): chunks must be in file order.`,
    );
  } else if (anywhere !== undefined && chunk.isEndOfFile) {
    hints.push(`These lines occur at line ${anywhere.index + 1}, but *** End of File requires them to be ` + `the last lines of the file.`);
  }

  const region = closestRegion(search, pattern, cursor);
  if (region !== undefined) {
    data.candidates = [region.start + 1];
    const last = Math.min(region.start + pattern.length, search.count);
    const lines = last === region.start + 1 ? `line ${last}` : `lines ${region.start + 1}-${last}`;
    hints.push(
      region.score === 0
        ? `Closest match: ${lines} (alike, but no line equal even ignoring surrounding whitespace).`
        : `Closest match: ${lines} (${region.score} of ${pattern.length} ` + `line${pattern.length === 1 ? '' : 's'} equal ignoring surrounding whitespace).`,
    );
    hints.push(...firstDifference(search, pattern, region.start));
  } else {
    hints.push('No region of the file resembles these lines.');
  }

  if (chunk.lines.some((l) => l.op === '+')) {
    const applied = seekSequence(search, chunk.newLines, 0, false, 0);
    if (applied !== undefined) {
      hints.push(`The + lines are already present at line ${applied.index + 1} (already applied?)`);
    }
  }

  const message = `Failed to find expected lines in ${path}:\n${pattern.join('\n')}\n\n${hints.join('\n')}`;
  return new PatchtxError('context_not_found', message, data);
}

/** `context_not_found` for an `@@ text` header with no equal line at/after the cursor. */
export function contextNotFoundError(f: ChunkFailure & { context: string }): PatchtxError {
  const { search, path, chunk, chunkNumber, cursor, context } = f;
  const data: ErrorDataOf<'context_not_found'> = { path, chunk: chunkNumber, line: chunk.line };
  const hints: string[] = [`Chunk ${chunkNumber} (patch line ${chunk.line}): @@ line searched from line ${cursor + 1} on.`];

  const anywhere = seekSequence(search, [context], 0, false, 0);
  const wanted = trimRust(context);
  if (anywhere !== undefined) {
    data.candidates = [anywhere.index + 1];
    hints.push(
      `'${context}' occurs at line ${anywhere.index + 1}, before line ${cursor + 1} where the search ` +
        `started: chunks and stacked @@ lines must be in file order.`,
    );
  } else if (wanted !== '') {
    const containing = firstLineWhere(search, cursor, (text) => text.includes(wanted));
    const caseless = wanted.toLowerCase();
    const otherCase = firstLineWhere(search, cursor, (text) => trimRust(text).toLowerCase() === caseless);
    if (containing !== undefined) {
      data.candidates = [containing + 1];
      hints.push(
        `Line ${containing + 1} contains it: '${makeVisible(lineAt(search, containing))}'. An @@ line ` +
          `must equal a whole line of the file (surrounding whitespace aside), not a part of one.`,
      );
    } else if (otherCase !== undefined) {
      data.candidates = [otherCase + 1];
      hints.push(`Line ${otherCase + 1} differs only in letter case: '${makeVisible(lineAt(search, otherCase))}'.`);
    }
  }
  const message = `Failed to find context '${context}' in ${path}\n\n${hints.join('\n')}`;
  return new PatchtxError('context_not_found', message, data);
}

export interface Region {
  /** 0-based first line */
  start: number;
  /** lines of the window equal to the pattern's after trimming both ends */
  score: number;
}

/**
 * The window of the file most like `pattern`: most lines equal after trimming, then at/after
 * the cursor before earlier ones, then nearest to the cursor. Blank pattern lines do not vote
 * (they match everywhere); undefined when no non-blank line matches at all.
 */
export function closestRegion(search: SearchableLines, pattern: readonly string[], cursor: number): Region | undefined {
  const n = search.count;
  const m = pattern.length;
  if (m === 0 || n === 0) return undefined;
  const wanted = pattern.map(trimRust);
  const slots = new Map<string, number[]>();
  wanted.forEach((line, j) => {
    if (line === '') return;
    const js = slots.get(line);
    if (js === undefined) slots.set(line, [j]);
    else js.push(j);
  });
  const maxStart = Math.max(0, n - m);
  const votes = new Int32Array(maxStart + 1);
  const trimmed = normalizedLines(search, 'trim');
  // A line the file has everywhere says little about where the chunk was meant to go, and its
  // votes would cost its occurrences times its repeats in the chunk (a run of 3,000 `}` against a
  // file of them): like a blank line, it does not vote when that is more than a line of the file
  // each. When no other line votes, the window at the cursor is as close as any.
  const dropped = dropCommonLines(slots, trimmed);
  for (let i = 0; i < n; i++) {
    const js = slots.get(trimmed[i]!);
    if (js === undefined) continue;
    for (const j of js) {
      const w = i - j;
      if (w >= 0 && w <= maxStart) votes[w]!++;
    }
  }
  let best = -1;
  const rank = (w: number): number => (w >= cursor ? w - cursor : n + (cursor - w));
  for (let w = 0; w <= maxStart; w++) {
    if (votes[w]! === 0) continue;
    if (best === -1 || votes[w]! > votes[best]! || (votes[w] === votes[best] && rank(w) < rank(best))) best = w;
  }
  if (best === -1 && dropped) {
    const start = Math.min(cursor, maxStart);
    return { start, score: scoreAt(trimmed, wanted, start) };
  }
  if (best === -1) return similarRegion(trimmed, wanted, maxStart, cursor);
  return { start: best, score: scoreAt(trimmed, wanted, best) };
}

function scoreAt(trimmed: readonly string[], wanted: readonly string[], start: number): number {
  let score = 0;
  for (let j = 0; j < wanted.length && start + j < trimmed.length; j++) if (trimmed[start + j] === wanted[j]) score++;
  return score;
}

/** Removes from `slots` the lines whose votes would cost more than the file has lines; true if any. */
function dropCommonLines(slots: Map<string, number[]>, trimmed: readonly string[]): boolean {
  const occurrences = new Map<string, number>();
  for (const line of trimmed) {
    if (slots.has(line)) occurrences.set(line, (occurrences.get(line) ?? 0) + 1);
  }
  let dropped = false;
  for (const [line, js] of slots) {
    if ((occurrences.get(line) ?? 0) * js.length > trimmed.length) {
      slots.delete(line);
      dropped = true;
    }
  }
  return dropped;
}

/** Bigrams of a line, for a cheap similarity between lines that are not equal. */
function bigrams(line: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < line.length; i++) {
    const g = line.slice(i, i + 2);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

function dice(a: Map<string, number>, aSize: number, line: string): number {
  if (aSize === 0 || line.length < 2) return 0;
  let common = 0;
  const seen = new Map<string, number>();
  for (let i = 0; i + 1 < line.length; i++) {
    const g = line.slice(i, i + 2);
    const used = seen.get(g) ?? 0;
    if (used < (a.get(g) ?? 0)) common++;
    seen.set(g, used + 1);
  }
  return (2 * common) / (aSize + line.length - 1);
}

/** Comparisons the similarity fallback may make: it runs on the error path only, but a huge file
 * must still not make a failing patch slow. */
const SIMILARITY_BUDGET = 2_000_000;
const SIMILAR_ENOUGH = 0.6;

/**
 * When no line of the pattern occurs in the file even after trimming (an edited line, a typo),
 * the window whose lines are most alike character-wise (bigram similarity of at least
 * SIMILAR_ENOUGH per line) is the best guess at where the chunk was meant to go.
 */
function similarRegion(trimmed: readonly string[], wanted: readonly string[], maxStart: number, cursor: number): Region | undefined {
  const n = trimmed.length;
  const probes = wanted.map((line, j) => ({ j, grams: bigrams(line), size: Math.max(0, line.length - 1) })).filter((p) => p.size > 0);
  if (probes.length === 0 || n * probes.length > SIMILARITY_BUDGET) return undefined;
  const votes = new Float64Array(maxStart + 1);
  for (let i = 0; i < n; i++) {
    for (const p of probes) {
      const w = i - p.j;
      if (w < 0 || w > maxStart) continue;
      const d = dice(p.grams, p.size, trimmed[i]!);
      if (d >= SIMILAR_ENOUGH) votes[w]! += d;
    }
  }
  let best = -1;
  const rank = (w: number): number => (w >= cursor ? w - cursor : n + (cursor - w));
  for (let w = 0; w <= maxStart; w++) {
    if (votes[w]! === 0) continue;
    if (best === -1 || votes[w]! > votes[best]! || (votes[w] === votes[best] && rank(w) < rank(best))) best = w;
  }
  return best === -1 ? undefined : { start: best, score: 0 };
}

/**
 * Lines describing the first line of the window that keeps the pattern from matching there: the
 * first that differs even in the most forgiving comparison ('fold'). A line that differs only in
 * whitespace or typography would have matched, so naming it would send the reader to the wrong
 * line; it is named only when no line differs more (the window as a whole still did not match).
 */
function firstDifference(search: SearchableLines, pattern: readonly string[], start: number): string[] {
  return differenceAt(search, pattern, start, 'fold') ?? differenceAt(search, pattern, start, 'exact') ?? [];
}

function differenceAt(search: SearchableLines, pattern: readonly string[], start: number, pass: MatchPass): string[] | undefined {
  for (let j = 0; j < pattern.length; j++) {
    const i = start + j;
    if (i >= search.count) {
      return [`The file ends after line ${search.count}; the patch expects more lines:`, `  patch: '${makeVisible(pattern[j]!)}'`];
    }
    const expected = pattern[j]!;
    const actual = lineAt(search, i);
    if (normalizeLine(actual, pass) === normalizeLine(expected, pass)) continue;
    const how = describeDifference(expected, actual);
    return [`First difference at line ${i + 1}${how === '' ? '' : ` (${how})`}:`, `  patch: '${makeVisible(expected)}'`, `  file:  '${makeVisible(actual)}'`];
  }
  return undefined;
}

function describeDifference(expected: string, actual: string): string {
  if (trimEndRust(expected) === trimEndRust(actual)) return 'only trailing whitespace differs';
  if (trimRust(expected) === trimRust(actual)) return 'only indentation or surrounding whitespace differs';
  if (foldTypography(trimRust(expected)) === foldTypography(trimRust(actual))) {
    return 'only typographic dashes, quotes or spaces differ';
  }
  return '';
}

function firstLineWhere(search: SearchableLines, from: number, test: (text: string) => boolean): number | undefined {
  for (let i = from; i < search.count; i++) if (test(lineAt(search, i))) return i;
  for (let i = 0; i < Math.min(from, search.count); i++) if (test(lineAt(search, i))) return i;
  return undefined;
}

const NAMED: Record<string, string> = {
  '\t': '→',
  '\r': '\\r',
  '\u00a0': '<NBSP>',
  '\ufeff': '<BOM>',
};

// Characters that print as nothing or as an ordinary space: controls, Unicode spaces, zero-width
// and direction marks, line/paragraph separators.
// eslint-disable-next-line no-control-regex -- control characters are among what it looks for
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000]/;

/** `s` with tabs, CRs, trailing spaces, NBSP, BOM and other invisible characters shown. */
export function makeVisible(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x20) end--;
  let out = '';
  for (const ch of s.slice(0, end)) {
    const named = NAMED[ch];
    if (named !== undefined) out += named;
    else if (INVISIBLE.test(ch)) out += `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
    else out += ch;
  }
  return out + '·'.repeat(s.length - end);
}
