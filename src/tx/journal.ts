// The transaction journal: <gitdir>/patchtx/journal.json for a transaction on the working tree,
// one file per ref for a transaction that touches no working tree (journal-place.ts says where).
//
// It is created exclusively (see createJournal) before anything is locked or published and removed
// when the working tree and index are in line again, so it doubles as patchtx's lock per checkout
// (or per ref): a second patchtx there sees it and reports `stale` instead of interleaving. Its `state` tells the
// next patchtx (or `patchtx recover`) what an interrupted run left behind:
//   prepared   nothing published yet: drop our locks, the repository is at the old state
//   published  the ref may have moved: if it points at `newOid` (or is gone, for a `newOid` of
//              DELETED_REF: an undo of a first commit), finish the note, working tree and index
//              for `paths`; otherwise the run did not land and is dropped
import { closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Repository } from '../git/repo/repository.js';
import { shouldFsync } from '../git/repo/fsync-policy.js';
import { mkdirpSync } from '../git/fs/fsx.js';
import { fsError } from '../git/fs/io-error.js';
import { removeWitness } from '../git/fs/lock-file.js';
import { PatchtxError } from '../errors.js';
import { clock, timed } from '../timing.js';
import { crashPoint } from './crash.js';
import { journalFileOf } from './journal-place.js';
import { markOfThisProcess, markText, parseMark, processAlive, type ProcessMark } from './liveness.js';
import { heldHere, holdHere, releaseHere } from './running-here.js';

export interface Journal {
  version: 1;
  /** unique per transaction (journals written before it existed: pid and startedAt stand in) */
  id?: string;
  pid: number;
  /** what identifies the process beyond its pid (markText in liveness.ts; absent in older journals) */
  mark?: string;
  startedAt: string;
  op: 'apply' | 'undo' | 'redo';
  state: 'prepared' | 'published';
  ref: string;
  oldOid: string | null;
  newOid: string | null;
  /** sync the working tree and index of this checkout for `paths` once published */
  worktree: boolean;
  /** journaled in its ref's file, not the checkout's (journal-place.ts; absent in older journals) */
  perRef?: boolean;
  paths: string[];
  /**
   * What the run found in the working tree at each of `paths` (same order) before it wrote
   * anything: the object id of the file's (or symlink's) content, null for nothing there, false
   * when not recorded (a directory, say). Recovery leaves a file alone that holds anything else
   * (work done after the run died); an unrecorded path is written as before. An array, not an
   * object keyed by path: on a 1,000-file patch the object cost about 8 ms to write.
   */
  found?: Array<string | null | false>;
  /** lock files this run may hold (absolute paths), removed by recovery of a dead run */
  locks: string[];
  /** git note to attach to newOid (the original patch text): `blob` holds the text (written with
   * the commit; the text itself is not kept here, so the journal stays small whatever the patch's
   * size; journals of older versions have `text`); `written`: the notes commit the run wrote for
   * it, on top of the notes ref's value then */
  note?: { ref: string; blob?: string; text?: string; written?: { commit: string; parent: string | null }; attach?: { path: string; tree: string } };
  /** undo of the tip: the undone commit, whose saved uncommitted work (saved.ts) the paths get */
  restore?: string;
  /** redo-stack change to make once published */
  redo?: { push?: string; pop?: boolean; clear?: boolean };
}

function writeAll(repo: Repository, fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off);
  if (shouldFsync(repo, 'reference')) {
    const t = clock();
    fsyncSync(fd);
    timed('fsync', t);
  }
}

/** The name of the temporary file process `pid` writes a journal into before publishing it. */
const tempPath = (file: string, pid: number): string => `${file}.${pid}.tmp`;

