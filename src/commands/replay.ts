// `patchtx replay`: the patches of agent logs (Codex session files, Responses API item lists)
// applied to the repository in order, one commit per call. Each commit names its source in
// trailers (Replayed-From, Call-Id); an entry whose Call-Id is already on the branch's
// first-parent history is passed over, so a second run of the same replay writes nothing and a
// run after a failure goes on where the last one stopped. Calls the log records as failed (or
// with no outcome) are left out unless asked for. The replay stops at the first entry that
// fails, with that entry's error, named by its number and call id.
import path from 'node:path';
import { PatchtxError, type ErrorKind } from '../errors.js';
import { readTrailers } from '../git/objects/model/trailers.js';
import { readLog } from '../logs/read-log.js';
import type { LogEntry, LogFormat } from '../logs/types.js';
import type { Limits } from '../patch/limits.js';
import { firstParents } from '../tx/history.js';
import { openSession, withSession, type Session, type SessionOptions } from '../tx/session.js';
import { resolveRevision } from '../git/refs/refs.js';
import { resolveTarget } from '../tx/target.js';
import { applyTransaction } from './apply.js';
import { DryReplay } from './replay-dry.js';
import { exportCommitOptions, refuseUnreproducible } from './replay-export.js';
import { groupEntries, groupTrailers, type Grouping } from './replay-groups.js';
import { entryName, mappedEntry, parseMaps, type DirectoryMap } from './replay-paths.js';
import { compareWithRecorded, type ReplayedFiles } from './replay-verify.js';
import { readReplayState, writeReplayState, type ReplayState } from './replay-state.js';

export const REPLAYED_FROM_TRAILER = 'Replayed-From';
export const CALL_ID_TRAILER = 'Call-Id';
/** a replayed entry of patchtx's export: the commit it came from */
export const REPLAYED_COMMIT_TRAILER = 'Replayed-Commit';

export interface ReplayLog {
  /** the file name as given ('-': standard input) */
  name: string;
  text: string;
}

export interface ReplayOptions extends SessionOptions {
  logs: ReplayLog[];
  format?: LogFormat;
  /** replay calls the log records as failed or without an outcome too */
  includeFailed?: boolean;
  /** `OLD=NEW`: the session's directory OLD is the repository's directory NEW */
  maps?: string[];
  /** check every entry, write nothing */
  dryRun?: boolean;
  /** after a stop: `continue` retries the entry it stopped at, `skip` drops it for good */
  resume?: 'continue' | 'skip';
  author?: string;
  committer?: string;
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  limits?: Partial<Limits>;
  /** the commit to start a branch (`ref`) that does not exist yet from */
  base?: string;
  /** how entries become commits (default: per call; Responses items: per response) */
  grouping?: Grouping;
  /** patchtx's export: each commit keeps the recorded message, author and committer (so its id) */
  keepMetadata?: boolean;
  /** told of every entry as it is done (the failed one before the replay throws) */
  onEntry?: (result: ReplayEntryResult, progress: { done: number; total: number }) => void;
}

export type ReplayStatus = 'applied' | 'checked' | 'skipped' | 'failed';

export interface ReplayEntryResult {
  log: string;
  /** 1-based, among the entries of its log */
  entry: number;
  callId: string | null;
  /** the Call-Id trailer of its commit: the call id (`ID#K` for the K-th patch of one call), or `SOURCE#N` for a call without one */
  key: string;
  status: ReplayStatus;
  /** why a skipped entry was not applied */
  reason?: 'already_replayed' | 'not_successful' | 'skipped_after_failure' | 'no_changes';
  /** the new commit (applied), or null */
  commit: string | null;
  error?: { kind: ErrorKind; message: string };
}

export interface ReplaySummary {
  ok: true;
  dryRun: boolean;
  total: number;
  applied: number;
  checked: number;
  skipped: number;
  /** the branch's commit after the replay */
  head: string | null;
  entries: ReplayEntryResult[];
}

interface Planned {
  log: ReplayLog;
  entry: LogEntry;
  source: string;
  key: string;
}

/** The name a log's commits carry: its session id, else the file's name. */
const sourceOf = (log: ReplayLog, entry: LogEntry): string => entry.session ?? (log.name === '-' ? 'stdin' : path.basename(log.name));

function planEntries(opts: ReplayOptions): Planned[] {
  const out: Planned[] = [];
  for (const log of opts.logs) {
    let entries: LogEntry[];
    try {
      entries = readLog(log.text, opts.format);
    } catch (e) {
      throw e instanceof PatchtxError ? new PatchtxError(e.kind, `${log.name}: ${e.message}`, { ...e.data, log: log.name }) : e;
    }
    // a code-mode call can make several apply_patch calls under one call id: the second and later
    // are told apart by their number among that id's patches
    const seen = new Map<string, number>();
    for (const entry of entries) {
      const source = sourceOf(log, entry);
      const n = entry.callId === null ? 0 : (seen.get(entry.callId) ?? 0) + 1;
      if (entry.callId !== null) seen.set(entry.callId, n);
      const key = entry.callId === null ? `${source}#${entry.index + 1}` : n === 1 ? entry.callId : `${entry.callId}#${n}`;
      out.push({ log, entry, source, key });
    }
  }
  return out;
}

