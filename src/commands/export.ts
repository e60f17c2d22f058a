// `patchtx export [REVISION-RANGE]`: the patchtx transactions of a branch's first-parent history,
// oldest first, each as a record (export-record.ts) that `patchtx replay` applies again. A range
// `A..B` takes the commits of B's first-parent history down to the first one A reaches; one
// revision, its whole history; none, the checked-out branch's (or --ref's). Commits in the range
// that a replay cannot bring back (not made by patchtx, or without their patch text) are named
// in warnings: a replay of the export then stops where its tree differs.
import { PatchtxError } from '../errors.js';
import { readNoteIn, readNotesTree } from '../git/refs/notes.js';
import { resolveRevision } from '../git/refs/refs.js';
import type { ObjectStore } from '../git/objects/store.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import { firstParents, HISTORY_LIMIT, patchtxInfo } from '../tx/history.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { resolveTarget } from '../tx/target.js';
import { transactionRecord } from './export-record.js';

export interface ExportOptions extends SessionOptions {
  /** `A..B`, `REV`, or absent (the branch's whole history) */
  range?: string;
}

export interface ExportResult {
  records: ExportRecord[];
  /** commits of the range the records leave out, and why */
  warnings: string[];
}

/** Every commit `oid` reaches (all parents), bounded as the history walks are. */
async function reachable(store: ObjectStore, oid: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [oid];
  while (queue.length > 0 && seen.size < HISTORY_LIMIT * 10) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    try {
      queue.push(...(await store.readCommit(next)).parents);
    } catch (e) {
      // a shallow clone's boundary: its parents are not here
      if (e instanceof PatchtxError && e.kind === 'missing_object') continue;
      throw e;
    }
  }
  return seen;
}

async function endpoints(s: Session, opts: ExportOptions): Promise<{ tip: string | null; exclude: Set<string> }> {
  const range = opts.range;
  if (range === undefined || range === '') return { tip: (await resolveTarget(s, { ref: opts.ref, readOnly: true })).oldOid, exclude: new Set() };
  if (range.includes('...'))
    throw new PatchtxError('usage', `export takes A..B or one revision, not a symmetric range ('${range}')`, { option: 'range', value: range });
  const dots = range.indexOf('..');
  if (dots < 0) return { tip: await resolveRevision(s.store, s.repo, range), exclude: new Set() };
  const from = range.slice(0, dots) || 'HEAD';
  const to = range.slice(dots + 2) || 'HEAD';
  const tip = await resolveRevision(s.store, s.repo, to);
  return { tip, exclude: await reachable(s.store, await resolveRevision(s.store, s.repo, from)) };
}

export async function exportTransactions(opts: ExportOptions): Promise<ExportResult> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (s) => {
    const { tip, exclude } = await endpoints(s, opts);
    const notes = await readNotesTree(s.store, s.repo, NOTES_REF);
    const records: ExportRecord[] = [];
    const warnings: string[] = [];
    // commits older than the oldest transaction are the base a replay starts from: only those
    // between transactions are worth a word
    let between: string[] = [];
    let walked = 0;
    for await (const { oid, commit, boundary } of firstParents(s.store, tip)) {
      if (exclude.has(oid)) break;
      const short = oid.slice(0, 12);
      const text = patchtxInfo(commit) === null ? null : await readNoteIn(s.store, notes, oid);
      const record = text === null ? null : await transactionRecord(s, oid, commit, text);
      if (record !== null) {
        records.push(record);
        warnings.push(...between);
        between = [];
        if (record.uncommitted)
          warnings.push(`${short} took in uncommitted content besides its patch (${record.uncommitted.join(', ')}): a replay cannot reproduce it`);
      } else if (patchtxInfo(commit) !== null) between.push(`${short} is a patchtx commit without its patch text (${NOTES_REF} not fetched?): left out`);
      else between.push(`${short} was not made by patchtx: left out (a replay of this export does not reproduce it)`);
      if (++walked === HISTORY_LIMIT && commit.parents.length > 0 && !boundary) {
        warnings.push(
          `only the newest ${HISTORY_LIMIT} commits were looked at: older transactions are not exported (export them from the parent of the oldest one exported)`,
        );
        break;
      }
      if (boundary && commit.parents.length > 0) {
        warnings.push(`${short} is where this shallow clone's history ends: older transactions are not exported`);
        break;
      }
    }
    return { records: records.reverse(), warnings: warnings.reverse() };
  });
}
