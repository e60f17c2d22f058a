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
import { PATCH_ID_TRAILER } from '../tx/message.js';
import { readLog } from '../logs/read-log.js';
import type { LogEntry, LogFormat } from '../logs/types.js';
import type { Limits } from '../patch/limits.js';
import { firstParents } from '../tx/history.js';
import { openSession, withSession, type Session, type SessionOptions } from '../tx/session.js';
import { resolveRevision } from '../git/refs/refs.js';
import { resolveTarget } from '../tx/target.js';
import { WarmRepository } from '../tx/warm.js';
import { applyTransaction } from './apply.js';
import { DryReplay } from './replay-dry.js';
import { exportCommitOptions, refuseUnreproducible } from './replay-export.js';
import { groupEntries, groupTrailers, type Grouping } from './replay-groups.js';
import { entryName, mappedEntry, parseMaps, repositoryPatch, type DirectoryMap } from './replay-paths.js';
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
      for (const t of readTrailers(commit.message)) {
        if (t.key === CALL_ID_TRAILER || t.key === REPLAYED_COMMIT_TRAILER) keys.add(t.value);
        if (t.key === PATCH_ID_TRAILER) keys.add(keptKey(t.value, commit.author));
      }
    }
    return { keys, tip: start, tipTree };
  });
}

/**
 * An export entry replayed with its metadata onto another parent makes another commit id, with
 * the recorded Patch-Id and author: those find it on the branch.
 */
const keptKey = (patchId: string, author: { email: string; timestamp: number }): string => `kept ${patchId} ${author.email} ${author.timestamp}`;

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

/** A replay under way: what it knows of the branch and what it has done so far. */
interface Run {
  opts: ReplayOptions;
  maps: DirectoryMap[];
  keys: Set<string>;
  skipped: Set<string>;
  dry: DryReplay | null;
  results: ReplayEntryResult[];
  total: number;
  head: string | null;
  /** the tree the next entry applies onto */
  treeBefore: string | null;
  /** --base, then each new commit: where the next entry applies */
  onto: string | undefined;
}

type Mapped = { patch: string; verify?: (files: ReplayedFiles) => void };

const resultOf = (p: Planned) => ({ log: p.log.name, entry: p.entry.index + 1, callId: p.entry.callId, key: p.key, commit: null });

function report(run: Run, r: ReplayEntryResult): void {
  run.results.push(r);
  run.opts.onEntry?.(r, { done: run.results.length, total: run.total });
}

/** The group's entries still to apply; the others are reported as skipped. */
function entriesToApply(run: Run, group: readonly Planned[]): Planned[] {
  const active: Planned[] = [];
  for (const p of group) {
    const kept = p.entry.record && run.opts.keepMetadata ? keptKey(p.entry.record.patchId, p.entry.record.author) : null;
    if (run.keys.has(p.key) || (kept !== null && run.keys.has(kept))) report(run, { ...resultOf(p), status: 'skipped', reason: 'already_replayed' });
    else if (run.skipped.has(p.key)) report(run, { ...resultOf(p), status: 'skipped', reason: 'skipped_after_failure' });
    else if (p.entry.outcome !== 'success' && !run.opts.includeFailed) report(run, { ...resultOf(p), status: 'skipped', reason: 'not_successful' });
    else active.push(p);
  }
  return active;
}

/** One commit of the group's entries (their patches in order); reports each. */
async function commitEntries(run: Run, active: readonly Planned[], mapped: readonly Mapped[]): Promise<void> {
  const { opts } = run;
  const record = active.length === 1 ? active[0]!.entry.record : undefined;
  const how = record
    ? exportCommitOptions(record, {
        keep: opts.keepMetadata === true,
        source: active[0]!.source,
        treeBefore: run.treeBefore,
        replayedFromTrailer: REPLAYED_FROM_TRAILER,
        replayedCommitTrailer: REPLAYED_COMMIT_TRAILER,
        limits: opts.limits,
      })
    : { trailers: groupTrailers(active, REPLAYED_FROM_TRAILER, CALL_ID_TRAILER) };
  const { cwd, repoDir, env, warm, author, committer, dirty, strict, limits, ref } = opts;
  const result = await applyTransaction({
    ...{ cwd, repoDir, env, warm, author, committer, dirty, strict, limits, ref, base: run.onto },
    patchText: mapped[0]!.patch,
    laterPatches: mapped.slice(1).map((m) => m.patch),
    check: false,
    // a commit of several calls is one result: only a single call's is compared with its log
    ...(active.length === 1 && mapped[0]!.verify ? { verify: mapped[0]!.verify } : {}),
    ...how,
  });
  run.treeBefore = result.tree;
  if (result.commit !== null) run.head = result.commit;
  // --base is where the branch starts: later entries go on from the branch itself
  if (result.commit !== null && run.onto !== undefined) run.onto = result.commit;
  for (const p of active) {
    const noop = result.commit === null;
    report(run, { ...resultOf(p), status: noop ? 'skipped' : 'applied', commit: result.commit, ...(noop ? { reason: 'no_changes' as const } : {}) });
  }
}

