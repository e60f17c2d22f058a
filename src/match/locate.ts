// Where each chunk of one Update hunk applies: the reference's cursor algorithm.
//
// A cursor starts at line 0. For each chunk: every `@@ text` header, in turn, must equal a whole
// line at/after the cursor (modulo the match passes) and moves the cursor past it, so stacked
// headers narrow the search step by step. Then the chunk's old lines are searched from the
// cursor (only the final window with `*** End of File`); if they are not found and the last old
// line is empty, the search is retried without it. A match moves the cursor past the block, so
// chunks must come in file order. One exception: the leading headers of a chunk that restate the
// headers of an earlier chunk (`@@ class T` again before the next method) are that scope, found
// again behind the cursor, which stays where it is.
import type { Chunk, ChunkLine } from '../patch/types.js';
import { PatchtxError } from '../errors.js';
import type { WarningKind } from '../warnings.js';
import { trimEndRust, trimRust } from '../patch/grammar.js';
import { contextNotFoundError, linesNotFoundError } from './diagnose.js';
import { MATCH_PASSES, type MatchPass, normalizeLine } from './normalize.js';
import { type SearchableLines, lineAt } from './searchable.js';
import { indentUnit, reindentChunk } from './reindent.js';
import { spend } from './budget.js';
import { DEFAULT_MAX_OTHERS, findMatchesOfPass, seekSequence } from './seek.js';

/** What the caller decides about matching (the engine's PlanOptions carries it). */
export interface LocateOptions {
  /** refuse an ambiguous match and a match that needed more than trailing whitespace ignored */
  strict?: boolean;
}

/** How a chunk was placed when it was not placed plainly; the engine reports it as a PlanWarning. */
export interface MatchWarning {
  kind: Extract<WarningKind, 'ambiguous_match' | 'lenient_match' | 'nonstandard_form'>;
  message: string;
  path: string;
  chunk?: number;
  line?: number;
  /** 1-based file line numbers of the other places the chunk also matched */
  candidates?: number[];
  /** lenient_match: the pass that found the chunk (`trim_end`, `trim`, `fold`) */
  pass?: string;
  /** lenient_match: the first and last file line matched (1-based) */
  fileLines?: [number, number];
}

/** One chunk placed in the file. */
export interface LineEdit {
  /** 0-based line where the chunk's old lines start (`count` = after the last line) */
  start: number;
  /** the chunk's lines as they apply here (after the trailing-empty-line retry, if it happened) */
  lines: readonly ChunkLine[];
  /** 1-based chunk number within the hunk */
  chunk: number;
}

export interface LocateResult {
  /** in file order (chunks placed at the same line keep patch order) */
  edits: LineEdit[];
  warnings: MatchWarning[];
}

/** What a placed chunk needs for the ambiguity check that runs once all chunks are placed. */
interface Placement {
  chunkNumber: number;
  chunk: Chunk;
  /** first line this chunk consumed (its first `@@` line, else its block); none for EOF appends */
  consumedFrom: number | undefined;
  /** the search whose alternatives matter, if any */
  found?: { pattern: readonly string[]; index: number; pass: MatchPass };
}

