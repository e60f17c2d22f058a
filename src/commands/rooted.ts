// A patch's paths taken from the root of the files it applies to, as a transaction takes them
// (tx/touched.ts), for a patch applied to files held in memory (the library's applyPatch): the
// `cd DIR &&` of its heredoc wrapper is applied, and a path that leaves the root or that the usual
// checks refuse is `path_rejected`. There is no working tree, so an absolute path is refused too.
import type { Patch } from '../patch/types.js';
import { patchDirectory, rerootPatch } from '../tx/touched.js';

/** `patch` with its paths relative to the root, `cwd` being the directory its wrapper names. */
export function rootedPatch(patch: Patch, cwd: string | undefined): Patch {
  return rerootPatch(patch, patchDirectory(null, '', cwd));
}
