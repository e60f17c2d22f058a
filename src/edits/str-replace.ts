// `str_replace {path, old, new, replaceAll?}`: exact text replaced in one file. The old text must
// occur exactly once (every occurrence with replaceAll); nothing is a pattern, so `$&` or `$1` in
// the new text is written as it is. In a CRLF file, old and new text written with `\n` line
// breaks (as models write them) are taken with the file's `\r\n`, and new text keeps the file's
// line endings either way. A text that is not there is reported with the closest region of the
// file, as a V4A chunk that is not found is; several occurrences with the line of each. An Aider
// block's lines match whole lines of the file only (as Aider matches them; str_replace, the text
// editor's command, matches any text), and when they are not there as written they may be there
// indented otherwise (indent-shift.ts).
import { PatchtxError } from '../errors.js';
import { closestRegion, makeVisible } from '../match/diagnose.js';
import { searchableOf } from '../match/searchable.js';
import type { ContentEdit, Hunk } from '../patch/types.js';
import type { OpFields } from './fields.js';
import { replaceShifted } from './indent-shift.js';
import { lineAtOffset, lineEndingOf, plainLines, withLineEnding } from './text.js';

export interface StrReplaceOp {
  op: 'str_replace';
  path: string;
  old: string;
  new: string;
  replaceAll?: boolean;
}

type Edit = Extract<ContentEdit, { type: 'str_replace' }>;

export function readStrReplace(f: OpFields): StrReplaceOp {
  const op: StrReplaceOp = { op: 'str_replace', path: f.path('path'), old: f.string('old'), new: f.string('new') };
  if (op.old === '') throw f.error("'old' is empty: give the exact text to replace (use insert or create to add text)", 'old');
  if (op.old === op.new) throw f.error("'old' and 'new' are the same text: the operation would change nothing", 'new');
  if (f.optionalBoolean('replaceAll')) op.replaceAll = true;
  return op;
}

export function strReplaceHunks(op: StrReplaceOp, index: number): Hunk[] {
  const edit: Edit = { type: 'str_replace', old: op.old, new: op.new, replaceAll: op.replaceAll === true };
  return [{ kind: 'edit', path: op.path, edit, line: 0, origin: { index, name: 'str_replace' } }];
}

/**
 * Every start of `needle` in `text`, not overlapping; with `wholeLines`, only those that start at
 * the start of a line and end at the end of one (an Aider block's lines are matched against whole
 * lines of the file, never against the end of a longer one).
 */
function occurrences(text: string, needle: string, wholeLines: boolean): number[] {
  const at: number[] = [];
  let i = text.indexOf(needle);
  while (i !== -1) {
    if (!wholeLines || onLineBounds(text, i, i + needle.length)) {
      at.push(i);
      i = text.indexOf(needle, i + needle.length);
    } else {
      i = text.indexOf(needle, i + 1);
    }
  }
  return at;
}

/** Whether `text.slice(start, end)` starts at the start of a line and ends at the end of one. */
function onLineBounds(text: string, start: number, end: number): boolean {
  const startsLine = start === 0 || text[start - 1] === '\n';
  const endsLine = end === text.length || text[end - 1] === '\n' || text[end] === '\n' || text.startsWith('\r\n', end);
  return startsLine && endsLine;
}

export function replaceText(text: string, edit: Edit, path: string): string {
  const eol = lineEndingOf(text);
  let old = edit.old;
  const wholeLines = edit.wholeLines === true;
  let at = occurrences(text, old, wholeLines);
  if (at.length === 0 && eol === '\r\n' && withLineEnding(old, eol) !== old) {
    old = withLineEnding(old, eol);
    at = occurrences(text, old, wholeLines);
  }
  if (at.length === 0 && wholeLines) {
    const last = atLastLine(text, old);
    if (last !== undefined) return text.slice(0, last) + withoutFinalBreak(withLineEnding(edit.new, eol));
  }
  if (at.length === 0 && wholeLines) {
    const shifted = replaceShifted(text, edit.old, edit.new, eol, path);
    if (shifted !== undefined) return shifted;
  }
  if (at.length === 0) throw notFound(text, edit.old, path);
  if (at.length > 1 && !edit.replaceAll) {
    const lines = at.map((i) => lineAtOffset(text, i));
    const candidates = [...new Set(lines)];
    const listed = candidates.map((l) => {
      const times = lines.filter((x) => x === l).length;
      return times === 1 ? `${l}` : `${l} (${times} times)`;
    });
    throw new PatchtxError(
      'ambiguous_match',
      `the old text occurs ${at.length} times in ${path}, at line${candidates.length === 1 ? '' : 's'} ${listed.join(', ')}: give more surrounding text so that it occurs once, or set replaceAll`,
      { path, candidates },
    );
  }
  const replacement = withLineEnding(edit.new, eol);
  // slices, not String.prototype.replace: its `$` patterns would be interpreted
  let out = '';
  let from = 0;
  for (const i of at) {
    out += text.slice(from, i) + replacement;
    from = i + old.length;
  }
  return out + text.slice(from);
}

const withoutFinalBreak = (s: string): string => s.replace(/\r?\n$/, '');

/**
 * Where whole lines `old` start when their last line is the file's last line, which has no line
 * break (lines an Aider block gives always end with one); undefined when they are not there.
 */
function atLastLine(text: string, old: string): number | undefined {
  if (text === '' || text.endsWith('\n')) return undefined;
  const lines = withoutFinalBreak(old);
  if (lines === old || !text.endsWith(lines)) return undefined;
  const start = text.length - lines.length;
  return start === 0 || text[start - 1] === '\n' ? start : undefined;
}

function notFound(text: string, old: string, path: string): PatchtxError {
  const wanted = plainLines(old);
  const fileLines = plainLines(text);
  const hints = [`The old text (${wanted.length} line${wanted.length === 1 ? '' : 's'}) does not occur in ${path} byte for byte.`];
  const data: { path: string; candidates?: number[] } = { path };
  const region = wanted.length === 0 ? undefined : closestRegion(searchableOf(fileLines), wanted, 0);
  if (region !== undefined) {
    data.candidates = [region.start + 1];
    const last = Math.min(region.start + wanted.length, fileLines.length);
    hints.push(`Closest match: ${last === region.start + 1 ? `line ${last}` : `lines ${region.start + 1}-${last}`}.`);
    for (let j = 0; j < wanted.length && region.start + j < fileLines.length; j++) {
      const have = fileLines[region.start + j]!;
      if (have === wanted[j]) continue;
      hints.push(`First difference at line ${region.start + j + 1}:`, `  file: ${makeVisible(have)}`, `  old:  ${makeVisible(wanted[j]!)}`);
      break;
    }
  } else {
    hints.push('No region of the file resembles it.');
  }
  return new PatchtxError('context_not_found', `Failed to find the old text in ${path}\n\n${hints.join('\n')}`, data);
}