export function locateChunks(search: SearchableLines, chunks: readonly Chunk[], path: string, options: LocateOptions = {}): LocateResult {
  const edits: LineEdit[] = [];
  const placements: Placement[] = [];
  let cursor = 0;
  /** lines earlier chunks consumed as `@@` headers, in file order: the scopes still open */
  const headerLines: number[] = [];
  /** warnings of lenient matches and non-standard forms, in patch order */
  const lenientWarnings: MatchWarning[] = [];

  chunks.forEach((chunk, i) => {
    const chunkNumber = i + 1;
    const headers = placeHeaders(search, { path, chunk, chunkNumber, cursor, headerLines, options, warnings: lenientWarnings });
    cursor = headers.cursor;
    const { consumedFrom, lastContext } = headers;

    if (chunk.oldLines.length === 0) {
      if (chunk.contexts.length === 0) {
        // Nothing to find and no header: appended at the end of the file, as the reference does.
        edits.push({ start: search.count, lines: chunk.lines, chunk: chunkNumber });
        placements.push({ chunkNumber, chunk, consumedFrom: undefined });
      } else {
        // Deliberate divergence: the reference appends a pure addition at the end of the file
        // even under an `@@ text` header (and ignores the cursor). Inserting right after the
        // header line is what the header says, and what the author of such a patch means.
        edits.push({ start: cursor, lines: chunk.lines, chunk: chunkNumber });
        placements.push({ chunkNumber, chunk, consumedFrom, found: lastContext });
      }
      return;
    }

    let lines: readonly ChunkLine[] = chunk.lines;
    let pattern: readonly string[] = chunk.oldLines;
    let m = seekSequence(search, pattern, cursor, chunk.isEndOfFile, 0);
    if (m === undefined && pattern[pattern.length - 1] === '') {
      // The model often ends a chunk with an empty context line the file does not have there.
      lines = withoutTrailingEmptyLine(chunk.lines);
      pattern = oldSide(lines);
      m = seekSequence(search, pattern, cursor, chunk.isEndOfFile, 0);
    }
    if (m === undefined) {
      throw linesNotFoundError({ search, path, chunk, chunkNumber, cursor });
    }
    if (m.pass !== 'exact') {
      const lenient = lenientMatch(search, { path, chunk, chunkNumber, lines, index: m.index, size: pattern.length, pass: m.pass }, options);
      lines = lenient.lines;
      lenientWarnings.push(lenient.warning);
    }
    edits.push({ start: m.index, lines, chunk: chunkNumber });
    placements.push({
      chunkNumber,
      chunk,
      // An emptied pattern consumes nothing: it just inserts at the cursor.
      consumedFrom: pattern.length === 0 ? consumedFrom : (consumedFrom ?? m.index),
      // `*** End of File` allows one window only, and an empty pattern matches only the cursor.
      found: chunk.isEndOfFile || pattern.length === 0 ? undefined : { pattern, index: m.index, pass: m.pass },
    });
    cursor = m.index + pattern.length;
  });

  const warnings = [...lenientWarnings, ...ambiguityWarnings(search, placements, path, options)];
  // Stable sort: chunks placed at the same line (several appends at the end) keep patch order.
  edits.sort((a, b) => a.start - b.start);
  return { edits, warnings };
}

/**
 * A chunk is ambiguous when its lines also match, in the same pass, somewhere it could have
 * been placed instead: after its match and before the first line the next chunk consumed.
 * Looking no further is not a blind spot. Each chunk sits at its earliest match (of that
 * pass), so if all chunks could also be placed some other way, take the last chunk k that
 * would sit elsewhere: that place lies after chunk k's match and ends before chunk k+1's
 * (unchanged) place, which is exactly the stretch searched for chunk k. The stretches of
 * consecutive chunks do not overlap, so the check costs one pass over the file per hunk,
 * however many chunks there are (a scan to the end of the file per chunk would not).
 */
function ambiguityWarnings(search: SearchableLines, placements: readonly Placement[], path: string, options: LocateOptions): MatchWarning[] {
  const warnings: MatchWarning[] = [];
  let bound = search.count; // first line consumed by a later chunk
  for (let k = placements.length - 1; k >= 0; k--) {
    const p = placements[k]!;
    if (p.found !== undefined) {
      const { pattern, index, pass } = p.found;
      const others = findMatchesOfPass(search, pattern, pass, index + 1, bound - pattern.length, DEFAULT_MAX_OTHERS);
      if (others.length > 0) {
        const candidates = others.map((o) => o + 1);
        const what = p.chunk.oldLines.length === 0 ? `its @@ line '${pattern[0]}'` : 'its lines';
        const message =
          `${path}: chunk ${p.chunkNumber} (patch line ${p.chunk.line}) is ambiguous: ${what} ` +
          `match at line ${index + 1} and also at line${candidates.length > 1 ? 's' : ''} ` +
          `${candidates.join(', ')}${others.length >= DEFAULT_MAX_OTHERS ? ' (and maybe more)' : ''}`;
        const data = { path, chunk: p.chunkNumber, line: p.chunk.line };
        if (options.strict) {
          // nothing was used: every place it matches is a candidate
          throw new PatchtxError('ambiguous_match', `${message}. Add context lines (or an @@ line) so the chunk matches only one place.`, {
            ...data,
            candidates: [index + 1, ...candidates],
          });
        }
        warnings.unshift({ kind: 'ambiguous_match', message: `${message}; the first match was used`, ...data, candidates });
      }
    }
    if (p.consumedFrom !== undefined) bound = p.consumedFrom;
  }
  return warnings;
}

interface HeaderSearch {
  path: string;
  chunk: Chunk;
  chunkNumber: number;
  /** where the chunk's search starts */
  cursor: number;
  /** lines earlier chunks consumed as `@@` headers (this chunk's are added) */
  headerLines: number[];
  options: LocateOptions;
  warnings: MatchWarning[];
}

interface PlacedHeaders {
  cursor: number;
  /** first line a header consumed at/after the cursor, if any */
  consumedFrom: number | undefined;
  /** the last header found at/after the cursor, for the ambiguity check */
  lastContext: Placement['found'];
}