/**
 * Call-Id and Replayed-Commit trailers on the branch's first-parent history, and its commit ids
 * (an export replayed with its metadata makes the very commits it records), bounded as log and
 * undo are.
 */
async function replayedKeys(opts: ReplayOptions): Promise<{ keys: Set<string>; tip: string | null; tipTree: string | null }> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const start = await startOf(session, opts);
    const keys = new Set<string>();
    let tipTree: string | null = null;
    for await (const { oid, commit } of firstParents(session.store, start)) {
      if (oid === start) tipTree = commit.tree;
      keys.add(oid);
      for (const t of readTrailers(commit.message)) if (t.key === CALL_ID_TRAILER || t.key === REPLAYED_COMMIT_TRAILER) keys.add(t.value);
    }
    return { keys, tip: start, tipTree };
  });
}

/** The commit the replay goes on from: the branch's tip, or for a branch yet to make, its base. */
async function startOf(session: Session, opts: ReplayOptions): Promise<string | null> {
  try {
    return (await resolveTarget(session, { ref: opts.ref, readOnly: true })).oldOid;
  } catch (e) {
    if (!(e instanceof PatchtxError && e.kind === 'bad_revision' && opts.base !== undefined)) throw e;
    return resolveRevision(session.store, session.repo, opts.base);
  }
}

/** The entry's patch at the repository root and, when its log records the changes it made, their check. */
function verifiedEntry(entry: LogEntry, maps: readonly DirectoryMap[], limits?: Partial<Limits>): { patch: string; verify?: (files: ReplayedFiles) => void } {
  const { patch, at } = mappedEntry(entry, maps, limits);
  const recorded = entry.recorded;
  return recorded ? { patch, verify: (files) => compareWithRecorded(recorded, at, files) } : { patch };
}

/** The entry's error, saying which entry of which log it was. */
function entryError(e: unknown, p: Planned): unknown {
  if (!(e instanceof PatchtxError)) return e;
  const message = e.message.startsWith(`${entryName(p.entry)}:`) ? e.message : `${entryName(p.entry)}: ${e.message}`;
  return new PatchtxError(e.kind, `${p.log.name}, ${message}`, { ...e.data, log: p.log.name, entry: p.entry.index + 1, callId: p.entry.callId });
}

/** The error of a commit of several entries, naming them all (its data: the first, and `entries`). */
function groupError(e: unknown, group: readonly Planned[]): unknown {
  if (!(e instanceof PatchtxError)) return e;
  const first = group[0]!;
  const turn = first.entry.turn === null ? '' : ` (turn ${first.entry.turn})`;
  const names = `entries ${group.map((p) => p.entry.index + 1).join(', ')}${turn}, one commit`;
  return new PatchtxError(e.kind, `${first.log.name}, ${names}: ${e.message}`, {
    ...e.data,
    log: first.log.name,
    entry: first.entry.index + 1,
    entries: group.map((p) => p.entry.index + 1),
    callId: first.entry.callId,
  });
}

/** What the state says about a run that resumes (or a run that must not start over a stop). */
function resumeState(opts: ReplayOptions, state: ReplayState): ReplayState {
  if (opts.resume === undefined) return state;
  if (state.stopped === null)
    throw new PatchtxError('usage', 'no replay stopped in this repository: there is nothing to continue or skip', { option: opts.resume });
  if (opts.resume === 'skip') return { stopped: null, skipped: [...state.skipped, ...(state.stopped.keys ?? [state.stopped.key])] };
  return { ...state, stopped: null };
}

/** --keep-metadata is for patchtx's export, and keeps its identities. */
function checkKeepMetadata(opts: ReplayOptions, planned: readonly Planned[]): void {
  if (!opts.keepMetadata) return;
  if (opts.author !== undefined || opts.committer !== undefined)
    throw new PatchtxError('usage', 'keeping the recorded metadata keeps the recorded author and committer: none can be given besides', {
      option: 'keepMetadata',
    });
  const other = planned.find((p) => p.entry.record === undefined);
  if (other !== undefined)
    throw new PatchtxError('usage', `${other.log.name} is not a patchtx export: only an export records the metadata to keep`, {
      option: 'keepMetadata',
      log: other.log.name,
    });
}

