// The commit protocol shared by apply, undo and redo. In order:
//   1. create the journal (state "prepared"): from here an interrupted run is cleaned up
//   2. take index.lock (checkout mode): nobody following git's protocol changes the index now
//   3. prepare: read the touched paths, validate, write blobs/trees/commit (unreachable until 5);
//      they are held in memory and written together, with the note's objects, as one pack (kept
//      by a .keep file until the refs hold it: git/objects/store.ts), once everything is validated
//   4. journal state "published", naming the new commit and the paths to sync
//   5. look again at the touched paths of the checkout (refusing if any changed since they were
//      read: as-read.ts), then compare-and-swap the ref (the commit point)
//   6. attach the note, then bring working tree and index in line, then drop the journal; last,
//      once in a while, fold patchtx's own packs into one (git/objects/pack-fold.ts)
// Before 5 the repository is at the old state; after 5 it is at the new one, and an interrupted
// step 6 is finished by the next patchtx command (see recover.ts).
import { randomBytes } from 'node:crypto';
import { PatchtxError } from '../errors.js';
import { lockIndex, type IndexLock } from '../git/index/lock.js';
import { indexPathOf } from '../git/index/read.js';
import type { Identity } from '../git/objects/model/identity.js';
import { addNote, attachToNotes, writeNoteCommit } from '../git/refs/notes.js';
import { removeKeeps } from '../git/objects/store.js';
import { foldOwnPacks, type FoldOwner } from '../git/objects/pack-fold.js';
import { packedRefsLockFile, packedRefsTimeout } from '../git/refs/packed-refs.js';
import { DELETED_REF, readHead, readRef, refLockFile, updateRef } from '../git/refs/refs.js';
import type { TreeEdit } from '../git/objects/tree-edit.js';
import type { WorktreePathState } from '../git/worktree/worktree.js';
import { changedSinceRead, changedWhileRunning, type AsRead } from './as-read.js';
import { crashPoint } from './crash.js';
import { mark } from '../timing.js';
import type { Warning } from '../warnings.js';
import { holdHere, releaseHere } from './running-here.js';
import { asTransaction, checkInterrupted, passCommitPoint } from './interrupt.js';
import { createJournal, keepText, lockWitness, removeJournal, transactionId, updateJournal, type Journal } from './journal.js';
import { markOfThisProcess, markText, parseMark, processAlive } from './liveness.js';
import { asReadOnly, checkGitDirWritable } from './read-only.js';
import { updateRedoStack } from './redo-stack.js';
import type { Session } from './session.js';
import { checkoutForms } from './conversions.js';
import { checkCheckoutRoom, checkCheckoutWritable, inTheWay, indexUpdatesOf, syncCheckout, type CheckoutLook, type LiveSync } from './sync.js';
import type { Target } from './target.js';

export const NOTES_REF = 'refs/notes/patchtx';

export interface Prepared {
  /** the commit the ref moves to; null: nothing to commit (noop); DELETED_REF: the ref is deleted
   * (undo of a branch's first commit: the branch is unborn again) */
  newOid: string | null;
  /** the paths to bring in line in the checkout, and their new content (null: removed) */
  targets: Map<string, TreeEdit>;
  contents: Map<string, Uint8Array>;
  reflogMessage: string;
  /** `attach`: a tree kept beside the note (uncommitted work the run replaces: saved.ts) */
  note?: { ref: string; text: string; attach?: { path: string; tree: string } };
  redo?: Journal['redo'];
  /** for a noop: still write `targets` to the checkout (they differ from what is on disk) */
  syncWithoutCommit?: boolean;
  /** what the checkout held at the target paths when the run looked (see Journal.found) */
  found?: Map<string, string | null>;
  /** the lstat data of the touched paths when the run looked (statStamp in git/worktree/worktree.ts) */
  stamps?: Map<string, string>;
  /**
   * What the run found at a touched path of the working tree under the index lock, given when no
   * program but the run itself has run since (a message hook, a signing program): the checks
   * before the commit point take what is at a target path from it instead of looking again. What
   * changes meanwhile all the same (another process) is found by the as-read check, which looks
   * at every touched path again just before the ref moves.
   */
  seenUnderLock?: (p: string) => WorktreePathState | undefined;
  /** index entries of paths whose entry is not what their file gets (LiveSync in sync.ts) */
  index?: Map<string, TreeEdit>;
  /** the commit whose saved work `targets` and `index` put back (Journal.restore) */
  restore?: string;
  /** nothing to commit, but uncommitted work the sync replaces: saved beside the notes first */
  savedWithoutCommit?: { ref: string; attach: { path: string; tree: string } };
}

