// The note of a transaction with steps that are not V4A (edit operations, Aider blocks, unified
// diffs): a V4A patch made from its result, file by file (a rename as Update + Move to), so that
// `patchtx show` prints a patch that re-applies like any other note. The patch made is applied to
// the same files before it is kept, and kept only when it gives the same result; what V4A cannot
// say exactly (a file without a final newline, a mode change) is said by a unified diff in git's
// form instead (git-diff-note.ts), checked the same way. Only a binary file's content changed has neither:
// the note is then the canonical text the Patch-Id is computed from.
import { sameBytes } from '../engine/content.js';
import { planPatch } from '../engine/plan.js';
import type { FileChange, FileLookup } from '../engine/types.js';
import { createPatchFromTexts } from '../patch/create.js';
import { BEGIN_PATCH, DELETE_FILE, END_PATCH, MOVE_TO, UPDATE_FILE } from '../patch/grammar.js';
import { parsePatch } from '../patch/parse.js';
import type { Patch } from '../patch/types.js';
import { parseUnifiedDiff } from '../edits/unified.js';
import { gitDiffNote } from './git-diff-note.js';
import { decodeText } from '../text/decode.js';

type Bytes = Uint8Array | null;

/** The file's section of a V4A patch (no envelope); throws when V4A cannot say it. */
function section(path: string, before: string | null, after: string | null): string[] {
  const text = createPatchFromTexts([{ path, before, after }]).split('\n');
  return text.slice(1, text.lastIndexOf(END_PATCH));
}

function textOf(bytes: Bytes): string | null | undefined {
  return bytes === null ? null : decodeText(bytes);
}

/**
 * A patch that turns the files of `base` into `result` (each touched path's final bytes, null:
 * removed) and `modes` (each written path's mode, with the base's): V4A when it says it exactly,
 * else a git-style unified diff; undefined when neither does.
 */
export function noteFromResult(
  changes: readonly FileChange[],
  base: FileLookup,
  result: ReadonlyMap<string, Bytes>,
  modes: { before: (path: string) => string | undefined; after: (path: string) => string | undefined },
): string | undefined {
  const before = (p: string): Bytes => base.read(p) ?? null;
  const after = (p: string): Bytes => result.get(p) ?? null;
  const modeChanged = changes.some((c) => {
    const was = modes.before(c.op === 'R' ? c.from! : c.path);
    const now = modes.after(c.path);
    return was !== undefined && now !== undefined && was !== now;
  });
  const v4a = modeChanged ? undefined : v4aOf(changes, before, after);
  if (v4a !== undefined && replaysTo(() => parsePatch(v4a), base, result)) return v4a;
  const diff = gitDiffNote(changes, { before, after, modeBefore: modes.before, modeAfter: modes.after });
  if (diff !== undefined && replaysTo(() => parseUnifiedDiff(diff), base, result)) return diff;
  return undefined;
}

/** Whether the patch, applied to `base`, gives `result` at every path. */
function replaysTo(parse: () => Patch, base: FileLookup, result: ReadonlyMap<string, Bytes>): boolean {
  try {
    const replayed = planPatch(parse(), base).files;
    for (const [p, want] of result) {
      const got = replayed.has(p) ? replayed.get(p)! : (base.read(p) ?? null);
      if (want === null ? got !== null : got === null || !sameBytes(want, got)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function v4aOf(changes: readonly FileChange[], before: (path: string) => Bytes, after: (path: string) => Bytes): string | undefined {
  const out = [BEGIN_PATCH];
  try {
    for (const c of changes) {
      // a deletion says no content: any file goes
      if (c.op === 'D') {
        out.push(DELETE_FILE + c.path);
        continue;
      }
      const from = c.op === 'R' ? c.from! : c.path;
      const old = c.op === 'A' ? null : textOf(before(from));
      const now = textOf(after(c.path));
      if (old === undefined || now === undefined) return undefined;
      if (c.op !== 'R') {
        out.push(...section(c.path, old, now));
        continue;
      }
      const body = old === now ? [] : section(c.path, old, now).slice(1);
      out.push(UPDATE_FILE + from, MOVE_TO + c.path, ...body);
    }
  } catch {
    return undefined;
  }
  if (out.length === 1) return undefined;
  out.push(END_PATCH);
  return out.join('\n') + '\n';
}
