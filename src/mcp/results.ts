// What a tool call returns: a text for the model to read and `structuredContent` for a harness to
// act on. A failure is a result with `isError: true` (the model sees it and can correct the patch),
// never a protocol error; its text is the library's message, which names no command-line flag.
import { isPatchtxError, type PatchtxError } from '../errors.js';
import { toError } from '../commands/to-error.js';

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

export const succeeded = (text: string, structured: Record<string, unknown>): ToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { ok: true, ...structured },
});

/** The error's kind, message and, when its data has them, where it happened. */
function errorFields(e: PatchtxError): Record<string, unknown> {
  const fields: Record<string, unknown> = { kind: e.kind, message: e.message };
  for (const key of ['path', 'chunk', 'line', 'candidates', 'paths', 'limit', 'operation'] as const) {
    if (e.data[key] !== undefined) fields[key] = e.data[key];
  }
  return fields;
}

/** The library's remedy options under the names of the tools' arguments. */
const ARGUMENTS: Record<string, string> = { dirty: 'dirty', base: 'base', revert: 'revert', repoDir: 'repository' };

/**
 * What gets past the error, when the error names a way: the tool argument (where the CLI would
 * name its flag), or for a limit the server's environment, where its limits come from.
 */
function remedyText(e: PatchtxError): string {
  const remedy = e.data.remedy;
  const argument = remedy === undefined ? undefined : ARGUMENTS[remedy.option];
  if (remedy !== undefined && argument !== undefined) {
    const value = remedy.value === 'true' ? 'true' : JSON.stringify(remedy.value);
    return `; call again with ${argument}: ${value} to do so`;
  }
  if (e.kind === 'limit_exceeded' && typeof e.data.limit === 'string') {
    return `; the server's limits are set by PATCHTX_LIMITS in its environment (${e.data.limit}=N), or send a smaller patch`;
  }
  return '';
}

export function failed(thrown: unknown): ToolResult {
  const e = isPatchtxError(thrown) ? thrown : toError(thrown);
  return {
    isError: true,
    content: [{ type: 'text', text: `error: ${e.message}${remedyText(e)}` }],
    structuredContent: { ok: false, error: errorFields(e) },
  };
}

/** Runs a tool's work, turning whatever it throws into a failed result. */
export async function settle(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (e) {
    return failed(e);
  }
}

type Change = { path: string; op: string; from?: string | null };

/** One line a file, `M path` or `R from -> path`, in the order the result lists them. */
export const changeLines = (files: Change[]): string =>
  files.map((f) => (f.op === 'R' && f.from ? `R ${f.from} -> ${f.path}` : `${f.op} ${f.path}`)).join('\n');

export const warningLines = (warnings: Array<{ message: string }>): string => warnings.map((w) => `\nwarning: ${w.message}`).join('');
