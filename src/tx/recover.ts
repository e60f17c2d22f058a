// Finishing or dropping what interrupted runs left behind (their journals say which; see run.ts).
// Runs at the start of every patchtx command that opens a repository, and as `patchtx recover`:
// the journal of this checkout's working tree and the journals of every ref (journal-place.ts).
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { resolveIdentity } from '../git/repo/identity.js';
import { lockIndex } from '../git/index/lock.js';
import { indexPathOf } from '../git/index/read.js';
import { isWitnessedLock } from '../git/fs/lock-file.js';
import type { Identity } from '../git/objects/model/identity.js';
import { DELETED_REF, readHead, readRef } from '../git/refs/refs.js';
import { fileEntryOf, lookupPaths, type TreeEdit } from '../git/objects/tree-edit.js';
import { hashBlob } from '../git/objects/hash.js';
import { releaseHeld, removeKeeps } from '../git/objects/store.js';
import { checkoutForms } from './conversions.js';
import { crashPoint } from './crash.js';
import { heldHere } from './running-here.js';
import { asTransaction, checkInterrupted, checkSignalled, passCommitPoint } from './interrupt.js';
import { inspectWorktreePath, readWorktreeFile } from '../git/worktree/worktree.js';
import {
  claimRecovery,
  dropClaim,
  heldObjectsDir,
  keepText,
  lockWitness,
  readJournal,
  removeClaimsOn,
  removeDeadJournalTemps,
  removeFinishedClaims,
  removeJournal,
  removeJournalFile,
  removeLockWitnesses,
  transactionId,
  type Journal,
  type JournalRead,
} from './journal.js';
import { checkoutJournalFile, refJournalDirs, refJournalsAmong } from './journal-place.js';
import { parseMark, processAlive } from './liveness.js';
import { removeDeadRedoTemps } from './redo-stack.js';
import { firstParents } from './history.js';
import { finishPublished, NOTES_REF, type NoteWarning } from './run.js';
import type { Warning } from '../warnings.js';
import { putBack } from './saved.js';
import type { Session } from './session.js';

export interface RecoveryReport {
  /** finished: the interrupted run had landed and was completed; dropped: it had not landed */
  outcome: 'finished' | 'dropped';
  op?: Journal['op'];
  ref?: string;
  commit?: string | null;
  pid?: number;
  warnings: RecoveryWarning[];
  /** the other interrupted runs recovered at the same time (of other refs), if any */
  also?: RecoveryReport[];
}

/** What recovery says besides what it did; the kinds are WARNING_KINDS'. */
export type RecoveryWarning =
  | NoteWarning
  | (Warning<'ref_moved_on'> & { ref: string; commit: string; tip: string })
  | (Warning<'checkout_switched'> & { ref: string })
  | (Warning<'journal_removed'> & { reason: string });

export interface RecoveryScope {
  /**
   * A live transaction of this checkout's working tree stops the command (`stale`) rather than
   * being passed over: so for every command in a checkout but one that names a ref (which, if it is
   * the branch checked out here, meets that transaction's journal when it creates its own). A live
   * transaction of a ref is always passed over: a run on that ref meets its journal likewise.
   */
  checkoutInUse: boolean;
  /**
   * A signal that waited for a recovery to finish stops the command that opened the repository:
   * it is reported (`stale`, with the recovery's report) instead of the command being started.
   * Not for `patchtx recover`, whose report is the result.
   */
  stopOnSignal?: boolean;
}

/** How long an unreadable (just created) journal is taken to belong to a run that is starting. */
const STARTING_GRACE_MS = 10_000;

function recoveryIdentity(session: Session): Identity {
  try {
    return resolveIdentity(session.config, 'committer', session.env);
  } catch {
    const now = new Date();
    return { name: 'patchtx', email: 'patchtx@localhost', timestamp: Math.floor(now.getTime() / 1000), timezoneOffset: now.getTimezoneOffset() };
  }
}

/**
 * Removes the locks the dead run held. The journal lists every lock the run may have taken, not
 * the ones it did take, and a lock of the same name may be a live process's by now: a `git commit`
 * in this checkout waiting for its editor holds index.lock, git or patchtx in another worktree a
 * ref lock. A lock is removed only with proof that the run (or a recovery of it that died) took
 * it: it is the file its witness is (lockWitness). Any other is left to its owner.
 */
