// The library's way into the transaction: `await openRepository({ dir })` finds the repository the
// way the CLI does (a checkout or any directory in it, a bare repository, a linked worktree) and
// returns an object whose methods are the commands: apply, check, undo, redo, log, show, record, recover,
// push, replay, begin (a transaction of several steps landed as one commit) and edit (edit operations).
// The object keeps what it has read between its calls (the configuration, the parsed index, pack
// indexes and open packs, trees) and checks all of it cheaply before each call (tx/warm.ts, opened
// by commands/open.ts), so that a change made meanwhile by git, the user or another process is
// always seen; close() releases the open pack files and what was kept. Each call returns the
// object the CLI prints with --json, or throws a PatchtxError of the kind the CLI maps to its exit
// code.
import path from 'node:path';
import type { ApplyJson, LogEntryJson, RecoverJson, UndoJson } from '../commands/results.js';
import { openRepositoryAt } from '../commands/open.js';
import { apply, type ApplyAndPushOptions, type AppliedJson, type ApplyOptions } from './apply.js';
import { begin, type BeginOptions, type Transaction } from './begin.js';
import { describeValue, readOptionsObject, usageError } from './args.js';
import { check } from './check.js';
import { edit, type EditOptions } from './edit.js';
import type { EditOp } from '../edits/ops.js';
import { log, type LogOptions } from './log.js';
import { settled, type Place } from './place.js';
import { recover } from './recover.js';
import { redo, type RedoOptions } from './redo.js';
import { replay, type ReplayOptions, type ReplaySummary } from './replay.js';
import { push, type PushJson, type PushOptions } from './push.js';
import { record } from './record.js';
import { show, type ShowOptions } from './show.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import { undo, type UndoOptions } from './undo.js';

export interface OpenRepositoryOptions {
  /** a directory of the repository: its working tree or any directory in it, a bare repository, a linked worktree */
  dir: string;
}

export interface Repository {
  /** the directory the repository was opened from, absolute */
  readonly dir: string;
  /** the git directory of this checkout (a linked worktree's own) */
  readonly gitdir: string;
  /** the working tree's root; null for a bare repository */
  readonly workdir: string | null;
  /** with `push`, the branch is then pushed as `apply --push` pushes it (the result's `pushed`) */
  apply(patchText: string, options?: ApplyAndPushOptions): Promise<AppliedJson>;
  check(patchText: string, options?: ApplyOptions): Promise<ApplyJson>;
  undo(options?: UndoOptions): Promise<UndoJson>;
  redo(options?: RedoOptions): Promise<UndoJson>;
  log(options?: LogOptions): Promise<LogEntryJson[]>;
  /** the patch text `commit` was made from; `regenerate`: made from its diff when none is stored */
  show(commit: string, options?: ShowOptions): Promise<string>;
  /** the transaction's record, as `patchtx show --json` prints it (marked `regenerated` when it was) */
  record(commit: string, options?: ShowOptions): Promise<ExportRecord>;
  recover(): Promise<RecoverJson>;
  /** the branch and the patch texts sent to a remote, under a lease, as `patchtx push` sends them */
  push(options?: PushOptions): Promise<PushJson>;
  /** a transaction of several steps, each seeing the ones before, landed by commit() as one commit */
  begin(options?: BeginOptions): Promise<Transaction>;
  /**
   * Releases the open pack files and everything kept between calls. The object stays usable: a
   * later call reads what it needs again. A call running meanwhile keeps its own until it ends.
   */
  close(): void;
  /** the patches of a log (its text, or an array of items or export records), a commit per call */
  replay(log: string | readonly unknown[], options?: ReplayOptions): Promise<ReplaySummary>;
  /** edit operations applied in order as one commit (with `check`: nothing written) */
  edit(ops: EditOp | readonly EditOp[], options?: EditOptions): Promise<ApplyJson>;
}

export async function openRepository(options: OpenRepositoryOptions): Promise<Repository> {
  const o = readOptionsObject('openRepository', options, ['dir']);
  if (typeof o.dir !== 'string' || o.dir === '') {
    const got = typeof o.dir === 'string' ? 'an empty string' : describeValue(o.dir);
    throw usageError(`openRepository: options.dir must be a non-empty string (a directory of the repository), got ${got}`, { option: 'dir' });
  }
  const dir = path.resolve(o.dir);
  // found now, so that a directory outside any repository is an error here rather than at each call
  const { gitdir, workdir, warm } = await settled(() => openRepositoryAt(dir));
  const place: Place = { dir, warm };
  return Object.freeze({
    dir: place.dir,
    gitdir,
    workdir,
    apply: (patchText: string, opts?: ApplyAndPushOptions) => apply(place, patchText, opts),
    check: (patchText: string, opts?: ApplyOptions) => check(place, patchText, opts),
    undo: (opts?: UndoOptions) => undo(place, opts),
    redo: (opts?: RedoOptions) => redo(place, opts),
    log: (opts?: LogOptions) => log(place, opts),
    show: (commit: string, opts?: ShowOptions) => show(place, commit, opts),
    record: (commit: string, opts?: ShowOptions) => record(place, commit, opts),
    recover: () => recover(place),
    push: (opts?: PushOptions) => push(place, opts),
    begin: (opts?: BeginOptions) => begin(place, opts),
    close: () => warm.close(),
    replay: (log: string | readonly unknown[], opts?: ReplayOptions) => replay(place, log, opts),
    edit: (ops: EditOp | readonly EditOp[], opts?: EditOptions) => edit(place, ops, opts),
  });
}