const asReadOf = (prepared: Prepared): AsRead | undefined => prepared.stamps && { stamps: prepared.stamps, found: prepared.found ?? new Map() };

const liveOf = (prepared: Prepared): LiveSync => ({ asRead: asReadOf(prepared), index: prepared.index });

/** What the steps after the commit point could not finish (the commit stands): `path` names the
 * file left as it was, else "". */
export type NoteWarning = Warning<'note'>;

const noteWarning = (message: string, path = ''): NoteWarning => ({ kind: 'note', message, path });

/** The warnings for files a sync left as they are, since they changed while the run went on. */
const leftAsItIs = (paths: string[], ref: string): NoteWarning[] =>
  [...paths]
    .sort()
    .map((p) => noteWarning(`left ${p} as it is: it changed while the transaction ran; git status shows how it differs from the commit on ${ref}`, p));

/** Refuses (dirty) when a touched path of the checkout no longer holds what the run read. */
async function requireAsRead(session: Session, asRead: AsRead | undefined): Promise<void> {
  if (!asRead || session.repo.workdir === null) return;
  const changed = await changedSinceRead(session.repo.workdir, asRead);
  if (changed.length > 0) throw changedWhileRunning(changed);
}

export interface RunOutcome {
  prepared: Prepared;
  published: boolean;
  warnings: NoteWarning[];
}

export async function runTransaction(
  session: Session,
  target: Target,
  op: Journal['op'],
  identity: Identity,
  prepare: (lock: IndexLock | null) => Promise<Prepared>,
): Promise<RunOutcome> {
  // a signal before the commit point rolls the run back, after it waits for the run (interrupt.ts)
  return asTransaction(() => runSteps(session, target, op, identity, prepare));
}

async function runSteps(
  session: Session,
  target: Target,
  op: Journal['op'],
  identity: Identity,
  prepare: (lock: IndexLock | null) => Promise<Prepared>,
): Promise<RunOutcome> {
  const { repo } = session;
  const journal: Journal = {
    version: 1,
    id: randomBytes(8).toString('hex'),
    pid: process.pid,
    mark: markText(markOfThisProcess()),
    startedAt: new Date().toISOString(),
    op,
    state: 'prepared',
    ref: target.ref,
    oldOid: target.oldOid,
    newOid: null,
    worktree: target.worktree,
    // without a working tree, runs on other refs need not wait for this one (journal-place.ts)
    ...(target.worktree ? {} : { perRef: true }),
    paths: [],
    locks: target.worktree ? [`${indexPathOf(repo)}.lock`] : [],
  };
  // other runs of this process must see the journal as live (running-here.ts), until this one ends
  holdHere(transactionId(journal));
  try {
    return await stepsOf(session, target, journal, identity, prepare);
  } finally {
    releaseHere(transactionId(journal));
  }
}

