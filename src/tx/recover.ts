// Finishing or dropping what an interrupted run left behind (its journal says which; see run.ts).
// Runs at the start of every patchtx command that opens a repository, and as `patchtx recover`.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { resolveIdentity } from '../git/identity.js';
import { lockIndex } from '../git/index-file.js';
import type { Identity } from '../git/model/identity.js';
import { readHead, readRef } from '../git/refs.js';
import { lookupPaths, type TreeEdit } from '../git/tree-edit.js';
import { processAlive, readJournal, removeDeadTempFiles, removeJournal, transactionId, type Journal } from './journal.js';
import { removeDeadRedoTemps } from './redo-stack.js';
import { finishPublished, refLockPath } from './run.js';
import type { Session } from './session.js';

export interface RecoveryReport {
  /** finished: the interrupted run had landed and was completed; dropped: it had not landed */
  outcome: 'finished' | 'dropped';
  op?: Journal['op'];
  ref?: string;
  commit?: string | null;
  pid?: number;
  warnings: string[];
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

function removeOwnLocks(session: Session, journal: Journal): void {
  for (const lock of journal.locks) {
    if (!existsSync(lock)) continue;
    // A ref lock holds the new value once written: only a lock with our value (or still empty) is ours.
    if (lock === refLockPath(session, journal.ref)) {
      const content = readFileSync(lock, 'utf8').trim();
      if (content !== '' && content !== journal.newOid) continue;
    }
    rmSync(lock, { force: true });
  }
}

/**
 * Removes the temporary files a run (or a recovery finishing it) killed while writing the working
 * tree left next to the run's paths: `.<name>.patchtx-<pid>-<8 hex>`, the names src/git/worktree.ts
 * writes new content under before renaming it into place. Only files of processes that are gone.
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
      if (m && !processAlive(Number(m[1]))) rmSync(path.join(dir, name), { force: true });
    }
  }
}

export async function recoverInterrupted(session: Session): Promise<RecoveryReport | null> {
  const { repo, store } = session;
  removeDeadTempFiles(repo);
  const read = readJournal(repo);
  if (read.kind === 'none') return null;
  if (read.kind === 'unreadable') {
    if (read.ageMs < STARTING_GRACE_MS) {
      throw new PatchtxError('stale', 'another patchtx transaction is starting in this checkout; retry in a moment');
    }
    removeJournal(repo);
    return { outcome: 'dropped', warnings: ['removed an empty journal left by a run that died while starting'] };
  }
  const journal = read.journal;
  if (journal.pid !== process.pid && processAlive(journal.pid)) {
    throw new PatchtxError('stale', `another patchtx (pid ${journal.pid}) is in the middle of a transaction on ${journal.ref}; retry when it is done`, {
      ref: journal.ref,
      pid: journal.pid,
    });
  }
  // The journal was read while its run may still have been finishing: a run that removed its
  // journal and exited between the read and the liveness check looks dead, and its journal's lock
  // list would then name locks that belong to whoever started next. Only a journal still there
  // after its process is known to be gone is an orphan (a dead process cannot remove it any more).
  const again = readJournal(repo);
  if (again.kind !== 'journal' || transactionId(again.journal) !== transactionId(journal)) {
    return again.kind === 'none' ? null : recoverInterrupted(session);
  }
  removeOwnLocks(session, journal);
  removeDeadRedoTemps(repo, journal.ref);
  removeWorktreeTemps(session, journal);
  const current = journal.ref === 'HEAD' ? (await readHead(repo)).oid : await readRef(repo, journal.ref);
  const report: RecoveryReport = { outcome: 'dropped', op: journal.op, ref: journal.ref, commit: journal.newOid, pid: journal.pid, warnings: [] };
  if (journal.state === 'published' && journal.newOid !== null && current === journal.newOid) {
    const commit = await store.readCommit(journal.newOid);
    const infos = await lookupPaths(store, commit.tree, journal.paths);
    const targets = new Map<string, TreeEdit>();
    for (const [p, info] of infos) {
      if (info.type === 'blob') targets.set(p, { oid: info.oid, mode: info.mode });
      else if (info.type === 'symlink') targets.set(p, { oid: info.oid, mode: '120000' });
      else targets.set(p, null);
    }
    const lock = journal.worktree ? await lockIndex(repo) : null;
    try {
      report.warnings = await finishPublished(session, journal, recoveryIdentity(session), lock, targets);
    } finally {
      await lock?.release().catch(() => undefined);
    }
    report.outcome = 'finished';
    return report;
  }
  removeJournal(repo);
  return report;
}
