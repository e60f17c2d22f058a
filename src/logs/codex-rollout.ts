// Reading a Codex session file (a "rollout": JSON Lines, one `{timestamp, type, payload}` a line;
// older files have the payload alone on each line). The patches are in `response_item` payloads:
//   - `custom_tool_call` named apply_patch: `input` is the patch;
//   - `function_call` named apply_patch: `arguments` is JSON with `input` (or `patch`);
//   - `function_call` named shell / container.exec (`command` argv), shell_command (`command`
//     script) or exec_command (`cmd` script), and `local_shell_call` (`action.command` argv),
//     when the command is an apply_patch invocation (shell-invocation.ts);
//   - `custom_tool_call` or `function_call` named exec (code mode): `tools.apply_patch(...)` in
//     the script (code-mode.ts).
// `event_msg` payloads of type `patch_apply_end` carry the outcome (`success`, or `status`
// completed/failed/declined) and the changes made, by `call_id`. The directory is the call's
// `workdir`, else the latest `turn_context.cwd`, else `session_meta.cwd`. Other lines are ignored.
import { PatchtxError } from '../errors.js';
import { patchesOfCodeMode } from './code-mode.js';
import { patchOfArgv, patchOfScript } from './shell-invocation.js';
import type { LogEntry, RecordedChange } from './types.js';

type Json = Record<string, unknown>;

interface Context {
  session: string | null;
  sessionCwd: string | null;
  turnCwd: string | null;
  turn: string | null;
}

interface Candidate {
  callId: string | null;
  via: string;
  patch: string;
  workdir: string | null;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Every apply_patch call of a rollout, in order, with its recorded outcome. */
export function readCodexRollout(text: string): LogEntry[] {
  const ctx: Context = { session: null, sessionCwd: null, turnCwd: null, turn: null };
  const entries: LogEntry[] = [];
  const byCall = new Map<string, LogEntry[]>();
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n]!.trim();
    if (raw === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (e) {
      throw new PatchtxError('parse_error', `Codex session file, line ${n + 1}: not JSON (${(e as Error).message})`, { line: n + 1, format: 'codex-rollout' });
    }
    if (!isObject(record)) continue;
    const { kind, payload } = unwrapLine(record);
    if (!isObject(payload)) continue;
    if (kind === 'session_meta' || (kind === null && n === 0 && payload.type === undefined && typeof payload.id === 'string')) {
      ctx.session = str(payload.id) ?? ctx.session;
      ctx.sessionCwd = str(payload.cwd) ?? ctx.sessionCwd;
    } else if (kind === 'turn_context') {
      ctx.turnCwd = str(payload.cwd) ?? ctx.turnCwd;
      ctx.turn = str(payload.turn_id) ?? ctx.turn;
    } else if (kind === 'event_msg' && payload.type === 'patch_apply_end') {
      recordOutcome(byCall, payload);
    } else if (kind === 'response_item' || kind === null) {
      for (const c of candidatesOf(payload)) {
        const entry: LogEntry = {
          index: entries.length,
          format: 'codex-rollout',
          callId: c.callId,
          session: ctx.session,
          turn: ctx.turn,
          line: n + 1,
          via: c.via,
          patch: c.patch,
          cwd: resolveDir(c.workdir, ctx.turnCwd ?? ctx.sessionCwd),
          sessionCwd: ctx.sessionCwd,
          outcome: 'unknown',
        };
        entries.push(entry);
        if (c.callId !== null) byCall.set(c.callId, [...(byCall.get(c.callId) ?? []), entry]);
      }
    }
  }
  return entries;
}

/** `{timestamp, type, payload}`, or (older files) the payload itself on the line. */
function unwrapLine(record: Json): { kind: string | null; payload: unknown } {
  if (typeof record.type === 'string' && 'payload' in record) return { kind: record.type, payload: record.payload };
  return { kind: null, payload: record };
}

function resolveDir(workdir: string | null, base: string | null): string | null {
  if (workdir === null || workdir === '') return base;
  if (workdir.startsWith('/') || base === null) return workdir;
  return `${base.replace(/\/+$/, '')}/${workdir}`;
}