async function stepsOf(
  session: Session,
  target: Target,
  journal: Journal,
  identity: Identity,
  prepare: (lock: IndexLock | null) => Promise<Prepared>,
): Promise<RunOutcome> {
  const { repo } = session;
  // a read-only git directory is refused before anything is written (apply_patch falls back on it)
  checkGitDirWritable(repo);
  try {
    createJournal(repo, journal);
  } catch (e) {
    throw asReadOnly(e, repo.gitdir);
  }
  crashPoint('after-journal');
  let lock: IndexLock | null = null;
  let prepared: Prepared;
  try {
    await checkInterrupted();
    if (target.worktree) {
      lock = await lockIndex(repo, lockWitness(repo, journal, journal.locks[0]!));
      crashPoint('after-index-lock');
      await checkInterrupted();
      await checkHeadUnchanged(session, target);
    }
    mark('journal and lock');
    session.store.beginBatch();
    prepared = await prepare(lock);
    await checkInterrupted();
    // an index clash (a new file where the index keeps a directory, or the reverse) must stop the
    // run now, not after the ref has moved
    if (lock && prepared.newOid !== null) {
      lock.check(indexUpdatesOf(prepared.targets, prepared.index));
    }
    // and so must a file or directory the file system will not let us write, or files of the
    // user's that writing would need removed
    if (lock && (prepared.newOid !== null || prepared.syncWithoutCommit)) {
      const look = await checkCheckoutWritable(session, prepared.targets, prepared.seenUnderLock);
      await refuseInTheWay(session, journal.op, prepared.targets, look);
      mark('checkout checks');
    }
    let noteWritten: NonNullable<Journal['note']>['written'];
    let noteBlob: string | undefined;
    if (prepared.newOid !== null && prepared.note) {
      // the note's objects join the batch; attaching it after the commit point then only moves
      // the notes ref (should that ref move meanwhile, addNote writes a new notes commit itself)
      const tip = await readRef(repo, prepared.note.ref);
      noteBlob = await session.store.writeBlob(Buffer.from(prepared.note.text, 'utf8'));
      const commit = await writeNoteCommit(session.store, tip, { target: prepared.newOid, blob: noteBlob, identity, attach: prepared.note.attach });
      noteWritten = { commit, parent: tip };
    }
    if (prepared.newOid === null && !prepared.savedWithoutCommit) session.store.discardBatch();
    else await session.store.flushBatch(keepText(journal));
    mark('objects: write');
    // the objects may have taken the room the working tree needs (the same file system, often)
    if (lock && (prepared.newOid !== null || prepared.syncWithoutCommit)) checkCheckoutRoom(session, prepared.targets, prepared.contents);
    crashPoint('after-objects');
    if (prepared.newOid === null) {
      // nothing to commit, but the patch may still have changed uncommitted work on disk
      // (--dirty=include): bring those paths in line with the (unchanged) commit
      let left: string[] = [];
      if (lock && prepared.syncWithoutCommit) {
        await requireAsRead(session, asReadOf(prepared));
        const saved = prepared.savedWithoutCommit;
        if (saved) {
          const logAllRefUpdates = session.config.get('core.logAllRefUpdates');
          // the notes ref's lock is the run's too: listed and witnessed, so recovery removes it
          const notesLock = refLockFile(repo, saved.ref);
          journal.locks.push(notesLock);
          updateJournal(repo, journal);
          await attachToNotes(session.store, repo, {
            notesRef: saved.ref,
            attach: saved.attach,
            identity,
            logAllRefUpdates,
            witness: lockWitness(repo, journal, notesLock),
          });
        }
        left = await syncCheckout(session, lock, prepared.targets, prepared.contents, { live: liveOf(prepared) });
      }
      await lock?.release();
      await session.store.releaseKept();
      removeJournal(repo, journal);
      return { prepared, published: false, warnings: leftAsItIs(left, target.ref) };
    }
    journal.state = 'published';
    journal.newOid = prepared.newOid;
    journal.paths = [...prepared.targets.keys()];
    if (target.worktree && prepared.found) {
      const found = prepared.found;
      journal.found = journal.paths.map((p) => (found.has(p) ? found.get(p)! : false));
    }
    // with the notes commit already written, so that recovery attaches that one (one written
    // anew, dated then, would leave this one dangling)
    journal.note = prepared.note && {
      ref: prepared.note.ref,
      blob: noteBlob,
      written: noteWritten,
      ...(prepared.note.attach ? { attach: prepared.note.attach } : {}),
    };
    journal.redo = prepared.redo;
    journal.restore = prepared.restore;
    journal.locks.push(refLockFile(repo, target.ref));
    // deleting the ref (undo of a first commit) takes packed-refs.lock too
    if (prepared.newOid === DELETED_REF) journal.locks.push(packedRefsLockFile(repo));
    if (prepared.note) journal.locks.push(refLockFile(repo, prepared.note.ref));
    updateJournal(repo, journal);
    crashPoint('after-publish-journal');
    await checkInterrupted();
    // under the index lock, so git's own commands cannot change the index meanwhile; a file saved
    // from here on is left alone when the checkout is synced (finishPublished)
    if (lock) await requireAsRead(session, asReadOf(prepared));
    await updateRef(repo, {
      ref: target.ref,
      expectedOld: target.oldOid,
      newOid: prepared.newOid,
      message: prepared.reflogMessage,
      identity,
      logAllRefUpdates: session.config.get('core.logAllRefUpdates'),
      witness: lockWitness(repo, journal, refLockFile(repo, target.ref)),
      ...(prepared.newOid === DELETED_REF
        ? { packedWitness: lockWitness(repo, journal, packedRefsLockFile(repo)), packedRefsTimeout: packedRefsTimeout(session.config) }
        : {}),
    });
    passCommitPoint();
    mark('ref and journal');
  } catch (e) {
    session.store.discardBatch();
    await lock?.release().catch(() => undefined);
    await session.store.releaseKept().catch(() => undefined);
    removeJournal(repo, journal);
    throw e;
  }
  crashPoint('after-ref');
  try {
    const warnings = await finishPublished(session, journal, identity, lock, prepared.targets, prepared.contents, undefined, { live: liveOf(prepared) });
    return { prepared, published: true, warnings };
  } catch (e) {
    // the commit has landed: say so, rather than report a patch that "does not apply" (a full
    // disk or a read-only file stays an io_error: the user's to fix before recovery can finish)
    await lock?.release().catch(() => undefined);
    throw new PatchtxError(
      e instanceof PatchtxError && e.kind === 'io_error' ? 'io_error' : 'internal',
      `${prepared.newOid} landed on ${target.ref}, but bringing the working tree and index in line failed: ${(e as Error).message}; run 'patchtx recover' to finish`,
      { ...(e instanceof PatchtxError && e.kind === 'io_error' ? e.data : {}), commit: prepared.newOid, ref: target.ref },
    );
  }
}

