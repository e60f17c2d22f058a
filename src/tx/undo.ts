// `patchtx undo` and `patchtx redo`. Undo of the tip moves the ref back to its parent (compare-and-
// swap, like any transaction) and restores exactly the paths the commit changed; undo of an older
// commit makes a revert commit, when the later history left those paths alone. Both refuse when
// the paths have uncommitted changes. Redo brings back what the last undo removed.
import { createHash } from 'node:crypto';
import { PatchtxError } from '../errors.js';
import type { FileChange } from '../engine/types.js';
import { resolveIdentity } from '../git/identity.js';
import type { IndexLock } from '../git/index-file.js';
import type { CommitObject, Identity } from '../git/model/commit.js';
import { appendTrailers } from '../git/model/trailers.js';
import { resolveRevision } from '../git/refs.js';
import { diffTrees, type PathDelta } from '../git/tree-diff.js';
import { editTree, fileEntryOf, lookupPaths, type TreeEdit } from '../git/tree-edit.js';
import { createPatchFromTexts } from '../patch/create.js';
import { parsePatch } from '../patch/parse.js';
import { changesOf, firstParents, patchtxInfo } from './history.js';
import { PATCH_ID_TRAILER, UNDO_TRAILER } from './message.js';
import { patchId } from './patch-id.js';
import { stampsOf } from './as-read.js';
import { readRedoStack } from './redo-stack.js';
import { NOTES_REF, runTransaction, type Prepared } from './run.js';
import { withSession, type Session, type SessionOptions } from './session.js';
import { checkAttributesInTree, dirtyList, inspectPaths } from './state.js';
import type { RecoveryReport } from './recover.js';
import { resolveTarget, type Target } from './target.js';

export interface UndoOptions extends SessionOptions {
  ref?: string;
  commit?: string;
}

export interface UndoResult {
  ok: true;
  action: 'reset' | 'revert' | 'fast-forward';
  ref: string;
  /** the ref's new value */
  commit: string | null;
  /** the commit that was undone (undo) or brought back (redo) */
  target: string;
  /** what this undo or redo changed on the ref (an undo of an Add is a D) */
  files: FileChange[];
  /** redo of an undo that made a revert commit: the commit brought back (`target` is the revert) */
  redid?: string;
  /** what recovery of an earlier interrupted run did first, if anything */
  recovered?: RecoveryReport;
}

const refused = (message: string, data: Record<string, unknown> = {}): PatchtxError => new PatchtxError('undo_refused', message, data);

/** The changes `deltas` make, or with `reverse`, the changes that take them back (what an undo does). */
const editOf = (e: PathDelta['before']): TreeEdit => (e === null ? null : { oid: e.oid, mode: e.mode as Exclude<TreeEdit, null>['mode'] });

/** Refuses when any of `paths` has uncommitted changes against `tree` in this checkout; returns
 * their lstat data (as-read.ts), so that a file saved while the run goes on is not overwritten. */
async function requireClean(session: Session, target: Target, lock: IndexLock | null, tree: string, paths: string[], what: string): Promise<Map<string, string> | undefined> {
  if (!target.worktree) return undefined;
  // as for apply: patchtx writes committed bytes, so a path git would convert on checkout is refused
  // (it would also look clean by its stat data while holding other bytes than the commit)
  await checkAttributesInTree(session, tree, paths);
  const states = await inspectPaths(session, tree, paths, lock?.index ?? null, true);
  const list = dirtyList(states.values());
  if (list !== '') {
    const dirty = [...states.values()].filter((s) => s.dirty !== undefined).map((s) => s.path);
    throw refused(`cannot ${what}: these paths have uncommitted changes:\n${list}\ncommit or stash them first`, { paths: dirty });
  }
  return stampsOf(states.values());
}

function identities(session: Session): Identity {
  return resolveIdentity(session.config, 'committer', session.env);
}

/**
 * The transaction a plain `undo` takes back: the newest patchtx commit on the first-parent line
 * that is neither a revert made by undo nor undone by one. So repeated undos walk back through
 * the transactions, as an editor's undo does, instead of undoing the last revert (which would
 * bring its commit back). A revert that was itself reverted counts as undone: what it reverted
 * is in effect again, and an undo takes that back.
 */
