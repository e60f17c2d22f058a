// One entry point for patch logs: which format a log is, told from its content (the first JSON
// value that says), and its entries. A Codex session file has `session_meta`, `turn_context`,
// `response_item` or `event_msg` lines; patchtx's export has `patchtx_transaction` records; a
// Responses item list has `apply_patch_call` items or responses with an `output` array; a plain
// patch file has a `*** Begin Patch` line. `format` forces the choice.
import { PatchtxError } from '../errors.js';
import { readCodexRollout } from './codex-rollout.js';
import { isPatchText, readPatchFile } from './patch-files.js';
import { EXPORT_RECORD_TYPE, readPatchtxExport } from './patchtx-export.js';
import { readResponsesItems } from './responses-items.js';
import type { LogEntry, LogFormat } from './types.js';

const ROLLOUT_KINDS = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const ITEM_KINDS = new Set(['apply_patch_call', 'apply_patch_call_output']);

/** The format of a log, or null when nothing in it says. */
export function detectLogFormat(text: string): LogFormat | null {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) return 'responses-items';
  if (isPatchText(text)) return 'patch';
  for (const line of text.split('\n', 200)) {
    const t = line.trim();
    if (t === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      return null;
    }
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (o.type === EXPORT_RECORD_TYPE) return 'patchtx-export';
    if (typeof o.type === 'string' && 'payload' in o && ROLLOUT_KINDS.has(o.type)) return 'codex-rollout';
    if (typeof o.type === 'string' && ITEM_KINDS.has(o.type)) return 'responses-items';
    if (Array.isArray(o.output)) return 'responses-items';
    // older rollouts: the first line is the session's metadata, then bare response items
    if (typeof o.id === 'string' && typeof o.timestamp === 'string' && !('type' in o)) return 'codex-rollout';
    if (o.type === 'custom_tool_call' || o.type === 'function_call' || o.type === 'local_shell_call' || o.type === 'message') return 'codex-rollout';
  }
  return null;
}

export function readLog(text: string, format?: LogFormat): LogEntry[] {
  const f = format ?? detectLogFormat(text);
  if (f === null) {
    throw new PatchtxError(
      'parse_error',
      'not a patch log patchtx can read: neither a Codex session file (JSON lines of session_meta, response_item, …), a list of Responses API items (apply_patch_call …), a patchtx export nor a V4A patch (*** Begin Patch …)',
      {
        format: null,
      },
    );
  }
  if (f === 'patch') return readPatchFile(text);
  return f === 'codex-rollout' ? readCodexRollout(text) : f === 'patchtx-export' ? readPatchtxExport(text) : readResponsesItems(text);
}
