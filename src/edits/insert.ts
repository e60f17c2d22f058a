// `insert {path, line, text}`: text inserted after line `line` of a file (0: before the first
// line; the file's line count: at the end). The text is written with the file's line endings and
// ends with one, so it forms whole lines; at the end of a file without a final newline, the
// newline goes before the text instead, and the file still ends without one.
import { PatchtxError } from '../errors.js';
import type { ContentEdit, Hunk } from '../patch/types.js';
import type { OpFields } from './fields.js';
import { lineEndingOf, withLineEnding } from './text.js';

export interface InsertOp {
  op: 'insert';
  path: string;
  line: number;
  text: string;
}

type Edit = Extract<ContentEdit, { type: 'insert' }>;

export function readInsert(f: OpFields): InsertOp {
  return { op: 'insert', path: f.path('path'), line: f.wholeNumber('line'), text: f.string('text') };
}

export function insertHunks(op: InsertOp, index: number): Hunk[] {
  return [{ kind: 'edit', path: op.path, edit: { type: 'insert', line: op.line, text: op.text }, line: 0, origin: { index, name: 'insert' } }];
}

export function insertText(text: string, edit: Edit, path: string): string {
  const eol = lineEndingOf(text);
  // where each line starts; a final newline does not start one
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const count = text === '' ? 0 : starts.length;
  if (edit.line > count) {
    throw new PatchtxError('context_not_found', `cannot insert after line ${edit.line} of ${path}: the file has ${count} line${count === 1 ? '' : 's'}`, {
      path,
      candidates: [count],
    });
  }
  let inserted = withLineEnding(edit.text, eol);
  if (edit.line === count) {
    const unterminated = text !== '' && !text.endsWith('\n');
    if (unterminated) return text + eol + (inserted.endsWith('\n') ? inserted.slice(0, -eol.length) : inserted);
    return text + (inserted === '' || inserted.endsWith('\n') ? inserted : inserted + eol);
  }
  if (!inserted.endsWith('\n')) inserted += eol;
  const at = starts[edit.line]!;
  return text.slice(0, at) + inserted + text.slice(at);
}