async function findNewestPatchtxCommit(session: Session, tip: string): Promise<string> {
  const undone = new Set<string>();
  let skippedReverts = false;
  for await (const { oid, commit } of firstParents(session.store, tip)) {
    const info = patchtxInfo(commit);
    if (!info) continue;
    if (undone.has(oid)) continue;
    if (info.undoOf !== null) {
      undone.add(info.undoOf);
      skippedReverts = true;
      continue;
    }
    return oid;
  }
  throw refused(skippedReverts ? 'every patchtx commit on this ref has been undone already' : 'no patchtx commit found on this ref');
}

async function isFirstParentAncestor(session: Session, tip: string, oid: string): Promise<boolean> {
  for await (const c of firstParents(session.store, tip)) if (c.oid === oid) return true;
  return false;
}

/** Moves the ref from its tip to `to`, restoring `deltas` in the checkout (state `to`). */
async function moveTip(session: Session, target: Target, to: string, deltas: PathDelta[], side: 'before' | 'after', message: string, redo: Prepared['redo']): Promise<void> {
  const paths = deltas.map((d) => d.path);
  await runTransaction(session, target, side === 'after' ? 'redo' : 'undo', identities(session), async (lock) => {
    const stamps = await requireClean(session, target, lock, target.baseTree!, paths, message);
    return {
      stamps,
      newOid: to,
      targets: new Map(deltas.map((d) => [d.path, editOf(d[side])])),
      contents: new Map(),
      // requireClean made sure the checkout holds the tip there, the other side of each delta
      found: new Map(deltas.map((d) => [d.path, d[side === 'before' ? 'after' : 'before']?.oid ?? null])),
      reflogMessage: `patchtx: ${message}`,
      redo,
    };
  });
}

/**
 * The reverse edit as a V4A patch, so a revert is a patchtx transaction like any other (show,
 * replay). V4A cannot say everything git can (binary content, a change of line endings or of the
 * final newline alone, names the patch grammar refuses): then the revert keeps no patch text and
 * its Patch-Id is derived from the commit it reverts.
 */
async function reversePatch(session: Session, deltas: PathDelta[], undone: string): Promise<{ text: string | null; id: string }> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const text = async (e: PathDelta['before']): Promise<string | null> => (e === null ? null : decoder.decode(await session.store.readBlob(e.oid)));
  try {
    const files = await Promise.all(deltas.map(async (d) => ({ path: d.path, before: await text(d.after), after: await text(d.before) })));
    if (files.some((f) => (f.before ?? '').includes('\0') || (f.after ?? '').includes('\0'))) throw new Error('binary');
    const reverseText = createPatchFromTexts(files);
    return { text: reverseText, id: patchId(parsePatch(reverseText)) };
  } catch {
    return { text: null, id: createHash('sha256').update(`revert ${undone}`).digest('hex').slice(0, 40) };
  }
}

async function revertCommit(session: Session, target: Target, undone: string, commit: CommitObject, deltas: PathDelta[], redo: Prepared['redo'] | undefined): Promise<string> {
  const { store } = session;
  const tipTree = target.baseTree!;
  const now = await lookupPaths(store, tipTree, deltas.map((d) => d.path));
  const moved = deltas.filter((d) => {
    const cur = fileEntryOf(now.get(d.path)!);
    return !(cur === null ? d.after === null : d.after !== null && cur.oid === d.after.oid && cur.mode === d.after.mode);
  });
  if (moved.length > 0) {
    throw refused(`cannot revert ${undone.slice(0, 12)}: later commits changed ${moved.map((d) => d.path).join(', ')}`, { paths: moved.map((d) => d.path) });
  }
  const reverse = await reversePatch(session, deltas, undone);
  const subject = commit.message.split('\n')[0];
  const committer = identities(session);
  let result = '';
  await runTransaction(session, target, 'undo', committer, async (lock) => {
    const stamps = await requireClean(session, target, lock, tipTree, deltas.map((d) => d.path), `revert ${undone.slice(0, 12)}`);
    const tree = await editTree(store, tipTree, new Map(deltas.map((d) => [d.path, editOf(d.before)])));
    const message = appendTrailers(`Revert "${subject}"\n\nThis reverts commit ${undone}.\n`, [
      { key: UNDO_TRAILER, value: undone },
      { key: PATCH_ID_TRAILER, value: reverse.id },
    ]);
    result = await store.writeCommit({ tree, parents: [target.base!], author: committer, committer, message });
    return {
      newOid: result,
      targets: new Map(deltas.map((d) => [d.path, editOf(d.before)])),
      contents: new Map(),
      // the tip holds the reverted commit's side of each delta (checked above), and so does the checkout
      found: new Map(deltas.map((d) => [d.path, d.after?.oid ?? null])),
      stamps,
      reflogMessage: `patchtx: revert ${undone.slice(0, 12)}`,
      ...(reverse.text !== null ? { note: { ref: NOTES_REF, text: reverse.text } } : {}),
      // by default remember the revert itself: redo of a revert is the undo of that revert
      redo: redo ?? { push: result },
    };
  });
  return result;
}