export async function replayLogs(opts: ReplayOptions): Promise<ReplaySummary> {
  const maps: DirectoryMap[] = parseMaps(opts.maps ?? []);
  const planned = planEntries(opts);
  checkKeepMetadata(opts, planned);
  const { keys, tip, tipTree } = await replayedKeys(opts);
  const state = await withSession({ ...opts, noRecover: true }, async (s) => {
    const resumed = resumeState(opts, readReplayState(s.repo));
    if (!opts.dryRun && opts.resume !== undefined) writeReplayState(s.repo, resumed);
    return { value: resumed, save: (next: ReplayState) => writeReplayState(s.repo, next) };
  });
  const skipped = new Set(state.value.skipped);
  const session = opts.dryRun ? await openSession({ ...opts, noRecover: true }) : null;
  const dry = session ? new DryReplay(session, tipTree, opts) : null;
  const results: ReplayEntryResult[] = [];
  let head = tip;
  let treeBefore = tipTree;
  let onto = opts.base;
  const done = (r: ReplayEntryResult): void => {
    results.push(r);
    opts.onEntry?.(r, { done: results.length, total: planned.length });
  };
  const baseOf = (p: Planned) => ({ log: p.log.name, entry: p.entry.index + 1, callId: p.entry.callId, key: p.key, commit: null });
  try {
    for (const group of groupEntries(planned, opts.grouping)) {
      // the group's entries still to apply; the others are reported as skipped
      const active: Planned[] = [];
      for (const p of group) {
        if (keys.has(p.key)) done({ ...baseOf(p), status: 'skipped', reason: 'already_replayed' });
        else if (skipped.has(p.key)) done({ ...baseOf(p), status: 'skipped', reason: 'skipped_after_failure' });
        else if (p.entry.outcome !== 'success' && !opts.includeFailed) done({ ...baseOf(p), status: 'skipped', reason: 'not_successful' });
        else active.push(p);
      }
      if (active.length === 0) continue;
      // the entry an error is reported at: in a dry run the one checked, else the group's first
      let failing = active[0]!;
      let applying = false;
      try {
        const record = active.length === 1 ? active[0]!.entry.record : undefined;
        if (record) refuseUnreproducible(record);
        const mapped: { patch: string; verify?: (files: ReplayedFiles) => void }[] = [];
        for (const p of active) {
          failing = p;
          mapped.push(p.entry.record ? { patch: p.entry.record.patch } : verifiedEntry(p.entry, maps, opts.limits));
        }
        const texts = mapped.map((m) => m.patch);
        failing = active[0]!;
        if (dry) {
          for (const [i, p] of active.entries()) {
            failing = p;
            await dry.check(texts[i]!, mapped[i]!.verify);
            done({ ...baseOf(p), status: 'checked' });
          }
          continue;
        }
        const { cwd, repoDir, env, author, committer, dirty, strict, limits, ref } = opts;
        const how = record
          ? exportCommitOptions(record, {
              keep: opts.keepMetadata === true,
              source: active[0]!.source,
              treeBefore,
              replayedFromTrailer: REPLAYED_FROM_TRAILER,
              replayedCommitTrailer: REPLAYED_COMMIT_TRAILER,
            })
          : { trailers: groupTrailers(active, REPLAYED_FROM_TRAILER, CALL_ID_TRAILER) };
        applying = true;
        const result = await applyTransaction({
          ...{ cwd, repoDir, env, author, committer, dirty, strict, limits, ref, base: onto },
          patchText: texts[0]!,
          laterPatches: texts.slice(1),
          check: false,
          // a commit of several calls is one result: only a single call's is compared with its log
          ...(active.length === 1 && mapped[0]!.verify ? { verify: mapped[0]!.verify } : {}),
          ...how,
        });
        treeBefore = result.tree;
        if (result.commit !== null) head = result.commit;
        // --base is where the branch starts: later entries go on from the branch itself
        if (result.commit !== null && onto !== undefined) onto = result.commit;
        for (const p of active) {
          done({
            ...baseOf(p),
            status: result.commit === null ? 'skipped' : 'applied',
            commit: result.commit,
            ...(result.commit === null ? { reason: 'no_changes' as const } : {}),
          });
        }
      } catch (e) {
        const whole = applying && active.length > 1;
        const err = whole ? groupError(e, active) : entryError(e, failing);
        if (err instanceof PatchtxError) done({ ...baseOf(failing), status: 'failed', error: { kind: err.kind, message: err.message } });
        const stopped = { key: failing.key, entry: failing.entry.index + 1, log: failing.log.name, keys: (whole ? active : [failing]).map((p) => p.key) };
        if (!opts.dryRun) state.save({ stopped, skipped: [...skipped] });
        throw err;
      }
    }
  } finally {
    session?.store.close();
  }
  if (!opts.dryRun && state.value.stopped !== null) state.save({ stopped: null, skipped: [...skipped] });
  const count = (s: ReplayStatus): number => results.filter((r) => r.status === s).length;
  return {
    ok: true,
    dryRun: opts.dryRun === true,
    total: planned.length,
    applied: count('applied'),
    checked: count('checked'),
    skipped: count('skipped'),
    head,
    entries: results,
  };
}