function removeOwnLocks(session: Session, journal: Journal): void {
  for (const lock of journal.locks) {
    if (isWitnessedLock(lock, lockWitness(session.repo, journal, lock))) rmSync(lock, { force: true });
  }
  removeLockWitnesses(session.repo, journal);
}

/**
 * Removes the temporary files a run (or a recovery finishing it) killed while writing the working
 * tree left next to the run's paths: `.<name>.patchtx-<pid>-<8 hex>`, the names src/git/worktree/worktree.ts
 * writes new content under before renaming it into place. Only files of processes that are gone,
 * the run's own included (its journal is being recovered: it is gone, whoever has its pid now).
 */
function removeWorktreeTemps(session: Session, journal: Journal): void {
  const workdir = session.repo.workdir;
  if (!journal.worktree || workdir === null) return;
  for (const p of journal.paths) {
    const file = path.join(workdir, ...p.split('/'));
    const dir = path.dirname(file);
    const prefix = `.${path.basename(file).slice(0, 64)}.patchtx-`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // the directory is not there (any more): nothing was left in it
    }
    for (const name of names) {
      const m = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length)) : null;
      // the run's own (it is dead, whoever has its pid now), or those of a recovery that died
      if (!m || (Number(m[1]) !== journal.pid && processAlive(Number(m[1])))) continue;
      try {
        rmSync(path.join(dir, name), { force: true });
      } catch {
        // a directory the file system will not let us change: the sync gives up on it with a warning
      }
    }
  }
}

/** Recovers every journal whose run is gone (see RecoveryScope for those whose run is alive). */
export async function recoverInterrupted(session: Session, scope: RecoveryScope): Promise<RecoveryReport | null> {
  // a signal is held as during a transaction: it stops a recovery that has changed nothing yet,
  // and waits for one that has begun (interrupt.ts)
  return asTransaction(async () => {
    const report = await recoverAll(session, scope);
    // while the run is under way, where the signal's handler would end the process unreported
    if (report && scope.stopOnSignal) {
      await checkSignalled(`while an interrupted transaction on ${report.ref} was recovered (${report.outcome} first): nothing else was done`, {
        recovered: report,
      });
    }
    return report;
  });
}

async function recoverAll(session: Session, scope: RecoveryScope): Promise<RecoveryReport | null> {
  const { repo } = session;
  const reports: RecoveryReport[] = [];
  const checkout = checkoutJournalFile(repo);
  const checkoutName = path.basename(checkout);
  reports.push(...(await recoverIn(session, path.dirname(checkout), (names) => (names.includes(checkoutName) ? [checkout] : []), scope.checkoutInUse)));
  for (const dir of refJournalDirs(repo)) reports.push(...(await recoverIn(session, dir, (names) => refJournalsAmong(dir, names), false)));
  const [first, ...rest] = reports;
  return first === undefined ? null : rest.length === 0 ? first : { ...first, also: rest };
}

/**
 * Recovers the journals of `dir`, `journalsOf` its names (the directory is listed once: in most
 * commands it holds no journal, and nothing more is read); `strict`: a live run's is `stale`, not
 * passed over. A journal made after the listing is a run that has just started: alive.
 */
async function recoverIn(session: Session, dir: string, journalsOf: (names: readonly string[]) => string[], strict: boolean): Promise<RecoveryReport[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // not there: nothing was ever journaled here
  }
  removeDeadJournalTemps(dir, names);
  const reads = journalsOf(names).map((file) => ({ file, read: readJournal(file) }));
  removeFinishedClaims(
    dir,
    reads.flatMap(({ read }) => (read.kind === 'journal' ? [read.journal] : [])),
    names,
  );
  const reports: RecoveryReport[] = [];
  for (const { file, read } of reads) {
    const report = await recoverJournal(session, file, strict, read);
    if (report) reports.push(report);
  }
  return reports;
}

/** Recovers the journal in `file`, if its run is gone (null: none there, or its run is alive);
 * `first`: the journal as just read there. */