/** This process, as a fold names it in its lock and .keep file: `pid=<pid> <mark>` (liveness.ts). */
const foldOwner = (): FoldOwner => ({
  text: `pid=${process.pid} ${markText(markOfThisProcess())}`,
  gone: (text) => {
    const m = /^pid=(\d+)(?: (.*))?$/.exec(text);
    return m !== null && !processAlive(Number(m[1]), parseMark(m[2]));
  },
});

/**
 * Folds patchtx's own packs together once they are many (git/objects/pack-fold.ts). Housekeeping
 * after the run is over: should it fail, more packs are left than needed (git gc takes them in)
 * and no object is lost, so the run's result stands as it is.
 */
async function foldPacks(session: Session): Promise<void> {
  try {
    await foldOwnPacks(session.store, foldOwner());
  } catch {
    // see above
  }
}

/** Refuses when turning a directory into a file would remove files the transaction does not own
 * (see inTheWay): `dirty` for apply, `undo_refused` for undo and redo, as their other such refusals. */
async function refuseInTheWay(session: Session, op: Journal['op'], targets: ReadonlyMap<string, TreeEdit>, look?: CheckoutLook): Promise<void> {
  const paths = await inTheWay(session, targets, look);
  if (paths.length === 0) return;
  const list = paths.map((p) => `  ${p}\n`).join('');
  const what = op === 'apply' ? 'the patch cannot be applied' : `cannot ${op}`;
  throw new PatchtxError(
    op === 'apply' ? 'dirty' : 'undo_refused',
    `${what}: untracked working tree files would be removed:\n${list}move or remove them first`,
    { paths },
  );
}

/**
 * The target was resolved from HEAD before the index was locked: a `git checkout` in between
 * would make this run commit onto the branch it left and write the patch into the index of the one
 * it switched to (a staged change there). Under the index lock nobody following git's protocol
 * switches branches, so HEAD is read again here: moved, the run stops before writing anything.
 */
