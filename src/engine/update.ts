// One Update hunk's chunks applied to one file's content: place the chunks, rebuild.
import type { Chunk } from '../patch/types.js';
import { recycleFileLines, splitFileLines } from '../text/lines.js';
import { notTextError } from '../text/decode.js';
import { rebuildBytes, rebuildText } from '../apply/rebuild.js';
import { locateChunks } from '../match/locate.js';
import { type MatchBudget, matchBudget } from '../match/budget.js';
import { type SearchableLines, searchableLines } from '../match/searchable.js';
import { PatchtxError } from '../errors.js';
import { FileContent } from './content.js';
import type { PlanOptions, PlanWarning } from './types.js';

export interface UpdatedContent {
  content: FileContent;
  warnings: PlanWarning[];
}

export function applyChunks(
  before: FileContent,
  chunks: readonly Chunk[],
  path: string,
  options: PlanOptions,
  budget: MatchBudget = matchBudget(options.matchWork),
): UpdatedContent {
  const text = before.text();
  // Rewriting a binary or non-UTF-8 file as text would corrupt it.
  if (text === undefined) throw notTextError(path, before.whyNotText());
  const file = splitFileLines(text);
  try {
    const { edits, warnings } = locateWithin(searchableLines(file, budget), chunks, path, options);
    // The result keeps the form of the input: bytes are rebuilt by copying the untouched
    // stretches of the original bytes, text by joining slices of the original text.
    // The Agents SDK's dialect leaves a file that had no final newline without one.
    const unterminated = options.dialect === 'agents-sdk' && file.count > 0 && file.ends[file.count - 1] === text.length;
    const content =
      before.origin === 'bytes'
        ? FileContent.ofBytes(unterminatedBytes(rebuildBytes(file, edits, before.bytes()), unterminated))
        : FileContent.ofText(unterminated ? withoutFinalNewline(rebuildText(file, edits)) : rebuildText(file, edits), !chunks.some(addsNul));
    return { content, warnings };
  } finally {
    // Nothing made here keeps `file`: edits and warnings hold numbers and the chunks' lines,
    // and an error's message is written before it is thrown.
    recycleFileLines(file);
  }
}

/** locateChunks, with a spent match budget reported for the file whose search spent it. */
function locateWithin(search: SearchableLines, chunks: readonly Chunk[], path: string, options: PlanOptions): ReturnType<typeof locateChunks> {
  try {
    return locateChunks(search, chunks, path, options);
  } catch (e) {
    if (!(e instanceof PatchtxError) || e.kind !== 'limit_exceeded' || e.data.path !== undefined) throw e;
    throw new PatchtxError(e.kind, `${path}: ${e.message}`, { ...e.data, path });
  }
}

/** The result of a text update is text unless the patch itself brings a NUL character. */
function addsNul(chunk: Chunk): boolean {
  return chunk.lines.some((line) => line.op === '+' && line.text.indexOf('\0') !== -1);
}

/** The text without its last line's terminator (`\n` or `\r\n`), if it has one. */
export function withoutFinalNewline(text: string): string {
  if (!text.endsWith('\n')) return text;
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.slice(0, -1);
}

function unterminatedBytes(bytes: Uint8Array, unterminated: boolean): Uint8Array {
  if (!unterminated || bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a) return bytes;
  const cr = bytes.length > 1 && bytes[bytes.length - 2] === 0x0d;
  return bytes.subarray(0, bytes.length - (cr ? 2 : 1));
}