async function recoverJournal(session: Session, file: string, strict: boolean, first?: JournalRead): Promise<RecoveryReport | null> {
  const { repo } = session;
  const read = first ?? readJournal(file);
  if (read.kind === 'none') return null;
  if (read.kind === 'unreadable') {
    if (read.ageMs < STARTING_GRACE_MS) {
      if (!strict) return null;
      throw new PatchtxError('stale', 'another patchtx transaction is starting in this checkout; retry in a moment');
    }
    removeJournalFile(file);
    const what = read.why === 'empty' ? 'an empty journal left by a run that died while starting' : `a journal that could not be used (${read.why}): ${file}`;
    return { outcome: 'dropped', warnings: [{ kind: 'journal_removed', message: `removed ${what}`, path: '', reason: read.why }] };
  }
  const journal = read.journal;
  // a journal of this process's pid is a live run only if this process is running it (running-here.ts)
  if (journal.pid === process.pid ? heldHere(transactionId(journal)) : processAlive(journal.pid, parseMark(journal.mark))) {
    if (!strict) return null;
    throw new PatchtxError('stale', `another patchtx (pid ${journal.pid}) is in the middle of a transaction on ${journal.ref}; retry when it is done`, {
      ref: journal.ref,
      pid: journal.pid,
    });
  }
  // Only one process may recover a journal (see claimRecovery in journal.ts).
  const claim = claimRecovery(repo, journal);
  if (!claim.claimed) {
    if (!strict) return null;
    throw new PatchtxError('stale', `another patchtx (pid ${claim.holder}) is recovering an interrupted transaction on ${journal.ref}; retry when it is done`, {
      ref: journal.ref,
      pid: claim.holder,
    });
  }
  // The journal was read while its run may still have been finishing (a run that removed its
  // journal and exited between the read and the liveness check looks dead), or while another
  // recovery was finishing it: then its lock list names locks that belong to whoever started next.
  // Only a journal still there once we hold the claim is an orphan that is ours to recover.
  const again = readJournal(file);
  if (again.kind !== 'journal' || transactionId(again.journal) !== transactionId(journal)) {
    dropClaim(claim);
    return again.kind === 'none' ? null : recoverJournal(session, file, strict);
  }
  let report: RecoveryReport;
  try {
    crashPoint('recovery-claimed');
    await checkInterrupted(
      `before the recovery of the interrupted transaction on ${journal.ref} had changed anything: it is left as it was, for the next patchtx command to recover`,
      {
        ref: journal.ref,
      },
    );
    // from here on the recovery changes the repository: like a run past its commit point, it finishes
    passCommitPoint();
    crashPoint('recovery-under-way');
    report = await recoverClaimed(session, journal);
  } catch (e) {
    dropClaim(claim);
    throw e;
  }
  // the journal is gone: its claims (ours, and those of recoveries that died) with it
  removeClaimsOn(repo, journal);
  return report;
}

/**
 * Whether a run that moved its ref forward (its new commit's first parent is the old value: apply,
 * revert, redo) landed although the ref is somewhere else now: the new commit is on the ref's
 * first-parent history, above the old value. A run that moved the ref back (undo of the tip) cannot
 * be told apart from one that never landed once the ref has moved on, and counts as not landed.
 */
async function landedAndMovedOn(session: Session, journal: Journal, current: string): Promise<boolean> {
  const newOid = journal.newOid!;
  let commit;
  try {
    commit = await session.store.readCommit(newOid);
  } catch {
    return false;
  }
  if ((commit.parents[0] ?? null) !== journal.oldOid) return false;
  for await (const { oid } of firstParents(session.store, current)) {
    if (oid === newOid) return true;
    if (oid === journal.oldOid) return false;
  }
  return false;
}

/**
 * The journal's paths whose working-tree file holds something the interrupted run neither found
 * there nor wrote (Journal.found): work done after the run died, which recovery must not
 * overwrite. What a killed run leaves is the content it found, its new content, the start of its
 * new content (killed while writing it), or nothing (killed between removing the old file and
 * creating the new one); `targets` (the ref as it is now, which an earlier recovery killed in
 * turn was writing) count as written too. A directory where the run was to write a file, or a
 * leading directory that is now a symbolic link or a file outside the run's paths, is a change
 * too. Paths above or below a path left alone are left alone with it: writing them would need
 * it replaced by a directory or the reverse.
 * (This is about processes killed: after a power loss a file the run wrote may hold zeros,
 * which counts as a change, since patchtx, like git, does not fsync working-tree files.)
 */
