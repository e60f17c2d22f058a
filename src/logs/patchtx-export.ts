// patchtx's own patch log, as `patchtx export` writes it: one JSON line per transaction, oldest
// first, each a record of the commit (`type: "patchtx_transaction"`). This module holds the
// record's shape and reads such a log back into entries a replay applies; the record goes along
// with its entry, so a replay can check the tree it makes and, when asked, keep the message,
// author and committer (and so the commit id).
import { PatchtxError } from '../errors.js';
import type { ExportRecord, LogEntry } from './types.js';

export type { ExportIdentity, ExportRecord } from './types.js';

export const EXPORT_RECORD_TYPE: ExportRecord['type'] = 'patchtx_transaction';
export const EXPORT_VERSION = 1;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const OID = /^[0-9a-f]{40}$/;

function isIdentity(v: unknown): boolean {
  return isObject(v) && typeof v.name === 'string' && typeof v.email === 'string' && Number.isInteger(v.timestamp) && /^[+-]\d{4}$/.test(String(v.timezone));
}

/** What is wrong with a record, or null when a replay can use it. */
function recordProblem(v: Json): string | null {
  if (v.version !== EXPORT_VERSION) return `version ${JSON.stringify(v.version)} is not one this patchtx reads (${EXPORT_VERSION})`;
  if (typeof v.commit !== 'string' || !OID.test(v.commit)) return 'commit is not a commit id';
  if (typeof v.tree !== 'string' || !OID.test(v.tree)) return 'tree is not a tree id';
  if (typeof v.patch !== 'string' || v.patch === '') return 'patch is missing';
  if (typeof v.message !== 'string' || v.message.trim() === '') return 'message is missing';
  if (typeof v.patchId !== 'string') return 'patchId is missing';
  if (!isIdentity(v.author) || !isIdentity(v.committer)) return 'author or committer is not {name, email, timestamp, timezone}';
  if (v.uncommitted !== undefined && !(Array.isArray(v.uncommitted) && v.uncommitted.every((p) => typeof p === 'string')))
    return 'uncommitted is not a list of paths';
  if (v.gpgsig !== undefined && typeof v.gpgsig !== 'string') return 'gpgsig is not a string';
  return null;
}

/** The entries of an export: one per line, in order; every line must be a record. */
export function readPatchtxExport(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t === '') continue;
    const bad = (why: string): PatchtxError =>
      new PatchtxError('parse_error', `line ${i + 1} of the export: ${why}`, { line: i + 1, format: 'patchtx-export' });
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      throw bad('not JSON');
    }
    if (!isObject(v) || v.type !== EXPORT_RECORD_TYPE) throw bad(`not a ${EXPORT_RECORD_TYPE} record`);
    const problem = recordProblem(v);
    if (problem !== null) throw bad(problem);
    const record = v as unknown as ExportRecord;
    entries.push({
      index: entries.length,
      format: 'patchtx-export',
      callId: record.commit,
      session: null,
      turn: null,
      line: i + 1,
      via: 'patchtx export',
      patch: record.patch,
      cwd: null,
      outcome: 'success',
      record,
    });
  }
  return entries;
}
