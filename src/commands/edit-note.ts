// The note of a transaction with steps that are not V4A (edit operations, Aider blocks, unified
// diffs): a V4A patch made from its result, file by file (a rename as Update + Move to), so that
// `patchtx show` prints a patch that re-applies like any other note. What V4A cannot carry (a
// binary file, a mode change alone, a removed final newline) falls back to the canonical text the
// Patch-Id is computed from.
import type { FileChange } from '../engine/types.js';
import { createPatchFromTexts } from '../patch/create.js';
import { BEGIN_PATCH, END_PATCH, MOVE_TO, UPDATE_FILE } from '../patch/grammar.js';
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

export function noteFromResult(changes: readonly FileChange[], before: (path: string) => Bytes, after: (path: string) => Bytes): string | undefined {
  const out = [BEGIN_PATCH];
  try {
    for (const c of changes) {
      const from = c.op === 'R' ? c.from! : c.path;
      const old = c.op === 'A' ? null : textOf(before(from));
      const now = c.op === 'D' ? null : textOf(after(c.path));
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
