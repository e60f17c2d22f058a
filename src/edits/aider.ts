// Aider's SEARCH/REPLACE blocks read into a Patch. Grammar, one block:
//
//     path/of/the/file
//     <<<<<<< SEARCH
//     lines to find (exactly)
//     =======
//     lines to put there
//     >>>>>>> REPLACE
//
// The path is the last non-blank line before `<<<<<<< SEARCH` (a ``` fence line and a
// ```lang line are skipped, and so is text between blocks). Each block is a str_replace of whole
// lines that must match once (the last of them also as a file's last line without a line break);
// an empty SEARCH part creates the file when it does not exist and appends to it when it does.
// Blocks apply in order, each seeing the ones before.
import { PatchtxError } from '../errors.js';
import { pathProblem, plainPath, quotePath } from '../patch/paths.js';
import type { Hunk, Patch } from '../patch/types.js';
import { hasLineOf } from '../text/line-start.js';

const SEARCH = /^<{5,9} SEARCH\s*$/;
const DIVIDER = /^={5,9}\s*$/;
const REPLACE = /^>{5,9} REPLACE\s*$/;
const FENCE = /^```/;
/** a `<<<<<<< SEARCH` line from its first character on (hasLineOf) */
const SEARCH_LINE = /<{5,9} SEARCH[ \t]*\r?$/my;

/** A `<<<<<<< SEARCH` line at the start of a line (neither V4A nor a unified diff has one there). */
export function isAiderBlocks(text: string): boolean {
  return hasLineOf(text, '<<<<<', SEARCH_LINE);
}

export function parseAiderBlocks(text: string): Patch {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const hunks: Hunk[] = [];
  let pathLine = -1;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (!SEARCH.test(l)) {
      if (l.trim() !== '' && !FENCE.test(l.trim())) pathLine = i;
      continue;
    }
    const index = hunks.length;
    const error = (message: string, line: number): PatchtxError =>
      new PatchtxError('parse_error', `block ${index + 1} (line ${line}): ${message}`, { line, format: 'aider', operation: index });
    if (pathLine === -1) throw error('no file path before <<<<<<< SEARCH', i + 1);
    const written = lines[pathLine]!.trim().replace(/^[`*]+|[`*:]+$/g, '');
    const path = plainPath(written, true);
    const problem = pathProblem(path);
    if (problem !== null) throw new PatchtxError('path_rejected', `Path ${quotePath(written)} is rejected: ${problem}`, { path: written, line: pathLine + 1 });
    const divider = findFrom(lines, i + 1, DIVIDER, REPLACE);
    if (divider === -1) throw error('no ======= after <<<<<<< SEARCH', i + 1);
    const end = findFrom(lines, divider + 1, REPLACE, SEARCH);
    if (end === -1) throw error('no >>>>>>> REPLACE after =======', divider + 1);
    const search = joinLines(lines.slice(i + 1, divider));
    const replace = joinLines(lines.slice(divider + 1, end));
    const origin = { index, name: 'search/replace' };
    if (search === '') hunks.push({ kind: 'edit', path, edit: { type: 'append', text: replace }, line: i + 1, origin });
    else if (search === replace) throw error('SEARCH and REPLACE are the same: the block would change nothing', i + 1);
    else hunks.push({ kind: 'edit', path, edit: { type: 'str_replace', old: search, new: replace, replaceAll: false, wholeLines: true }, line: i + 1, origin });
    i = end;
    pathLine = -1;
  }
  if (hunks.length === 0) throw new PatchtxError('parse_error', 'no SEARCH/REPLACE block found', { format: 'aider' });
  return { hunks, text };
}

/** The first line from `from` matching `want`, or -1 (also when `stop` comes first). */
function findFrom(lines: readonly string[], from: number, want: RegExp, stop: RegExp): number {
  for (let i = from; i < lines.length; i++) {
    if (want.test(lines[i]!)) return i;
    if (stop.test(lines[i]!)) return -1;
  }
  return -1;
}

/** Whole lines, each ending with a newline. */
const joinLines = (lines: readonly string[]): string => lines.map((l) => l + '\n').join('');
