// How an entry of patchtx's export is applied so that its commit carries the recorded Patch-Id.
// A note is mostly the patch the Patch-Id was computed from, under Codex's final-newline rules;
// the note of a transaction applied under the Agents SDK's rules is that patch too, and its id
// says so (patch-id.ts), so the replay applies it under the same rules. The note of a transaction
// whose steps were not all V4A (edit operations, a unified diff, Aider blocks) is a patch made from
// its result (edit-note.ts): another patch than its steps, with another id. It makes the recorded
// commit where the replay starts from the recorded parent's tree and the result is the recorded
// tree, which the replay then checks (expectTree); from another tree nothing says it would make
// what the steps would have made, so it is refused there.
import { PatchtxError } from '../errors.js';
import type { Dialect } from '../engine/types.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import type { Limits } from '../patch/limits.js';
import { parseStep } from '../edits/step.js';
import { patchId } from './patch-id.js';

export interface RecordedPatchId {
  /** the rules the note is applied under (absent: Codex's) */
  dialect?: Dialect;
  /** the recorded Patch-Id, kept for a note made from the result (its tree is checked) */
  adopted?: string;
}

/**
 * How the record's note makes the recorded Patch-Id. `keep`: the commit keeps the recorded message;
 * `sameStart`: the replay starts from the recorded parent's tree. A note that does not parse is
 * left to the apply to report.
 */
export function recordedPatchId(record: ExportRecord, o: { keep: boolean; sameStart: boolean; limits?: Partial<Limits> }): RecordedPatchId {
  let id: string;
  let sdkId: string;
  try {
    const { patch } = parseStep(record.patch, { limits: o.limits });
    [id, sdkId] = [patchId(patch), patchId(patch, 'agents-sdk')];
  } catch {
    return {};
  }
  if (id === record.patchId) return {};
  if (sdkId === record.patchId) return { dialect: 'agents-sdk' };
  if (!o.keep) return {};
  if (o.sameStart) return { adopted: record.patchId };
  throw new PatchtxError(
    'replay_mismatch',
    `the note of ${record.commit.slice(0, 12)} was made from the result of its steps (not all V4A), not from the steps its Patch-Id ${record.patchId.slice(0, 12)} names: it makes that commit again only from the tree of its recorded parent (${(record.baseTree ?? 'none').slice(0, 12)}), and this replay starts from another`,
    { reason: 'patch_id', commit: record.commit, expected: record.patchId, baseTree: record.baseTree },
  );
}
