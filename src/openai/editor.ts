// createEditor: the OpenAI Agents SDK's `Editor` (createFile, updateFile, deleteFile; the host side
// of its applyPatchTool) over a repository. A turn's operations are the steps of one transaction,
// each checked as it comes, and flush() lands them as one commit; with `commit: 'call'` each
// operation is a commit of its own. Expected failures are `{status: 'failed', output}` results,
// as the SDK expects of an editor, never thrown.
//
// The SDK gives an editor the operation but not its call id. watch(runner) learns the ids from the
// runner's `agent_tool_start` events (emitted with the call right before the editor is called,
// with the very operation object the editor then gets), so commits can name their calls.
import type { Repository } from '../api/openRepository.js';
import type { Transaction } from '../api/begin.js';
import type { ApplyJson } from '../commands/results.js';
import { describeStep, failureText, inDiffTerms, patchOf } from './operation.js';
import { abortQuietly, withCommit } from './items.js';
import { readSurfaceOptions, trailersFor, type SurfaceOptions } from './options.js';

/** What an editor operation returns: the SDK's ApplyPatchResult. */
export interface EditorResult {
  status: 'completed' | 'failed';
  output: string;
}

export interface CreateEditorOptions extends SurfaceOptions {
  /** `turn` (the default): operations wait in a transaction until flush(); `call`: a commit per operation */
  commit?: 'turn' | 'call';
}

/** Something that emits the Agents SDK's `agent_tool_start` events: a Runner, or an Agent. */
export interface ToolEventSource {
  on(type: 'agent_tool_start', listener: (...args: unknown[]) => void): unknown;
  off(type: 'agent_tool_start', listener: (...args: unknown[]) => void): unknown;
}

export interface PatchtxEditor {
  createFile(operation: { type: 'create_file'; path: string; diff: string }, context?: unknown): Promise<EditorResult>;
  updateFile(operation: { type: 'update_file'; path: string; diff: string; moveTo?: string }, context?: unknown): Promise<EditorResult>;
  deleteFile(operation: { type: 'delete_file'; path: string }, context?: unknown): Promise<EditorResult>;
  /**
   * Commits the operations kept since the last flush as one commit, with a Call-Id trailer per
   * call (when watch() knew its id); null when there were none. A failure (say `stale`: the
   * branch moved meanwhile) drops them, writes nothing, and is thrown.
   */
  flush(): Promise<ApplyJson | null>;
  /** drops the operations kept since the last flush; nothing is written */
  abort(): void;
  /** learn call ids from `source`'s agent_tool_start events; returns a function that stops listening */
  watch(source: ToolEventSource): () => void;
  /** for the Runner's `callModelInputFilter`: flushes the turn before the model is called again */
  callModelInputFilter<T>(args: { modelData: T }): Promise<T>;
}

interface Open {
  tx: Transaction;
  callIds: (string | null)[];
  /** warnings of the steps so far, so each step reports only its own */
  warnings: number;
}

export function createEditor(repo: Repository, options?: CreateEditorOptions): PatchtxEditor {
  const opts = readSurfaceOptions('createEditor', options, 'commit', ['turn', 'call'] as const);
  const perCall = opts.grouping === 'call';
  const callIds = new WeakMap<object, string>();
  let open: Open | null = null;
  // one operation or flush at a time, in the order they were asked for
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const operate = (operation: unknown): Promise<EditorResult> =>
    serial(async () => {
      const callId = typeof operation === 'object' && operation !== null ? (callIds.get(operation) ?? null) : null;
      try {
        const { op, patch, headerLines } = patchOf(operation, callId ? `apply_patch_call ${callId}` : 'the operation');
        const step = (tx: Transaction): Promise<ApplyJson> =>
          tx.apply(patch).catch((e: unknown) => {
            throw inDiffTerms(e, headerLines);
          });
        if (perCall) {
          const tx = await repo.begin(opts.begin);
          try {
            const result = await step(tx);
            const committed = await tx.commit({ ...opts.commit, trailers: trailersFor(opts.commit, [callId]) });
            return { status: 'completed', output: withCommit(describeStep(op, headerLines, result.warnings), committed) };
          } finally {
            abortQuietly(tx);
          }
        }
        open ??= { tx: await repo.begin(opts.begin), callIds: [], warnings: 0 };
        const result = await step(open.tx);
        const own = result.warnings.slice(open.warnings);
        open.warnings = result.warnings.length;
        open.callIds.push(callId);
        return { status: 'completed', output: describeStep(op, headerLines, own) };
      } catch (e) {
        return { status: 'failed', output: failureText(e) };
      }
    });

  const flush = (): Promise<ApplyJson | null> =>
    serial(async () => {
      const turn = open;
      open = null;
      if (turn === null) return null;
      if (turn.tx.steps === 0) {
        abortQuietly(turn.tx);
        return null;
      }
      try {
        return await turn.tx.commit({ ...opts.commit, trailers: trailersFor(opts.commit, turn.callIds) });
      } finally {
        abortQuietly(turn.tx);
      }
    });

  return {
    createFile: (operation) => operate(operation),
    updateFile: (operation) => operate(operation),
    deleteFile: (operation) => operate(operation),
    flush,
    abort: () => {
      if (open !== null) abortQuietly(open.tx);
      open = null;
    },
    watch: (source) => {
      const listener = (...args: unknown[]): void => {
        // a Runner passes (context, agent, tool, details), an Agent (context, tool, details)
        const details = args[args.length - 1] as { toolCall?: { type?: unknown; callId?: unknown; operation?: unknown } } | undefined;
        const call = details?.toolCall;
        if (call?.type === 'apply_patch_call' && typeof call.callId === 'string' && typeof call.operation === 'object' && call.operation !== null) {
          callIds.set(call.operation, call.callId);
        }
      };
      source.on('agent_tool_start', listener);
      return () => void source.off('agent_tool_start', listener);
    },
    callModelInputFilter: async <T>(args: { modelData: T }): Promise<T> => {
      await flush();
      return args.modelData;
    },
  };
}