/**
 * Each `@@` header of the chunk, in turn, at/after the cursor, which moves past it. While the
 * chunk's headers restate scopes an earlier chunk opened, they may lie behind the cursor, which
 * then stays where it is.
 */
function placeHeaders(search: SearchableLines, h: HeaderSearch): PlacedHeaders {
  const { path, chunk, chunkNumber } = h;
  let { cursor } = h;
  let consumedFrom: number | undefined;
  let lastContext: Placement['found'];
  let reopened: number | undefined = -1;
  const opened: number[] = [];
  for (const written of chunk.contexts) {
    const ahead = findHeader(written, h, (text) => seekSequence(search, [text], cursor, false, 0));
    if (ahead === undefined) {
      const behind: FoundHeader | undefined = reopened === undefined ? undefined : findBehind(search, written, h, reopened);
      if (behind === undefined) throw contextNotFoundError({ search, path, context: written, chunk, chunkNumber, cursor });
      headerFound(search, h, behind.m, behind.context);
      reopened = behind.m.index;
      opened.push(behind.m.index);
      continue;
    }
    const { m, context } = ahead;
    reopened = undefined;
    headerFound(search, h, m, context);
    consumedFrom ??= m.index;
    lastContext = { pattern: [context], index: m.index, pass: m.pass };
    cursor = m.index + 1;
    opened.push(m.index);
  }
  h.headerLines.push(...opened);
  return { cursor, consumedFrom, lastContext };
}

/**
 * A header found (ahead of the cursor or behind it). Indentation and trailing spaces of a header
 * are ignored by design; folded punctuation is a guess, told like one of the lines (and refused
 * in strict mode).
 */
function headerFound(search: SearchableLines, h: HeaderSearch, m: HeaderMatch, context: string): void {
  if (m.pass !== 'fold') return;
  const { path, chunk, chunkNumber } = h;
  h.warnings.push(lenientMatch(search, { path, chunk, chunkNumber, lines: [], index: m.index, size: 1, pass: m.pass, header: context }, h.options).warning);
}

/** A header restated behind the cursor: among the scopes earlier chunks opened after `after`. */
function findBehind(search: SearchableLines, written: string, h: HeaderSearch, after: number): FoundHeader | undefined {
  return findHeader(written, h, (text) => reopenedHeader(search, h.headerLines, text, after));
}

/** Where a header is, and in which pass. */
type HeaderMatch = { index: number; pass: MatchPass };

/** A header found, and the text that was found (without a closing `@@` when it was read so). */
type FoundHeader = { m: HeaderMatch; context: string };

/**
 * One header, looked for with `find` (ahead of the cursor, or among the scopes behind it).
 * `@@ def f(): @@` (a form some appliers accept) whose text is not found is looked for without
 * its closing `@@`, with a warning naming the form.
 */
function findHeader(written: string, h: HeaderSearch, find: (text: string) => HeaderMatch | undefined): FoundHeader | undefined {
  const m = find(written);
  if (m !== undefined) return { m, context: written };
  const bare = withoutClosingMarker(written);
  if (bare === undefined) return undefined;
  const found = find(bare);
  if (found === undefined) return undefined;
  h.warnings.push({
    kind: 'nonstandard_form',
    message:
      `${h.path}: chunk ${h.chunkNumber} (patch line ${h.chunk.line}): the header '@@ ${written}' is not in the file; ` +
      `it was read as '@@ ${bare}' (V4A closes no @@ line with '@@')`,
    path: h.path,
    chunk: h.chunkNumber,
    line: h.chunk.line,
  });
  return { m: found, context: bare };
}

/** `def f(): @@` without its closing ` @@`; undefined when it has none (or nothing is left). */
function withoutClosingMarker(context: string): string | undefined {
  const text = trimEndRust(context);
  if (!text.endsWith(' @@')) return undefined;
  const bare = trimEndRust(text.slice(0, -3));
  return trimRust(bare) === '' ? undefined : bare;
}

/** What each lenient pass forgave, for messages. */
const FORGIVEN: Record<Exclude<MatchPass, 'exact'>, string> = {
  trim_end: 'trailing whitespace ignored',
  trim: 'leading and trailing whitespace ignored',
  fold: 'surrounding whitespace ignored and typographic dashes, quotes and spaces folded',
};

interface LenientFind {
  path: string;
  chunk: Chunk;
  chunkNumber: number;
  /** the chunk's lines as they apply (none for a header) */
  lines: readonly ChunkLine[];
  /** 0-based first file line matched, and how many */
  index: number;
  size: number;
  pass: MatchPass;
  /** set when what matched is this `@@` header */
  header?: string;
}