/**
 * Applies (or in a dry run checks) a group's entries; on a failure, reports it, keeps where the
 * replay stopped and throws the error, naming the entry (or every entry of a failed commit).
 */
async function replayGroup(run: Run, active: readonly Planned[], saveStop: (stopped: NonNullable<ReplayState['stopped']>) => void): Promise<void> {
  // the entry an error is reported at: the one being read or checked, else the whole commit
  let failing = active[0]!;
  let committing = false;
  try {
    const record = active.length === 1 ? active[0]!.entry.record : undefined;
    if (record) refuseUnreproducible(record);
    const mapped: Mapped[] = [];
    for (const p of active) {
      failing = p;
      mapped.push(p.entry.record ? { patch: p.entry.record.patch } : verifiedEntry(p.entry, run.maps, run.opts.limits));
    }
    if (run.dry) {
      for (const [i, p] of active.entries()) {
        failing = p;
        // a kept note may be an apply_patch invocation: the check plans the patch it holds
        const text = p.entry.record ? repositoryPatch(p.entry, [], run.opts.limits) : mapped[i]!.patch;
        await run.dry.check(text, mapped[i]!.verify);
        report(run, { ...resultOf(p), status: 'checked' });
      }
      return;
    }
    failing = active[0]!;
    committing = true;
    await commitEntries(run, active, mapped);
  } catch (e) {
    const whole = committing && active.length > 1;
    const err = whole ? groupError(e, active) : entryError(e, failing);
    if (err instanceof PatchtxError) report(run, { ...resultOf(failing), status: 'failed', error: { kind: err.kind, message: err.message } });
    if (!run.opts.dryRun)
      saveStop({ key: failing.key, entry: failing.entry.index + 1, log: failing.log.name, keys: (whole ? active : [failing]).map((p) => p.key) });
    throw err;
  }
}

/**
 * The replay's sessions (the scan for entries already replayed, the state file, every entry's
 * transaction) all go through one repository kept open between them (tx/warm.ts): the
 * configuration, the parsed index, the pack indexes and the trees read by one entry serve the
 * next, each checked before it as between a repository object's calls, so that a change made
 * meanwhile is seen. A caller's own (the library's repository object) is used and left open;
 * otherwise one is made for the replay and closed at its end.
 */
export async function replayLogs(opts: ReplayOptions): Promise<ReplaySummary> {
  if (opts.warm !== undefined) return replayWarm(opts);
  const warm = new WarmRepository();
  try {
    return await replayWarm({ ...opts, warm });
  } finally {
    warm.close();
  }
}

async function replayWarm(opts: ReplayOptions): Promise<ReplaySummary> {
  const maps: DirectoryMap[] = parseMaps(opts.maps ?? []);
  const planned = planEntries(opts);
  checkKeepMetadata(opts, planned);
  const groups = groupEntries(planned, opts.grouping);
  const { keys, tip, tipTree } = await replayedKeys(opts);
  const state = await withSession({ ...opts, noRecover: true }, async (s) => {
    const resumed = resumeState(opts, readReplayState(s.repo));
    if (!opts.dryRun && opts.resume !== undefined) writeReplayState(s.repo, resumed);
    return { value: resumed, save: (next: ReplayState) => writeReplayState(s.repo, next) };
  });
  const skipped = new Set(state.value.skipped);
  const session = opts.dryRun ? await openSession({ ...opts, noRecover: true }) : null;
  const run: Run = {
    opts,
    maps,
    keys,
    skipped,
    dry: session ? new DryReplay(session, tipTree, opts) : null,
    results: [],
    total: planned.length,
    head: tip,
    treeBefore: tipTree,
    onto: opts.base,
  };
  try {
    for (const group of groups) {
      const active = entriesToApply(run, group);
      if (active.length > 0) await replayGroup(run, active, (stopped) => state.save({ stopped, skipped: [...skipped] }));
    }
  } finally {
    // gives a kept store back (closing it would leave the warm repository believing it lent)
    session?.close();
  }
  if (!opts.dryRun && state.value.stopped !== null) state.save({ stopped: null, skipped: [...skipped] });
  const count = (s: ReplayStatus): number => run.results.filter((r) => r.status === s).length;
  return {
    ok: true,
    dryRun: opts.dryRun === true,
    total: planned.length,
    applied: count('applied'),
    checked: count('checked'),
    skipped: count('skipped'),
    head: run.head,
    entries: run.results,
  };
}
