// Library face of the parser: checks its argument, then parses.
import { parsePatch as parseV4A } from '../patch/parse.js';
import type { Patch } from '../patch/types.js';
import { requirePatchText } from './args.js';

/** Parses V4A patch text; throws PatchtxError `parse_error`/`path_rejected` (or `usage`). */
export function parsePatch(patchText: string): Patch {
  return parseV4A(requirePatchText('parsePatch', patchText));
}
