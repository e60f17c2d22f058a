// Library face of the parser: checks its argument, then parses.
import { parsePatchInvocation } from '../patch/parse.js';
import type { Patch } from '../patch/types.js';
import { requirePatchText } from './args.js';

/**
 * Parses V4A patch text; throws PatchtxError `parse_error`/`path_rejected` (or `usage`). The
 * `cd DIR` of a heredoc wrapper around the patch comes back as `cwd`.
 */
export function parsePatch(patchText: string): Patch {
  const { patch, cwd } = parsePatchInvocation(requirePatchText('parsePatch', patchText));
  return cwd === undefined ? patch : { ...patch, cwd };
}