/**
 * A match that needed a lenient pass: refused in strict mode unless only trailing whitespace
 * differed; otherwise a warning naming the pass and the lines, and, when leading whitespace was
 * ignored, the `+` lines re-indented to the file (reindent.ts).
 */
function lenientMatch(search: SearchableLines, f: LenientFind, options: LocateOptions): { lines: readonly ChunkLine[]; warning: MatchWarning } {
  const pass = f.pass as Exclude<MatchPass, 'exact'>;
  const first = f.index + 1;
  const last = f.index + f.size;
  const where = first === last ? `line ${first}` : `lines ${first}-${last}`;
  const what =
    f.header === undefined
      ? `chunk ${f.chunkNumber} (patch line ${f.chunk.line})`
      : `the @@ line '${f.header}' of chunk ${f.chunkNumber} (patch line ${f.chunk.line})`;
  const data = { path: f.path, chunk: f.chunkNumber, line: f.chunk.line };
  if (options.strict && pass !== 'trim_end') {
    throw new PatchtxError(
      'context_not_found',
      `${f.path}: ${what} matches ${where} only with ${FORGIVEN[pass]}; strict mode accepts exact matches ` +
        `and trailing whitespace only. Copy the lines as they are in the file.`,
      { ...data, candidates: [first] },
    );
  }
  let lines = f.lines;
  let reindented = false;
  if (pass !== 'trim_end' && f.header === undefined) {
    const fileLines: string[] = [];
    for (let i = f.index; i < f.index + f.size; i++) fileLines.push(lineAt(search, i));
    const r = reindentChunk(f.lines, fileLines, fileIndentUnit(search, f.index, f.index + f.size));
    lines = r.lines;
    reindented = r.changed;
  }
  const message =
    `${f.path}: ${what} matched ${where} only with ${FORGIVEN[pass]} (pass '${pass}')` +
    (reindented ? "; its + lines were re-indented to the file's indentation" : '');
  return { lines, warning: { kind: 'lenient_match', message, ...data, pass, fileLines: [first, last] } };
}

/** Lines around a match looked at for the file's indentation unit: enough, and bounded. */
const UNIT_WINDOW = 2000;

function fileIndentUnit(search: SearchableLines, from: number, to: number): string | undefined {
  const lo = Math.max(0, from - UNIT_WINDOW);
  const hi = Math.min(search.count, to + UNIT_WINDOW);
  const lines: string[] = [];
  for (let i = lo; i < hi; i++) lines.push(lineAt(search, i));
  return indentUnit(lines);
}

/**
 * A stacked `@@` header the cursor has passed, as the scope of the next chunk: a line after
 * `after` that an earlier chunk consumed as a header and that equals `context` (a scope repeated
 * for each method of a class, say). Only a header an earlier chunk opened counts: any other line
 * behind the cursor would put the chunk out of file order. The passes come in the order of a
 * search ahead of the cursor (an exact scope anywhere beats a folded one), and within a pass the
 * nearest scope wins; every comparison is spent from the match budget.
 */
function reopenedHeader(search: SearchableLines, headerLines: readonly number[], context: string, after: number): HeaderMatch | undefined {
  let work = 0;
  try {
    for (const pass of MATCH_PASSES) {
      const wanted = normalizeLine(context, pass);
      for (let k = headerLines.length - 1; k >= 0; k--) {
        const line = headerLines[k]!;
        if (line <= after) break;
        work++;
        if (normalizeLine(lineAt(search, line), pass) === wanted) return { index: line, pass };
      }
    }
    return undefined;
  } finally {
    spend(search.budget, work);
  }
}

/** The old side of chunk lines: context and removed lines. */
export function oldSide(lines: readonly ChunkLine[]): string[] {
  const out: string[] = [];
  for (const l of lines) if (l.op !== '+') out.push(l.text);
  return out;
}

/**
 * The reference's retry, expressed on chunk lines: drop the last old line (it is empty), and
 * the last new line too when that one is empty. A context line dropped from one side only
 * stays on the other side (becomes `+` or `-`).
 */
export function withoutTrailingEmptyLine(lines: readonly ChunkLine[]): ChunkLine[] {
  const out = lines.slice();
  const lastOld = findLastIndex(out, (l) => l.op !== '+');
  if (lastOld >= 0) {
    const l = out[lastOld]!;
    if (l.op === ' ') out[lastOld] = { op: '+', text: l.text };
    else out.splice(lastOld, 1);
  }
  const lastNew = findLastIndex(out, (l) => l.op !== '-');
  if (lastNew >= 0 && out[lastNew]!.text === '') {
    const l = out[lastNew]!;
    if (l.op === ' ') out[lastNew] = { op: '-', text: l.text };
    else out.splice(lastNew, 1);
  }
  return out;
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}
