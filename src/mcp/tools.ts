// The tools the server offers, each a call of the library (openRepository and its commands), on a
// repository object kept for the session (repositories.ts), which checks what it keeps before every
// call, so a commit made with git between two calls is seen. Writes
// (apply_patch, edit, undo, redo) go through the write queue of their repository and wait for another
// process's lock rather than failing at once; check, log and show only read.
import path from 'node:path';
import type { Repository } from '../api/openRepository.js';
import type { ApplyJson } from '../commands/results.js';
import type { Limits } from '../patch/limits.js';
import type { EditOp } from '../edits/ops.js';
import { withEnvelope } from './envelope.js';
import { WriteQueue } from './queue.js';
import type { Repositories } from './repositories.js';
import { changeLines, settle, succeeded, warningLines, type ToolResult } from './results.js';

/** Seconds a write waits for another process's transaction lock, as apply_patch does by default. */
const LOCK_WAIT_SECONDS = 30;

export interface ToolContext {
  /** the directory a call without `repository` works in */
  cwd: string;
  limits?: Partial<Limits>;
  queue: WriteQueue;
  repositories: Repositories;
}

interface Place {
  repository?: string;
  ref?: string;
}

export interface PatchArgs extends Place {
  patch: string;
  base?: string;
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  diff?: boolean;
  message?: string;
}

const open = (ctx: ToolContext, args: Place): Promise<Repository> => ctx.repositories.get(path.resolve(ctx.cwd, args.repository ?? '.'));

/** A write, after the writes queued before it on the same repository. */
async function write<T>(ctx: ToolContext, args: Place, fn: (repo: Repository) => Promise<T>): Promise<T> {
  const repo = await open(ctx, args);
  return ctx.queue.run(repo.gitdir, () => fn(repo));
}

function applyText(r: ApplyJson): string {
  const warnings = warningLines(r.warnings);
  const diff = r.diff ? `\n${r.diff}` : '';
  if (r.alreadyApplied) return `Already applied by ${r.alreadyApplied}; nothing written.${warnings}`;
  if (r.noop) return `The patch changes nothing; nothing written.${warnings}`;
  // a commit signed or edited by hooks when made has no id before (see the warning)
  const head = r.checked ? `The patch would apply${r.wouldCommit ? ` as commit ${r.wouldCommit}` : ''}:` : `Committed ${r.commit ?? '(none)'}:`;
  return `${head}\n${changeLines(r.files)}${warnings}${diff}`;
}

function patchOptions(ctx: ToolContext, args: PatchArgs) {
  const { ref, base, dirty, strict, diff, message } = args;
  return { ref, base, dirty, strict, diff, message, limits: ctx.limits, wait: LOCK_WAIT_SECONDS };
}

export const applyPatchTool = (ctx: ToolContext, args: PatchArgs): Promise<ToolResult> =>
  settle(async () => {
    const r = await write(ctx, args, (repo) => repo.apply(withEnvelope(args.patch), patchOptions(ctx, args)));
    return succeeded(applyText(r), { ...r });
  });

export const checkTool = (ctx: ToolContext, args: PatchArgs): Promise<ToolResult> =>
  settle(async () => {
    const repo = await open(ctx, args);
    const r = await repo.check(withEnvelope(args.patch), patchOptions(ctx, { ...args, message: undefined }));
    return succeeded(applyText(r), { ...r });
  });

export interface EditArgs extends Omit<PatchArgs, 'patch'> {
  operations: EditOp[];
  check?: boolean;
}

export const editTool = (ctx: ToolContext, args: EditArgs): Promise<ToolResult> =>
  settle(async () => {
    const options = { ...patchOptions(ctx, { ...args, patch: '' }), check: args.check === true };
    const r =
      args.check === true
        ? await (await open(ctx, args)).edit(args.operations, options)
        : await write(ctx, args, (repo) => repo.edit(args.operations, options));
    return succeeded(applyText(r), { ...r });
  });

type UndoArgs = Place & { commit?: string; revert?: boolean };

export const undoTool = (ctx: ToolContext, args: UndoArgs, which: 'undo' | 'redo'): Promise<ToolResult> =>
  settle(async () => {
    const options = { ref: args.ref, revert: args.revert, wait: LOCK_WAIT_SECONDS };
    const r = await write(ctx, args, (repo) => (which === 'undo' ? repo.undo({ ...options, commit: args.commit }) : repo.redo(options)));
    const verb = which === 'undo' ? 'Undid' : 'Redid';
    const text = `${verb} ${r.target} (${r.action}); ${r.ref} is at ${r.commit ?? 'no commit'}:\n${changeLines(r.files)}${warningLines(r.warnings ?? [])}`;
    return succeeded(text, { ...r });
  });

export const logTool = (ctx: ToolContext, args: Place & { maxCount?: number }): Promise<ToolResult> =>
  settle(async () => {
    const repo = await open(ctx, args);
    const entries = await repo.log({ ref: args.ref, maxCount: args.maxCount });
    const text = entries.length === 0 ? 'No patchtx transactions on this branch.' : JSON.stringify(entries, null, 2);
    return succeeded(text, { entries });
  });

export const showTool = (ctx: ToolContext, args: Place & { commit?: string }): Promise<ToolResult> =>
  settle(async () => {
    const repo = await open(ctx, args);
    const commit = args.commit ?? args.ref ?? 'HEAD';
    const patch = await repo.show(commit);
    return succeeded(patch, { commit, patch });
  });