async function checkHeadUnchanged(session: Session, target: Target): Promise<void> {
  const head = await readHead(session.repo);
  const now = head.ref ?? 'HEAD';
  if (now !== target.ref || head.oid !== target.oldOid) {
    throw new PatchtxError(
      'stale',
      `HEAD moved while this run started: it is ${now === 'HEAD' ? 'detached' : now} at ${head.oid ?? '(no commit)'} now, not ${target.ref} at ${target.oldOid ?? '(no commit)'}; nothing was written, retry`,
      { ref: target.ref, expected: target.oldOid, actual: head.oid, head: now },
    );
  }
}

/**
 * Step 6: everything after the commit point. Also run by recovery for a run that died after it.
 * A failure to attach the note or to update the redo history is reported as a warning: the commit
 * has landed and stays.
 */
export async function finishPublished(
  session: Session,
  journal: Journal,
  identity: Identity,
  lock: IndexLock | null,
  targets: ReadonlyMap<string, TreeEdit>,
  contents?: ReadonlyMap<string, Uint8Array>,
  /** paths whose working-tree file stays as it is (recovery: changed since the run died) */
  leave?: ReadonlySet<string>,
  /** recovering: a path the file system refuses to write is left, with a warning, so that the run
   * can be finished at all (otherwise every later command would stop at it); live: a running
   * transaction's own (a file changed since it was read is left as it is, with a warning) */
  opts: { recovering?: boolean; live?: LiveSync } = {},
): Promise<NoteWarning[]> {
  const warnings: NoteWarning[] = [];
  if (journal.note && journal.newOid) {
    try {
      await addNote(session.store, session.repo, {
        notesRef: journal.note.ref,
        target: journal.newOid,
        text: journal.note.text,
        blob: journal.note.blob,
        written: journal.note.written,
        attach: journal.note.attach,
        identity,
        logAllRefUpdates: session.config.get('core.logAllRefUpdates'),
        witness: lockWitness(session.repo, journal, refLockFile(session.repo, journal.note.ref)),
      });
    } catch (e) {
      warnings.push(noteWarning(`the commit landed, but its patch text could not be stored as a note: ${(e as Error).message}`));
    }
  }
  crashPoint('after-note');
  mark('note');
  // recovery repeats this step for a run that died after it: the id makes the second time a no-op.
  // It is bookkeeping: a file system that refuses it must not hold the checkout back.
  if (journal.redo) {
    try {
      updateRedoStack(session.repo, journal.ref, journal.redo, transactionId(journal));
    } catch (e) {
      warnings.push(noteWarning(`the commit landed, but the redo history of ${journal.ref} could not be updated: ${(e as Error).message}`));
    }
  }
  if (journal.worktree) {
    if (!lock) throw new PatchtxError('internal', 'checkout sync without the index lock');
    // blobs not handed over are written as checkout would write them with the commit's attributes
    // (restored saved work is the bytes the user had on disk already: it is written as it is)
    const unread = [...targets].filter(([p, t]) => t !== null && t.mode !== '120000' && !contents?.has(p) && !opts.live?.index?.has(p)).map(([p]) => p);
    const checkoutForm =
      unread.length > 0 && journal.newOid !== null && journal.newOid !== DELETED_REF ? await checkoutForms(session, journal.newOid, unread) : undefined;
    const failed = (p: string, removing: boolean, e: unknown): void => {
      const cause = (e as Error).message;
      const message = removing
        ? `could not remove ${p} (${cause}); it is out of the index, so git status shows it as untracked`
        : `could not write ${p} (${cause}); its index entry is the commit's, so git status shows how the working tree differs`;
      warnings.push(noteWarning(message, p));
    };
    const left = await syncCheckout(session, lock, targets, contents, { leave, checkoutForm, failed: opts.recovering ? failed : undefined, live: opts.live });
    warnings.push(...leftAsItIs(left, journal.ref));
  }
  // the refs hold the run's objects now: its pack needs no .keep file any more
  await session.store.releaseKept();
  if (opts.recovering) await removeKeeps(session.store.objectsDir, keepText(journal));
  removeJournal(session.repo, journal);
  mark('settle and journal');
  await foldPacks(session);
  mark('fold packs');
  return warnings;
}
