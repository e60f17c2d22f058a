// `patchtx mcp`: an MCP server on standard input and output, offering the transaction as tools
// (apply_patch, edit, check, undo, redo, log, show) for a whole agent session. Standard output carries
// nothing but the protocol; what the server has to say otherwise goes to standard error. A
// malformed message is reported there and skipped; the server stays up until its input ends and
// the requests read by then are answered.
import type { Limits } from '../patch/limits.js';
import { watchRequests } from './drain.js';
import { WriteQueue } from './queue.js';
import { Repositories } from './repositories.js';
import { toolSchemas } from './schemas.js';
import { applyPatchTool, checkTool, editTool, logTool, showTool, undoTool, type ToolContext } from './tools.js';

export interface McpServerOptions {
  /** the directory a call without `repository` works in */
  cwd: string;
  version: string;
  /** the patch limits (the library's defaults where not given) */
  limits?: Partial<Limits>;
  /** called after every tool call, e.g. to end the process when a signal arrived meanwhile */
  afterCall?: () => Promise<void>;
}

/** Bytes of one message the transport buffers: a patch at the patch-bytes limit must fit, escaped as JSON. */
function maxMessageBytes(limits: Partial<Limits> | undefined): number {
  const patchBytes = limits?.patchBytes ?? 64 * 1024 * 1024;
  return 2 * patchBytes + 1024 * 1024;
}

/** Serves until standard input ends. */
export async function serveMcp(options: McpServerOptions): Promise<void> {
  const { McpServer, StdioServerTransport, z } = await import('./sdk.js');
  const ctx: ToolContext = { cwd: options.cwd, limits: options.limits, queue: new WriteQueue(), repositories: new Repositories() };
  const schemas = toolSchemas(z);
  const server = new McpServer({ name: 'patchtx', version: options.version });
  const done = <T>(result: Promise<T>): Promise<T> => result.finally(() => options.afterCall?.());
  const writes = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
  const reads = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'apply_patch',
    {
      description:
        'Apply a V4A patch (*** Add File / *** Update File / *** Delete File sections), a unified diff (git diff, diff -u) or Aider SEARCH/REPLACE blocks to the git repository as exactly one commit, or nothing at all.',
      inputSchema: schemas.apply.input,
      outputSchema: schemas.apply.output,
      annotations: { ...writes, idempotentHint: true },
    },
    (args) => done(applyPatchTool(ctx, args)),
  );
  server.registerTool(
    'edit',
    {
      description:
        'Edit files by operations (str_replace of exact text, insert after a line, create, delete, move), applied in order as exactly one commit, or nothing at all; a failure names the operation by its index.',
      inputSchema: schemas.edit.input,
      outputSchema: schemas.edit.output,
      // sent again at once, the same operations are found applied already (the tip's Patch-Id)
      annotations: { ...writes, idempotentHint: true },
    },
    (args) => done(editTool(ctx, args)),
  );
  server.registerTool(
    'check',
    {
      description: 'Check that a V4A patch applies (the whole pipeline), writing nothing.',
      inputSchema: schemas.check.input,
      outputSchema: schemas.apply.output,
      annotations: reads,
    },
    (args) => done(checkTool(ctx, args)),
  );
  server.registerTool(
    'undo',
    {
      description: 'Undo the newest (or the given) patchtx transaction: the tip by moving the branch back, an older one by a revert commit.',
      inputSchema: schemas.undo.input,
      outputSchema: schemas.undo.output,
      annotations: writes,
    },
    (args) => done(undoTool(ctx, args, 'undo')),
  );
  server.registerTool(
    'redo',
    {
      description: 'Bring back what the last undo removed.',
      inputSchema: schemas.redo.input,
      outputSchema: schemas.undo.output,
      annotations: writes,
    },
    (args) => done(undoTool(ctx, args, 'redo')),
  );
  server.registerTool(
    'log',
    {
      description: 'The patchtx transactions on the branch, newest first.',
      inputSchema: schemas.log.input,
      outputSchema: schemas.log.output,
      annotations: reads,
    },
    (args) => done(logTool(ctx, args)),
  );
  server.registerTool(
    'show',
    { description: 'The original patch text of a transaction.', inputSchema: schemas.show.input, outputSchema: schemas.show.output, annotations: reads },
    (args) => done(showTool(ctx, args)),
  );

  server.server.onerror = (e) => process.stderr.write(`patchtx mcp: ${e.message.split('\n')[0]}\n`);
  // the SDK's own bound on one message (10 MiB) is below the patch limit: a bigger patch would close the transport
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: maxMessageBytes(options.limits) });
  await server.connect(transport);
  const requests = watchRequests(transport);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  // the requests read before the input ended are answered first
  await requests.drained();
  await server.close();
  ctx.repositories.closeAll();
}