async function changedSinceRun(session: Session, journal: Journal, targets: ReadonlyMap<string, TreeEdit>): Promise<Set<string>> {
  const changed = new Set<string>();
  const found = journal.found;
  const workdir = session.repo.workdir;
  if (!found || workdir === null || journal.newOid === null) return changed;
  const { store } = session;
  // the commit whose files the run wrote (none, for a deleted ref), and whose attributes converted them
  const deleted = journal.newOid === DELETED_REF;
  const formsOf = deleted ? journal.oldOid! : journal.newOid;
  const written = await lookupPaths(store, deleted ? null : (await store.readCommit(journal.newOid)).tree, journal.paths);
  const ours = new Set(journal.paths);
  let form: ((path: string, blob: Uint8Array) => Uint8Array) | undefined;
  // journals of undo and redo written before they recorded what a converted file holds on disk
  // (they recorded the blob): such a file holds what checkout wrote for that blob
  const holdsCheckoutOf = async (oid: string, p: string, bytes: Uint8Array): Promise<boolean> => {
    const blob = await store.readBlob(oid).catch(() => null);
    if (blob === null) return false;
    form ??= await checkoutForms(session, formsOf, journal.paths);
    return Buffer.from(form(p, blob)).equals(bytes);
  };
  for (const [i, p] of journal.paths.entries()) {
    const before = found[i];
    if (before === false || before === undefined) continue;
    // a path that cannot even be looked at is left to the sync, which gives up on it with a warning
    const wt = await inspectWorktreePath(workdir, p).catch(() => null);
    if (wt === null) continue;
    if (wt.kind === 'dir' || wt.kind === 'other') {
      if (targets.get(p)) changed.add(p); // the run writes files here, never directories
      continue;
    }
    if (wt.kind === 'blocked') {
      if (!ours.has(wt.by)) changed.add(p);
      continue;
    }
    if (wt.kind === 'missing') continue;
    const file = path.join(workdir, ...p.split('/'));
    let bytes: Buffer;
    try {
      bytes = wt.kind === 'symlink' ? readlinkSync(file, { encoding: 'buffer' }) : await readWorktreeFile(workdir, p);
    } catch {
      changed.add(p); // cannot tell what it holds: not ours to overwrite
      continue;
    }
    const oid = hashBlob(bytes);
    // what the run wrote, and what a recovery killed before this one wrote (the ref as it is now)
    const writes = [fileEntryOf(written.get(p)!), targets.get(p) ?? null];
    if (oid === before || writes.some((w) => w?.oid === oid)) continue;
    if (wt.kind === 'file' && before !== null && (await holdsCheckoutOf(before, p, bytes))) continue;
    // a write cut short: the start of a regular file's new content (each blob read once: when
    // the ref has not moved on, both entries are the same), which is what checkout writes for
    // the blob (converted, where git converts line endings)
    let cutShort = false;
    if (wt.kind === 'file') {
      for (const oid of new Set(writes.flatMap((w) => (w && w.mode !== '120000' ? [w.oid] : [])))) {
        form ??= await checkoutForms(session, formsOf, journal.paths);
        if ((cutShort = startsWith(form(p, await store.readBlob(oid)), bytes))) break;
      }
    }
    if (!cutShort) changed.add(p);
  }
  // a path left alone keeps the paths above and below it as they are too
  for (let grew = changed.size > 0; grew;) {
    grew = false;
    for (const p of journal.paths) {
      if (changed.has(p)) continue;
      for (const k of changed) {
        if (p.startsWith(`${k}/`) || k.startsWith(`${p}/`)) {
          changed.add(p);
          grew = true;
          break;
        }
      }
    }
  }
  return changed;
}

/** Whether `bytes` are the first bytes of `full` (or all of them). */
function startsWith(full: Uint8Array, bytes: Uint8Array): boolean {
  return bytes.length <= full.length && Buffer.from(full.buffer, full.byteOffset, bytes.length).equals(bytes);
}

