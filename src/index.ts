// The library: `import { parsePatch, applyPatch, PatchtxError } from 'patchtx'`.
export { parsePatch } from './api/parsePatch.js';
export { applyPatch } from './api/applyPatch.js';
export type { ApplyPatchOptions, ApplyPatchResult, FileInput, FileMap } from './api/applyPatch.js';
export { PatchtxError, isPatchtxError, exitCodeFor, ERROR_KINDS } from './errors.js';
export type { ErrorData, ErrorDataByKind, ErrorDataOf, ErrorKind } from './errors.js';
export { WARNING_KINDS } from './warnings.js';
export type { Warning, WarningKind } from './warnings.js';
export type { Chunk, ChunkLine, Hunk, Patch } from './patch/types.js';
export { planPatch } from './engine/plan.js';
export type { FileChange, FileLookup, Plan, PlanOptions, PlanWarning } from './engine/types.js';
export { unifiedDiff } from './engine/diff.js';
export { createPatchFromTexts } from './patch/create.js';
export type { FileTexts } from './patch/create.js';
// The transaction: a repository opened by directory, its commands returning what `--json` prints.
export { openRepository } from './api/openRepository.js';
export type { OpenRepositoryOptions, Repository } from './api/openRepository.js';
export type { ApplyAndPushOptions, AppliedJson, ApplyOptions } from './api/apply.js';
export type { ApplyPushOptions } from './api/apply-push.js';
export type { PushJson, PushOptions } from './api/push.js';
export type { BeginOptions, CommitOptions, Transaction } from './api/begin.js';
export type { EditOptions } from './api/edit.js';
export type { CreateOp, DeleteOp, EditOp, InsertOp, MoveOp, StrReplaceOp } from './edits/ops.js';
export type { UndoOptions } from './api/undo.js';
export type { RedoOptions } from './api/redo.js';
export type { LogOptions } from './api/log.js';
export type { ReplayEntryResult, ReplayOptions, ReplaySummary } from './api/replay.js';
export type { ApplyJson, IdentityJson, LogEntryJson, RecoverJson, UndoJson } from './commands/results.js';
export type { RecoveryReport, RecoveryWarning } from './tx/recover.js';
