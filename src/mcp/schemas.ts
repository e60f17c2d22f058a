// The tools' input and output schemas, in zod (which the MCP SDK turns into the JSON Schemas that
// clients see and validates calls against). Built from the zod the SDK module hands over, since
// that module is loaded only when the server starts.
import type { z as Zod } from './sdk.js';

export function toolSchemas(z: typeof Zod) {
  const place = {
    repository: z.string().min(1).optional().describe("a directory of the git repository (default: the server's working directory)"),
    ref: z.string().min(1).optional().describe('the branch to work on, without a working tree or index (default: the checked-out branch)'),
  };
  const applyOptions = {
    ...place,
    base: z.string().min(1).optional().describe('with ref: the commit to apply onto when the branch does not exist yet'),
    dirty: z
      .enum(['refuse', 'include'])
      .optional()
      .describe('touched paths with uncommitted changes: refuse (default) or take them into the commit (undo gives them back)'),
    strict: z.boolean().optional().describe('ambiguous matches, lenient matches and overwrites by Add/Move are errors'),
    diff: z.boolean().optional().describe('also return a unified diff of the changes'),
  };
  const patchInput = {
    patch: z.string().describe('a V4A patch (the *** Begin Patch / *** End Patch lines may be left out), a unified diff, or Aider SEARCH/REPLACE blocks'),
    ...applyOptions,
  };

  const file = z.looseObject({ path: z.string(), op: z.string(), from: z.string().nullable().optional() });
  const warning = z.looseObject({ kind: z.string(), message: z.string(), path: z.string().optional() });
  const error = z.looseObject({
    kind: z.string(),
    message: z.string(),
    path: z.string().optional(),
    chunk: z.number().optional(),
    line: z.number().optional(),
    candidates: z.array(z.number()).optional(),
    paths: z.array(z.string()).optional(),
    operation: z.number().optional(),
  });
  // every result: ok, and on failure the error; the rest is each tool's own
  const outcome = {
    ok: z.boolean(),
    error: error.optional().describe('on failure: the error kind, its message and, when known, the path, patch line and candidate file lines'),
    commit: z.string().nullable().optional(),
    files: z.array(file).optional(),
    warnings: z.array(warning).optional(),
  };

  const path = z.string().min(1).describe('a file path relative to the repository root');
  const operation = z.discriminatedUnion('op', [
    z.object({
      op: z.literal('str_replace'),
      path,
      old: z.string().min(1).describe('the exact text to replace (it must occur once unless replaceAll)'),
      new: z.string().describe('the text to put there, taken literally'),
      replaceAll: z.boolean().optional().describe('replace every occurrence'),
    }),
    z.object({
      op: z.literal('insert'),
      path,
      line: z.number().int().min(0).describe('insert after this line (0: at the start)'),
      text: z.string().describe('the lines to insert'),
    }),
    z.object({
      op: z.literal('create'),
      path,
      content: z.string().describe('the whole content, as it is (no newline added)'),
      overwrite: z.boolean().optional().describe('replace an existing file (default: an existing file is an error)'),
    }),
    z.object({ op: z.literal('delete'), path }),
    z.object({
      op: z.literal('move'),
      from: path,
      to: path,
      overwrite: z.boolean().optional().describe('replace an existing destination (default: it is an error)'),
    }),
  ]);

  return {
    edit: {
      input: {
        operations: z.array(operation).min(1).describe('edit operations applied in order, each seeing the ones before; all of them are one commit, or nothing'),
        ...applyOptions,
        check: z.boolean().optional().describe('run everything, write nothing'),
        message: z.string().min(1).optional().describe('commit message (default: generated from the changes)'),
      },
      output: z.looseObject({
        ...outcome,
        wouldCommit: z.string().nullable().optional(),
        noop: z.boolean().optional(),
        diff: z.string().optional(),
      }),
    },
    apply: {
      input: { ...patchInput, message: z.string().min(1).optional().describe('commit message (default: generated from the changes)') },
      output: z.looseObject({
        ...outcome,
        wouldCommit: z.string().nullable().optional(),
        noop: z.boolean().optional(),
        alreadyApplied: z.string().optional(),
        diff: z.string().optional(),
      }),
    },
    check: { input: patchInput },
    undo: {
      input: {
        ...place,
        commit: z.string().min(1).optional().describe('the patchtx commit to undo (default: the newest one on the branch)'),
        revert: z.boolean().optional().describe('make a revert commit even for the tip instead of moving the branch back'),
      },
      output: z.looseObject({ ...outcome, action: z.string().optional(), target: z.string().optional() }),
    },
    redo: {
      input: { ...place, revert: z.boolean().optional().describe('bring an undone revert back with a new commit') },
    },
    log: {
      input: { ...place, maxCount: z.number().int().min(1).max(10_000).optional().describe('how many transactions to list (default 20)') },
      output: z.looseObject({ ...outcome, entries: z.array(z.looseObject({ commit: z.string() })).optional() }),
    },
    show: {
      input: { ...place, commit: z.string().min(1).optional().describe('the transaction commit (default: the tip of the branch)') },
      output: z.looseObject({ ...outcome, patch: z.string().optional() }),
    },
  };
}
