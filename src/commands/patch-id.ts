// Patch-Id: a content hash of the patch's meaning, not of its spelling. The patch is re-serialised
// from its parsed form (no envelope, heredoc, fence, padding or CRLF), so the same edit written
// twice gets the same id and re-runs and replayed logs can be recognised.
import { createHash } from 'node:crypto';
import type { Dialect } from '../engine/types.js';
import type { Patch } from '../patch/types.js';

export function normalisePatch(patch: Patch): string {
  const out: string[] = ['*** Begin Patch'];
  for (const hunk of patch.hunks) {
    if (hunk.kind === 'add') {
      out.push(`*** Add File: ${hunk.path}`);
      const body = hunk.contents.endsWith('\n') ? hunk.contents.slice(0, -1) : hunk.contents;
      if (hunk.contents.length > 0) for (const line of body.split('\n')) out.push('+' + line);
    } else if (hunk.kind === 'delete') {
      out.push(`*** Delete File: ${hunk.path}`);
    } else if (hunk.kind === 'edit') {
      // not V4A: this text only feeds the Patch-Id (the note of such a transaction is made from its result)
      out.push(`*** Edit File: ${hunk.path}`, JSON.stringify(hunk.edit));
    } else {
      out.push(`*** Update File: ${hunk.path}`);
      if (hunk.moveTo !== null) out.push(`*** Move to: ${hunk.moveTo}`);
      for (const chunk of hunk.chunks) {
        if (chunk.contexts.length === 0) out.push('@@');
        for (const ctx of chunk.contexts) out.push('@@ ' + ctx);
        for (const line of chunk.lines) out.push(line.op + line.text);
        if (chunk.isEndOfFile) out.push('*** End of File');
      }
    }
  }
  out.push('*** End Patch');
  return out.join('\n') + '\n';
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