async function recoverClaimed(session: Session, journal: Journal): Promise<RecoveryReport> {
  const { repo } = session;
  removeOwnLocks(session, journal);
  removeDeadRedoTemps(repo, journal.ref);
  removeWorktreeTemps(session, journal);
  // what a prune took since the run died: it may be the commit the ref now names
  await session.store.restoreHeld(heldObjectsDir(repo, journal));
  const current = journal.ref === 'HEAD' ? (await readHead(repo)).oid : await readRef(repo, journal.ref);
  // a run that deleted the ref (undo of a first commit) landed if the ref is gone
  const deleted = journal.newOid === DELETED_REF;
  const report: RecoveryReport = {
    outcome: 'dropped',
    op: journal.op,
    ref: journal.ref,
    commit: deleted ? null : journal.newOid,
    pid: journal.pid,
    warnings: [],
  };
  if (journal.state === 'published' && deleted && current === null) {
    return finishLanded(session, journal, null, false, report);
  }
  if (
    journal.state === 'published' &&
    journal.newOid !== null &&
    current !== null &&
    (current === journal.newOid || (await landedAndMovedOn(session, journal, current)))
  ) {
    return finishLanded(session, journal, current, current !== journal.newOid, report);
  }
  // rolled back: nothing refers to the dead run's objects, and its pack need not be kept
  await removeKeeps(session.store.objectsDir, keepText(journal));
  releaseHeld(heldObjectsDir(repo, journal));
  removeJournal(repo, journal);
  return report;
}

/**
 * Finishes a run that landed: the ref is at `current` (null: deleted, as the run meant). The ref
 * may have moved on since (`movedOn`: another worktree, or a process following git's protocol):
 * the commit stays landed and gets its note, but the redo-stack change is left out (the later
 * transactions made theirs after it) and the paths are brought in line with the ref as it is.
 */
async function finishLanded(session: Session, journal: Journal, current: string | null, movedOn: boolean, report: RecoveryReport): Promise<RecoveryReport> {
  const { repo, store } = session;
  if (movedOn) {
    const [ref, commit, tip] = [journal.ref, journal.newOid!, current!];
    report.warnings.push({
      kind: 'ref_moved_on',
      message: `${ref} had moved on from ${commit} to ${tip} before the interrupted run was finished`,
      path: '',
      ref,
      commit,
      tip,
    });
  }
  const tree = current === null ? null : (await store.readCommit(current)).tree;
  const infos = await lookupPaths(store, tree, journal.paths);
  const targets = new Map<string, TreeEdit>([...infos].map(([p, info]) => [p, fileEntryOf(info)]));
  // if this checkout has since switched to another branch, its working tree and index belong
  // to that branch now: finish the note and redo stack only, and say so
  const head = await readHead(repo);
  const stillCheckedOut = journal.ref === 'HEAD' ? head.ref === null : head.ref === journal.ref;
  if (journal.worktree && !stillCheckedOut) {
    const message = `this checkout no longer has ${journal.ref} checked out; its working tree and index were left as they are`;
    report.warnings.push({ kind: 'checkout_switched', message, path: '', ref: journal.ref });
  }
  const syncCheckout = journal.worktree && stillCheckedOut;
  // an undo putting uncommitted work back (saved.ts) puts it back here too
  const index = syncCheckout && journal.restore && !movedOn ? await putBack(store, repo, NOTES_REF, journal.restore, targets) : undefined;
  const lock = syncCheckout ? await lockIndex(repo, lockWitness(repo, journal, `${indexPathOf(repo)}.lock`)) : null;
  try {
    // looked at under the index lock, so no patchtx or git command changes them meanwhile
    const leave = syncCheckout ? await changedSinceRun(session, journal, targets) : new Set<string>();
    for (const p of leave) {
      const message = `left ${p} as it is: it changed after the interrupted run; git status shows how it differs from the commit on ${journal.ref}`;
      report.warnings.push({ kind: 'note', message, path: p });
    }
    const finishing = { ...journal, worktree: syncCheckout, ...(movedOn ? { redo: undefined } : {}) };
    report.warnings.push(
      ...(await finishPublished(session, finishing, recoveryIdentity(session), lock, targets, undefined, leave, { recovering: true, live: { index } })),
    );
  } finally {
    await lock?.release().catch(() => undefined);
  }
  report.outcome = 'finished';
  return report;
}