function parseArguments(v: unknown): Json | null {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return null;
  try {
    const parsed = JSON.parse(v) as unknown;
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The apply_patch calls one response item makes (code mode can make several). */
function candidatesOf(item: Json): Candidate[] {
  const callId = str(item.call_id) ?? str(item.id);
  const name = str(item.name);
  const one = (via: string, patch: string | null, workdir: string | null = null): Candidate[] => (patch === null ? [] : [{ callId, via, patch, workdir }]);
  if (item.type === 'custom_tool_call') {
    if (name === 'apply_patch') return one('custom_tool_call apply_patch', str(item.input));
    if (name === 'exec') return codeMode(callId, str(item.input));
    return [];
  }
  if (item.type === 'local_shell_call') {
    const action = isObject(item.action) ? item.action : {};
    return one('local_shell_call', Array.isArray(action.command) ? patchOfArgv(action.command) : null, str(action.working_directory));
  }
  if (item.type !== 'function_call') return [];
  const args = parseArguments(item.arguments);
  if (args === null) return [];
  const workdir = str(args.workdir);
  switch (name) {
    case 'apply_patch':
      return one('function_call apply_patch', str(args.input) ?? str(args.patch));
    case 'shell':
    case 'container.exec':
      return one(`function_call ${name}`, Array.isArray(args.command) ? patchOfArgv(args.command) : null, workdir);
    case 'shell_command':
      return one('function_call shell_command', typeof args.command === 'string' ? patchOfScript(args.command) : null, workdir);
    case 'exec_command':
      return one('function_call exec_command', typeof args.cmd === 'string' ? patchOfScript(args.cmd) : null, workdir);
    case 'exec':
      return codeMode(callId, str(args.input) ?? str(args.code));
    default:
      return [];
  }
}

function codeMode(callId: string | null, source: string | null): Candidate[] {
  if (source === null) return [];
  // a snippet's calls share its call id; literals that are not plain strings cannot be replayed
  return patchesOfCodeMode(source)
    .filter((p): p is { patch: string } => p.patch !== null)
    .map((p) => ({ callId, via: 'exec tools.apply_patch', patch: p.patch, workdir: null }));
}

function recordOutcome(byCall: Map<string, LogEntry[]>, ev: Json): void {
  const callId = str(ev.call_id);
  const targets = callId === null ? undefined : byCall.get(callId);
  if (!targets) return;
  const status = str(ev.status);
  const success = status !== null ? status === 'completed' : ev.success === true;
  const output = [str(ev.stdout), str(ev.stderr)].filter((s) => s !== null && s !== '').join('');
  const recorded = isObject(ev.changes) ? changesOf(ev.changes) : undefined;
  // a code-mode snippet's patches share one call id: the last event is the one for the last call
  const entry = targets.find((e) => e.outcome === 'unknown') ?? targets.at(-1)!;
  entry.outcome = success ? 'success' : 'failed';
  if (output !== '') entry.output = output;
  if (recorded && recorded.size > 0) entry.recorded = recorded;
}

function changesOf(changes: Json): Map<string, RecordedChange> {
  const out = new Map<string, RecordedChange>();
  for (const [p, c] of Object.entries(changes)) {
    if (!isObject(c)) continue;
    // `{type: "add", content}` in current files; `{add: {content}}` in some older ones
    const type = str(c.type) ?? Object.keys(c)[0] ?? '';
    const body = str(c.type) !== null ? c : isObject(c[type]) ? (c[type] as Json) : {};
    if (type === 'add') out.set(p, { type: 'add', content: str(body.content) ?? '' });
    else if (type === 'delete') out.set(p, { type: 'delete', ...(str(body.content) !== null ? { content: str(body.content)! } : {}) });
    else if (type === 'update') {
      const movePath = str(body.move_path);
      const unifiedDiff = str(body.unified_diff);
      out.set(p, { type: 'update', ...(unifiedDiff !== null ? { unifiedDiff } : {}), ...(movePath !== null ? { movePath } : {}) });
    }
  }
  return out;
}
