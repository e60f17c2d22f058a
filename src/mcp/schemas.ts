// The tools' input and output schemas, in zod (which the MCP SDK turns into the JSON Schemas that
// clients see and validates calls against). Built from the zod the SDK module hands over, since
// that module is loaded only when the server starts.
import type { z as Zod } from './sdk.js';

export function toolSchemas(z: typeof Zod) {
  const place = {
    repository: z.string().min(1).optional().describe("a directory of the git repository (default: the server's working directory)"),
    ref: z.string().min(1).optional().describe('the branch to work on, without a working tree or index (default: the checked-out branch)'),
  };
  const patchInput = {
    patch: z.string().describe('a V4A patch; the *** Begin Patch / *** End Patch lines may be left out'),
    ...place,
    base: z.string().min(1).optional().describe('with ref: the commit to apply onto when the branch does not exist yet'),
    dirty: z
      .enum(['refuse', 'include'])
      .optional()
      .describe('touched paths with uncommitted changes: refuse (default) or take them into the commit (undo gives them back)'),
    strict: z.boolean().optional().describe('ambiguous matches, lenient matches and overwrites by Add/Move are errors'),
    diff: z.boolean().optional().describe('also return a unified diff of the changes'),
  };

  const file = z.looseObject({ path: z.string(), op: z.string(), from: z.string().nullable().optional() });
  const warning = z.union([z.string(), z.looseObject({ kind: z.string(), message: z.string() })]);
  const error = z.looseObject({
    kind: z.string(),
    message: z.string(),
    path: z.string().optional(),
    chunk: z.number().optional(),
    line: z.number().optional(),
    candidates: z.array(z.number()).optional(),
    paths: z.array(z.string()).optional(),
  });
  // every result: ok, and on failure the error; the rest is each tool's own
  const outcome = {
    ok: z.boolean(),
    error: error.optional().describe('on failure: the error kind, its message and, when known, the path, patch line and candidate file lines'),
    commit: z.string().nullable().optional(),
    files: z.array(file).optional(),
    warnings: z.array(warning).optional(),
  };

  return {
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
