// Reading a list of Responses API items (a JSON array, JSON Lines, or whole responses with an
// `output` array), as a harness logs what the model asked for and what it answered. A patch is an
// `apply_patch_call {call_id, status, operation}` whose operation is one file's change:
// `create_file {path, diff}`, `update_file {path, diff, move_to?}` or `delete_file {path}`; its
// outcome is the `apply_patch_call_output {call_id, status: completed|failed, output}` with the
// same call id. The Agents SDK spells the same fields in camelCase (callId, moveTo); both are read.
//
// `diff` is the body of one V4A file section without its header: it becomes a patch of one
// section here. Envelope or section lines inside it are refused: a model's update of one file
// must not be able to delete or add another.
import { PatchtxError } from '../errors.js';
import type { LogEntry } from './types.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export interface PatchOperation {
  type: 'create_file' | 'update_file' | 'delete_file';
  path: string;
  diff?: string;
  moveTo?: string;
}

/** Lines that open, close or switch a V4A section; none may appear inside an operation's diff. */
const SECTION_LINE = /^\*\*\* (Begin Patch|End Patch|Add File:|Update File:|Delete File:|Move to:|Move File:)/;

/** The V4A patch of one operation; throws `parse_error` for a diff that smuggles a section in. */
export function patchOfOperation(op: PatchOperation, where = 'the operation'): string {
  if (op.type === 'delete_file') return `*** Begin Patch\n*** Delete File: ${op.path}\n*** End Patch\n`;
  const diff = op.diff ?? '';
  const lines = diff.split('\n');
  const bad = lines.findIndex((l) => SECTION_LINE.test(l.replace(/\r$/, '').trimStart()));
  if (bad >= 0) {
    throw new PatchtxError(
      'parse_error',
      `${where}: line ${bad + 1} of its diff is '${lines[bad]!.trim()}'; ${op.type === 'update_file' ? 'an' : 'a'} ${op.type} diff is the body of one file's section, without patch or file headers`,
      {
        path: op.path,
        line: bad + 1,
      },
    );
  }
  const body = diff === '' || diff.endsWith('\n') ? diff : `${diff}\n`;
  const header = op.type === 'create_file' ? `*** Add File: ${op.path}\n` : `*** Update File: ${op.path}\n${op.moveTo ? `*** Move to: ${op.moveTo}\n` : ''}`;
  return `*** Begin Patch\n${header}${body}*** End Patch\n`;
}

/** The operation of an apply_patch_call item, with both spellings accepted; null if malformed. */
export function operationOf(item: Json): PatchOperation | null {
  const op = item.operation;
  if (!isObject(op)) return null;
  const type = str(op.type);
  const path = str(op.path);
  if (path === null || path === '' || (type !== 'create_file' && type !== 'update_file' && type !== 'delete_file')) return null;
  const diff = str(op.diff);
  if (type !== 'delete_file' && diff === null) return null;
  const moveTo = str(op.move_to) ?? str(op.moveTo);
  return { type, path, ...(diff !== null ? { diff } : {}), ...(moveTo ? { moveTo } : {}) };
}

interface Located {
  item: Json;
  /** 1-based line (JSON Lines) or item number (a JSON array) */
  line: number;
  /** the response the item came in, when the log holds whole responses */
  response: string | null;
}

/** Every apply_patch_call of the list, in order, with its recorded outcome. */
export function readResponsesItems(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  const byCall = new Map<string, LogEntry>();
  for (const { item, line, response } of itemsOf(text)) {
    const callId = str(item.call_id) ?? str(item.callId);
    if (item.type === 'apply_patch_call') {
      const where = `item ${line}${callId ? ` (call ${callId})` : ''}`;
      const op = operationOf(item);
      if (op === null)
        throw new PatchtxError('parse_error', `${where}: an apply_patch_call needs operation {type: create_file|update_file|delete_file, path, diff}`, {
          line,
        });
      const entry: LogEntry = {
        index: entries.length,
        format: 'responses-items',
        callId,
        session: null,
        turn: response,
        line,
        via: `apply_patch_call ${op.type}`,
        patch: patchOfOperation(op, where),
        cwd: null,
        outcome: 'unknown',
      };
      entries.push(entry);
      if (callId !== null) byCall.set(callId, entry);
    } else if (item.type === 'apply_patch_call_output' && callId !== null) {
      const entry = byCall.get(callId);
      if (!entry) continue;
      entry.outcome = item.status === 'completed' ? 'success' : item.status === 'failed' ? 'failed' : 'unknown';
      const output = str(item.output);
      if (output !== null) entry.output = output;
    }
  }
  return entries;
}

/** A JSON array (of items or responses), or JSON Lines of items or responses. */
function itemsOf(text: string): Located[] {
  const trimmed = text.trim();
  const out: Located[] = [];
  const take = (v: unknown, line: number): void => {
    if (!isObject(v)) return;
    if (Array.isArray(v.output)) {
      const response = str(v.id);
      for (const item of v.output) if (isObject(item)) out.push({ item, line, response });
    } else out.push({ item: v, line, response: null });
  };
  if (trimmed.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(trimmed);
    } catch (e) {
      throw new PatchtxError('parse_error', `Responses item list: not JSON (${(e as Error).message})`, { format: 'responses-items' });
    }
    (list as unknown[]).forEach((v, i) => take(v, i + 1));
    return out;
  }
  const lines = text.split('\n');
  lines.forEach((l, i) => {
    if (l.trim() === '') return;
    try {
      take(JSON.parse(l), i + 1);
    } catch (e) {
      throw new PatchtxError('parse_error', `Responses item list, line ${i + 1}: not JSON (${(e as Error).message})`, {
        line: i + 1,
        format: 'responses-items',
      });
    }
  });
  return out;
}
