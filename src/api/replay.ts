// Library face of `patchtx replay`: the patches of a log (a Codex session file's text, a list of
// Responses API items, patchtx's export, a V4A patch), applied in order, a commit per call (or
// per turn, or one), resumable and idempotent as the command is. The log is given as text, or as
// an array (Responses items or responses, or export records); the options are the command's under
// their library names; the result is the summary with one object per entry, those `patchtx
// replay --json` prints.
import { replayLogs, type ReplayEntryResult, type ReplaySummary } from '../commands/replay.js';
import { GROUPINGS } from '../commands/replay-groups.js';
import type { LogFormat } from '../logs/types.js';
import type { Limits } from '../patch/limits.js';
import { describeValue, optionalBoolean, optionalChoice, optionalString, optionalStringArray, readLimits, readOptionsObject, usageError } from './args.js';
import { sessionAt, settled, type Place } from './place.js';

export type { ReplayEntryResult, ReplaySummary };

export interface ReplayOptions {
  /** the log's name in results, messages and the Replayed-From trailer of a log without a session id (default: `log`) */
  name?: string;
  /** the log's format (default: told from the content) */
  format?: LogFormat;
  /** replay onto this branch (default: the checked-out branch); `base`: where a new one starts */
  ref?: string;
  base?: string;
  /** one commit per call (the default; Responses items: per response), per turn, or one for all */
  commit?: 'per-call' | 'per-turn' | 'single';
  /** replay calls the log records as failed or without an outcome too */
  includeFailed?: boolean;
  /** `OLD=NEW`: the session's directory OLD is the repository's directory NEW */
  maps?: string[];
  /** check every entry, write nothing */
  dryRun?: boolean;
  /** after a stop: retry the entry it stopped at, or drop it */
  resume?: 'continue' | 'skip';
  /** patchtx's export: keep the recorded message, author and committer (so the commit ids) */
  keepMetadata?: boolean;
  author?: string;
  committer?: string;
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  /** bounds on the log, the patches and matching work, each a positive whole number */
  limits?: Partial<Limits>;
  /** told of every entry as it is done */
  onEntry?: (entry: ReplayEntryResult, progress: { done: number; total: number }) => void;
}

const KEYS = [
  'name',
  'format',
  'ref',
  'base',
  'commit',
  'includeFailed',
  'maps',
  'dryRun',
  'resume',
  'keepMetadata',
  'author',
  'committer',
  'dirty',
  'strict',
  'limits',
  'onEntry',
] as const;
const FORMATS: readonly LogFormat[] = ['codex-rollout', 'responses-items', 'patchtx-export', 'patch'];

/** The log as text: an array of export records becomes JSON lines, any other array a JSON array. */
function logText(log: unknown): string {
  if (typeof log === 'string') return log;
  if (!Array.isArray(log)) throw usageError(`replay: the log must be a string (its text) or an array of items, got ${describeValue(log)}`);
  const isRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'patchtx_transaction';
  if (log.length > 0 && log.every(isRecord)) return log.map((r) => JSON.stringify(r)).join('\n') + '\n';
  return JSON.stringify(log);
}

export async function replay(place: Place, log: unknown, options: ReplayOptions = {}): Promise<ReplaySummary> {
  const fn = 'replay';
  const text = logText(log);
  const o = readOptionsObject(fn, options, KEYS);
  if (o.onEntry !== undefined && typeof o.onEntry !== 'function')
    throw usageError(`replay: options.onEntry must be a function, got ${describeValue(o.onEntry)}`, { option: 'onEntry' });
  const name = optionalString(fn, 'name', o.name) ?? 'log';
  if (name === '' || name === '-') throw usageError(`replay: options.name must name the log, got '${name}'`, { option: 'name' });
  const opts = {
    ...sessionAt(place),
    logs: [{ name, text }],
    format: optionalChoice(fn, 'format', o.format, FORMATS),
    ref: optionalString(fn, 'ref', o.ref),
    base: optionalString(fn, 'base', o.base),
    grouping: optionalChoice(fn, 'commit', o.commit, GROUPINGS),
    includeFailed: optionalBoolean(fn, 'includeFailed', o.includeFailed),
    maps: optionalStringArray(fn, 'maps', o.maps),
    dryRun: optionalBoolean(fn, 'dryRun', o.dryRun),
    resume: optionalChoice(fn, 'resume', o.resume, ['continue', 'skip'] as const),
    keepMetadata: optionalBoolean(fn, 'keepMetadata', o.keepMetadata),
    author: optionalString(fn, 'author', o.author),
    committer: optionalString(fn, 'committer', o.committer),
    dirty: optionalChoice(fn, 'dirty', o.dirty, ['refuse', 'include'] as const),
    strict: optionalBoolean(fn, 'strict', o.strict),
    limits: readLimits(fn, o.limits),
    onEntry: o.onEntry as ReplayOptions['onEntry'],
  };
  return settled(() => replayLogs(opts));
}