function writeFileSynced(repo: Repository, file: string, text: string, flags: string): void {
  const fd = openSync(file, flags, 0o644);
  try {
    writeAll(repo, fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates the journal exclusively; an existing one means another run is in flight (or died).
 * The journal is written complete into a temporary file first and then hard-linked to its name
 * (link fails with EEXIST like O_EXCL does), so journal.json never exists half-written: a run
 * killed between creating the file and writing it would otherwise leave an unreadable journal that
 * blocks the checkout (as "a run that is starting") until its grace period is over.
 */
export function createJournal(repo: Repository, journal: Journal): void {
  const file = journalFileOf(repo, journal);
  const tmp = tempPath(file, process.pid);
  try {
    mkdirpSync(path.dirname(file));
    writeFileSynced(repo, tmp, JSON.stringify(journal, null, 2) + '\n', 'w');
  } catch (e) {
    rmSync(tmp, { force: true });
    throw fsError(e, 'write the transaction journal', tmp);
  }
  crashPoint('mid-journal');
  try {
    linkSync(tmp, file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw inProgress(file, journal);
    // a file system without hard links: create it with O_EXCL and write it (the old way)
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw fsError(e, 'create the transaction journal', file);
    try {
      writeFileSynced(repo, file, JSON.stringify(journal, null, 2) + '\n', 'wx');
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') throw inProgress(file, journal);
      throw fsError(e2, 'create the transaction journal', file);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

const inProgress = (file: string, journal: Journal): PatchtxError =>
  new PatchtxError(
    'stale',
    `another patchtx transaction is in progress ${journal.perRef ? `on ${journal.ref}` : 'in this checkout'} (${file} exists); retry, or run 'patchtx recover' if no patchtx is running`,
    { journal: file, ...(journal.perRef ? { ref: journal.ref } : {}) },
  );

/** Replaces the journal atomically (write a sibling, rename over). */
export function updateJournal(repo: Repository, journal: Journal): void {
  const file = journalFileOf(repo, journal);
  const tmp = tempPath(file, process.pid);
  try {
    writeFileSynced(repo, tmp, JSON.stringify(journal, null, 2) + '\n', 'w');
    crashPoint('mid-publish-journal');
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw fsError(e, 'write the transaction journal', file);
  }
}

/**
 * Removes `<file>.<pid>.tmp` siblings whose process is gone: what a run killed between writing a
 * file and renaming it into place leaves behind (the journal, a redo stack).
 */
export function removeDeadTempsOf(file: string): void {
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return;
  }
  const prefix = `${path.basename(file)}.`;
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (m && !processAlive(Number(m[1]))) rmSync(path.join(path.dirname(file), name), { force: true });
  }
}

/**
 * Removes the temporary journal files in `dir` (`journal….<pid>.tmp`: of a journal, or of a
 * recovery claim) of processes that are gone (killed while writing one). `listed`: the names in
 * `dir`, when the caller has just listed it.
 */
export function removeDeadJournalTemps(dir: string, listed?: readonly string[]): void {
  const names = listed ?? namesIn(dir);
  for (const name of names) {
    const m = name.startsWith('journal') ? /\.(\d+)\.tmp$/.exec(name) : null;
    if (m && !processAlive(Number(m[1]))) rmSync(path.join(dir, name), { force: true });
  }
}

/** The names in `dir` (none when it cannot be listed). */
function namesIn(dir: string): readonly string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The directory of `journal`, where its lock witnesses and recovery claims are kept too. */
const dirOf = (repo: Repository, journal: Journal): string => path.dirname(journalFileOf(repo, journal));

/** Where `journal`'s run, of an earlier version, kept a second name of each loose object it wrote (see restoreHeld). */
export function heldObjectsDir(repo: Repository, journal: Journal): string {
  return path.join(dirOf(repo, journal), `objects-${transactionId(journal)}`);
}

/**
 * The witness of a lock file `journal`'s run takes (see src/git/fs/lock-file.ts): a file beside the
 * journal, named after the transaction and the lock, whose inode the lock shares while it is
 * held. Recovery removes a lock the journal lists only when it is its witness's file.
 */
export function lockWitness(repo: Repository, journal: Journal, lockFile: string): string {
  const which = createHash('sha1').update(lockFile).digest('hex').slice(0, 16);
  return path.join(dirOf(repo, journal), `lock-${claimKey(journal)}-${which}.lock`);
}

/** Removes the witnesses of `journal`'s locks (the locks are gone, or not the run's). */
export function removeLockWitnesses(repo: Repository, journal: Journal): void {
  for (const lock of journal.locks) removeWitness(lockWitness(repo, journal, lock));
}

/** What identifies a transaction (in the redo stack's record of the last change, say). */
export function transactionId(journal: Journal): string {
  return journal.id ?? `${journal.pid}-${journal.startedAt}`;
}

/** The text of the .keep file of the pack a transaction writes (see src/git/objects/store.ts). */
export function keepText(journal: Journal): string {
  return `patchtx transaction ${transactionId(journal)}`;
}

// ---------------------------------------------------------------------------------------------
// Recovery claims. Several patchtx commands may start at once in a checkout whose journal was left
// by a dead run; exactly one of them may recover it, or they delete each other's locks (and the
// journal of whoever started next) and break the index. A recoverer claims the journal by hard-
// linking a file holding its pid and mark (liveness.ts) to `recovering-<transaction>.<generation>`
// (link fails if the name exists, and the file is never seen half-written). A claim whose process
// is alive makes the others back off as stale; a claim whose process died (a recovery that was
// itself killed) is passed over to the next generation, so no claim file is ever removed or
// rewritten while its journal exists, and no two live processes can hold claims on one journal.
// The claims go once the journal has.

const CLAIM_PREFIX = 'recovering-';

const claimKey = (journal: Journal): string => transactionId(journal).replace(/[^A-Za-z0-9-]/g, '_');

/** A claim file's text: the claiming process's pid, then its mark (older claims: the pid only). */
const claimText = (): string => `${process.pid} ${markText(markOfThisProcess())}\n`;

interface ClaimHolder {
  pid: number;
  mark: ProcessMark | undefined;
}

function readClaim(file: string): ClaimHolder {
  const text = readFileSync(file, 'utf8');
  const space = text.indexOf(' ');
  return { pid: Number.parseInt(text, 10), mark: space === -1 ? undefined : parseMark(text.slice(space + 1)) };
}

export type RecoveryClaim = { claimed: true; file: string } | { claimed: false; holder: number };

/** Claims the recovery of `journal` for this process (see above), or names the live process that has. */
export function claimRecovery(repo: Repository, journal: Journal): RecoveryClaim {
  const dir = dirOf(repo, journal);
  const tmp = tempPath(journalFileOf(repo, journal), process.pid);
  writeFileSynced(repo, tmp, claimText(), 'w');
  try {
    for (let generation = 0; ; generation++) {
      const file = path.join(dir, `${CLAIM_PREFIX}${claimKey(journal)}.${generation}`);
      try {
        linkSync(tmp, file);
        holdHere(file);
        return { claimed: true, file };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      crashPoint('claim-exists');
      let holder: ClaimHolder;
      try {
        holder = readClaim(file);
      } catch (e) {
        // dropped or removed since the link failed (its recovery gave up, or finished): try this
        // generation again
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        generation--;
        continue;
      }
      if (holder.pid === process.pid ? heldHere(file) : processAlive(holder.pid, holder.mark)) return { claimed: false, holder: holder.pid };
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Gives up one claim (a recovery that could not finish: the next one may try). */
export function dropClaim(claim: RecoveryClaim): void {
  if (!claim.claimed) return;
  rmSync(claim.file, { force: true });
  releaseHere(claim.file);
}

/** Removes every claim on `journal`, once it is gone (ours, and those of recoveries that died). */
export function removeClaimsOn(repo: Repository, journal: Journal): void {
  const dir = dirOf(repo, journal);
  const prefix = `${CLAIM_PREFIX}${claimKey(journal)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    rmSync(path.join(dir, name), { force: true });
    releaseHere(path.join(dir, name));
  }
}

/**
 * Removes the claims in `dir` on journals that are gone (a recovery killed after removing its
 * journal): claims on transactions other than those of `current`, the journals there now, whose
 * processes are gone. Claims of live processes are left to them.
 */
export function removeFinishedClaims(dir: string, current: readonly Journal[], listed?: readonly string[]): void {
  const names = listed ?? namesIn(dir);
  const keep = current.map((j) => `${CLAIM_PREFIX}${claimKey(j)}.`);
  for (const name of names) {
    if (!name.startsWith(CLAIM_PREFIX) || keep.some((k) => name.startsWith(k))) continue;
    const file = path.join(dir, name);
    let holder: ClaimHolder;
    try {
      holder = readClaim(file);
    } catch {
      continue;
    }
    if (holder.pid === process.pid ? !heldHere(file) : !processAlive(holder.pid, holder.mark)) rmSync(file, { force: true });
  }
}

export type JournalRead = { kind: 'none' } | { kind: 'journal'; journal: Journal } | { kind: 'unreadable'; ageMs: number; why: string };

/** The journal in `file` (one of the places in journal-place.ts). */
export function readJournal(file: string): JournalRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // created but not yet written (a run is starting now), or cut short by a crash right there
    return { kind: 'unreadable', ageMs: ageOf(file), why: text === '' ? 'empty' : 'not JSON' };
  }
  const version = (parsed as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version !== 1) {
    // another version's transaction, perhaps running: not ours to finish or to drop
    throw new PatchtxError(
      'unsupported_repository',
      `${file} is the journal of a transaction written by another version of patchtx (journal version ${version}): finish it with that version, or remove the file if no patchtx is running`,
      { path: file, feature: 'journal version' },
    );
  }
  const why = journalShapeProblem(parsed);
  if (why !== null) return { kind: 'unreadable', ageMs: ageOf(file), why };
  const journal = parsed as Journal;
  journal.paths ??= [];
  journal.locks ??= [];
  return { kind: 'journal', journal };
}

function ageOf(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return Infinity; // gone meanwhile
  }
}

const isOid = (v: unknown): boolean => v === null || (typeof v === 'string' && /^[0-9a-f]{40}$/.test(v));
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What makes `value` no journal recovery can act on (null: it is one). */
function journalShapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const j = value as Record<string, unknown>;
  if (j.version !== 1) return 'no version';
  if (!Number.isInteger(j.pid) || (j.pid as number) <= 0) return 'no process id';
  if (j.op !== 'apply' && j.op !== 'undo' && j.op !== 'redo') return 'no operation';
  if (j.state !== 'prepared' && j.state !== 'published') return 'no state';
  if (typeof j.ref !== 'string' || j.ref === '') return 'no ref';
  if (!isOid(j.oldOid) || !isOid(j.newOid)) return 'commit ids that are not commit ids';
  // journals of older versions may lack these: they are then empty
  if ((j.paths !== undefined && !isStrings(j.paths)) || (j.locks !== undefined && !isStrings(j.locks))) return 'lists of paths or locks that are not lists';
  return null;
}

export function removeJournal(repo: Repository, journal: Journal): void {
  removeJournalFile(journalFileOf(repo, journal));
}

export function removeJournalFile(file: string): void {
  rmSync(file, { force: true });
}