async function undoIn(session: Session, target: Target, commitRev: string | undefined, redo: Prepared['redo']): Promise<UndoResult> {
  const { store, repo } = session;
  const tip = target.oldOid;
  if (tip === null) throw refused(`${target.ref} has no commits; nothing to undo`);
  const oid = commitRev === undefined ? await findNewestPatchtxCommit(session, tip) : await resolveRevision(store, repo, commitRev);
  const commit = await store.readCommit(oid);
  if (!patchtxInfo(commit)) throw refused(`${oid.slice(0, 12)} was not made by patchtx (no Patch-Id trailer); use git revert`, { commit: oid });
  if (commit.parents.length !== 1) throw refused(`${oid.slice(0, 12)} has ${commit.parents.length} parents; patchtx undoes only single-parent commits`, { commit: oid });
  const parent = commit.parents[0];
  const parentTree = (await store.readCommit(parent)).tree;
  const deltas = await diffTrees(store, parentTree, commit.tree);
  if (oid === tip) {
    await moveTip(session, target, parent, deltas, 'before', `undo ${oid.slice(0, 12)}`, redo ?? { push: oid });
    return { ok: true, action: 'reset', ref: target.ref, commit: parent, target: oid, files: changesOf(deltas, true) };
  }
  if (!(await isFirstParentAncestor(session, tip, oid))) throw refused(`${oid.slice(0, 12)} is not on ${target.ref}`, { commit: oid });
  const revert = await revertCommit(session, target, oid, commit, deltas, redo);
  return { ok: true, action: 'revert', ref: target.ref, commit: revert, target: oid, files: changesOf(deltas, true) };
}

export async function undoTransaction(opts: UndoOptions): Promise<UndoResult> {
  return withSession(opts, async (session) => {
    const target = await resolveTarget(session, { ref: opts.ref });
    return withRecovery(session, await undoIn(session, target, opts.commit, undefined));
  });
}

const withRecovery = (session: Session, r: UndoResult): UndoResult => (session.recovered ? { ...r, recovered: session.recovered } : r);

export async function redoTransaction(opts: Omit<UndoOptions, 'commit'>): Promise<UndoResult> {
  return withSession(opts, async (session) => withRecovery(session, await redoIn(session, opts)));
}

async function redoIn(session: Session, opts: Omit<UndoOptions, 'commit'>): Promise<UndoResult> {
  const target = await resolveTarget(session, { ref: opts.ref });
  const stack = readRedoStack(session.repo, target.ref);
  const last = stack[stack.length - 1];
  if (!last) throw refused(`nothing to redo on ${target.ref}`);
  const commit = await session.store.readCommit(last);
  const info = patchtxInfo(commit);
  if (commit.parents[0] === target.oldOid) {
    const deltas = await diffTrees(session.store, target.baseTree, commit.tree);
    await moveTip(session, target, last, deltas, 'after', `redo ${last.slice(0, 12)}`, { pop: true });
    return { ok: true, action: 'fast-forward', ref: target.ref, commit: last, target: last, files: changesOf(deltas) };
  }
  if (info?.undoOf) {
    // the last undo was a revert commit: redo is undoing that revert
    return { ...(await undoIn(session, target, last, { pop: true })), redid: info.undoOf };
  }
  throw refused(`${target.ref} has moved since ${last.slice(0, 12)} was undone; re-apply it with: patchtx show ${last.slice(0, 12)} | patchtx apply`, { commit: last });
}
