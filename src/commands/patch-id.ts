// Patch-Id: a content hash of the patch's meaning, not of its spelling. The patch is re-serialised
// from its parsed form (no envelope, heredoc, fence, padding or CRLF), so the same edit written
// twice gets the same id and re-runs and replayed logs can be recognised.
import { createHash } from 'node:crypto';
import type { Dialect } from '../engine/types.js';
import type { Patch } from '../patch/types.js';

export function normalisePatch(patch: Patch): string {
  // one string grown piece by piece (every line ends in a newline), rather than an array of lines
  // joined: a large patch has tens of thousands of lines, and each was a string of its own
  let out = '*** Begin Patch\n';
  for (const hunk of patch.hunks) {
    if (hunk.kind === 'add') {
      out += `*** Add File: ${hunk.path}\n`;
      const body = hunk.contents.endsWith('\n') ? hunk.contents.slice(0, -1) : hunk.contents;
      if (hunk.contents.length > 0) out += '+' + body.replaceAll('\n', '\n+') + '\n';
    } else if (hunk.kind === 'delete') {
      out += `*** Delete File: ${hunk.path}\n`;
    } else if (hunk.kind === 'edit') {
      // not V4A: this text only feeds the Patch-Id (the note of such a transaction is made from its result)
      out += `*** Edit File: ${hunk.path}\n${JSON.stringify(hunk.edit)}\n`;
    } else {
      out += `*** Update File: ${hunk.path}\n`;
      if (hunk.moveTo !== null) out += `*** Move to: ${hunk.moveTo}\n`;
      for (const chunk of hunk.chunks) {
        if (chunk.contexts.length === 0) out += '@@\n';
        for (const ctx of chunk.contexts) out += `@@ ${ctx}\n`;
        for (const line of chunk.lines) {
          out += line.op;
          out += line.text;
          out += '\n';
        }
        if (chunk.isEndOfFile) out += '*** End of File\n';
      }
    }
  }
  return out + '*** End Patch\n';
}

/**
 * The id of `patch`; a patch applied with the Agents SDK's final-newline rules makes other files
 * than the same text under Codex's, so its id is another one (the Codex id is unchanged).
 */
export function patchId(patch: Patch, dialect: Dialect = 'codex'): string {
  const hash = createHash('sha256').update(normalisePatch(patch));
  if (dialect !== 'codex') hash.update(`*** Dialect: ${dialect}\n`);
  return hash.digest('hex').slice(0, 40);
}
