// One Update hunk's chunks applied to one file's bytes: decode, place the chunks, rebuild, encode.
import type { Chunk } from '../patch/types.js';
import { splitFileLines } from '../apply/lines.js';
import { decodeFileText, rebuildBytes } from '../apply/text.js';
import { locateChunks } from '../match/locate.js';
import { SearchableLines } from '../match/searchable.js';
import type { PlanOptions, PlanWarning } from './types.js';

export interface UpdatedContent {
  bytes: Uint8Array;
  warnings: PlanWarning[];
}

export function applyChunks(
  before: Uint8Array,
  chunks: readonly Chunk[],
  path: string,
  options: PlanOptions,
): UpdatedContent {
  const file = splitFileLines(decodeFileText(before, path));
  const { edits, warnings } = locateChunks(new SearchableLines(file), chunks, path, options);
  // Untouched stretches are copied from the original bytes, not re-encoded.
  return { bytes: rebuildBytes(file, edits, before), warnings };
}
