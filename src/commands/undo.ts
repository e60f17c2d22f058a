// `patchtx undo` and `patchtx redo`. Undo of the tip moves the ref back to its parent (compare-and-
// swap, like any transaction; a first commit's undo deletes the ref, leaving the branch unborn)
// and restores exactly the paths the commit changed; undo of an older commit makes a revert
// commit, when the later history left those paths alone. Both refuse when
// the paths have uncommitted changes, and refuse a commit amended since patchtx made it. Undo of
// the tip puts back the uncommitted work the transaction took in (tx/saved.ts). Redo brings back
// what the last undo removed.
import { createHash } from 'node:crypto';
import { PatchtxError } from '../errors.js';
import type { FileChange } from '../engine/types.js';
import { hashBlob } from '../git/objects/hash.js';
import { resolveIdentity } from '../git/repo/identity.js';
import type { IndexLock } from '../git/index/lock.js';
import { serializeCommit, type CommitObject, type Identity } from '../git/objects/model/commit.js';
import { signerFor, signPayload } from '../git/repo/signing.js';
import { appendTrailers } from '../git/objects/model/trailers.js';
import { DELETED_REF, resolveRevision } from '../git/refs/refs.js';
import { diffTrees, type PathDelta } from '../git/objects/tree-diff.js';
import { editTree, fileEntryOf, lookupPaths, type TreeEdit } from '../git/objects/tree-edit.js';
import { worktreeContentOid } from '../git/worktree/worktree.js';
import { createPatchFromTexts } from '../patch/create.js';
import { parsePatch } from '../patch/parse.js';
import { DEEPEN_REMEDY, readShallow } from '../git/refs/shallow.js';
import { changesOf, firstParents, patchtxInfo, type HistoryStep } from '../tx/history.js';
import { PATCH_ID_TRAILER, TREE_TRAILER, UNDO_TRAILER } from '../tx/message.js';
import { patchId } from './patch-id.js';
import { invertMoves, movedFrom, withMoves } from './moves.js';
import { readNote } from '../git/refs/notes.js';
import { stampsOf } from '../tx/as-read.js';
import { readRedoStack } from '../tx/redo-stack.js';
import { NOTES_REF, runTransaction, type NoteWarning, type Prepared } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { checkoutForms } from '../tx/conversions.js';
import { readSavedRecord, savedRecordPath, type SavedPath } from '../tx/saved.js';
import { dirtyList, inspectPaths, type PathState } from '../tx/state.js';
import type { RecoveryReport } from '../tx/recover.js';
import { resolveTarget, type Target } from '../tx/target.js';

export interface UndoOptions extends SessionOptions {
  ref?: string;
  commit?: string;
  /** make a revert commit even for the tip: the ref only moves forward (a branch others have) */
  revert?: boolean;
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
  /** what went wrong after the ref moved (the note, the redo history, a file left as it was), if anything */
  warnings?: NoteWarning[];
}

const refused = (message: string, data: Record<string, unknown> = {}): PatchtxError => new PatchtxError('undo_refused', message, data);

/** The changes `deltas` make, or with `reverse`, the changes that take them back (what an undo does). */
const editOf = (e: PathDelta['before']): TreeEdit => (e === null ? null : { oid: e.oid, mode: e.mode as Exclude<TreeEdit, null>['mode'] });

/**
 * Refuses when any of `paths` has uncommitted changes against `tree` in this checkout, unless
 * `accept` takes them (redo: the work an undo put back); returns their lstat data (tx/as-read.ts),
 * so that a file saved while the run goes on is not overwritten, and the paths accepted.
 */
async function requireClean(
  session: Session,
  target: Target,
  lock: IndexLock | null,
  tree: string,
  paths: string[],
  what: string,
  accept?: (st: PathState) => Promise<boolean>,
): Promise<{ stamps?: Map<string, string>; accepted: Set<string> }> {
  const accepted = new Set<string>();
  if (!target.worktree) return { accepted };
  // the paths' attributes come from `tree` too: converted files are compared as git compares them
  const states = await inspectPaths(session, tree, paths, lock?.index ?? null, true);
  for (const st of states.values()) if (st.dirty !== undefined && accept && (await accept(st))) accepted.add(st.path);
  const dirtyStates = [...states.values()].filter((s) => s.dirty !== undefined && !accepted.has(s.path));
  if (dirtyStates.length > 0) {
    const dirty = dirtyStates.map((s) => s.path);
    throw refused(`cannot ${what}: these paths have uncommitted changes:\n${dirtyList(dirtyStates)}\ncommit or stash them first`, { paths: dirty });
  }
  return { stamps: stampsOf(states.values()), accepted };
}

/** Whether the checkout holds at `st.path` exactly the saved work `s` (an undo put it back). */
async function holdsSaved(session: Session, st: PathState, s: SavedPath | undefined): Promise<boolean> {
  if (!s || st.index?.some((e) => e.stage !== 0)) return false;
  const entry = st.index?.find((e) => e.stage === 0);
  if (entry ? !s.index || entry.oid !== s.index.oid || entry.mode !== parseInt(s.index.mode, 8) : s.index !== null) return false;
  const wt = st.worktree!;
  if (s.worktree === null) return wt.kind === 'missing';
  if (wt.kind !== 'file' && wt.kind !== 'symlink') return false;
  if ((wt.kind === 'symlink') !== (s.worktree.mode === '120000')) return false;
  const trustExec = session.config.getBool('core.filemode') ?? true;
  if (wt.kind === 'file' && trustExec && wt.executable !== (s.worktree.mode === '100755')) return false;
  return (await worktreeContentOid(session.repo.workdir!, st.path, wt.stat)) === s.worktree.oid;
}

/**
 * Refuses to undo (or revert) a commit whose tree is not the one patchtx made: `git commit
 * --amend` keeps the trailers, and undoing the amended commit would drop what the amend added.
 */
function requireOwnTree(oid: string, commit: CommitObject, tree: string | null): void {
  if (tree === null || tree === commit.tree) return;
  throw refused(
    `${oid.slice(0, 12)} is not the commit patchtx made: its tree changed after patchtx made it (amended, say: git commit --amend keeps the Patch-Id trailer), and undoing it would drop those changes too; use git revert or git reset`,
    { commit: oid },
  );
}

/**
 * `found` (path -> blob the checkout holds, as committed in `commit`) turned into what the files
 * hold on disk: where git converts a path on checkout (line endings, ident), the hash of that
 * form, so that a file that is only touched is not taken for one changed meanwhile. `raw`: paths
 * whose entry is already the bytes on disk (saved work, symbolic links).
 */
export async function asCheckedOut(
  session: Session,
  commit: string,
  found: Map<string, string | null>,
  raw: ReadonlySet<string> = new Set(),
): Promise<Map<string, string | null>> {
  const paths = [...found].filter(([p, oid]) => oid !== null && !raw.has(p)).map(([p]) => p);
  if (paths.length === 0 || !session.repo.workdir) return found;
  const form = await checkoutForms(session, commit, paths);
  for (const p of paths) {
    const blob = await session.store.readBlob(found.get(p)!, p);
    const onDisk = form(p, blob);
    if (onDisk !== blob) found.set(p, hashBlob(onDisk));
  }
  return found;
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
  let shallowEnd: string | null = null;
  for await (const { oid, commit, boundary } of firstParents(session.store, tip)) {
    if (boundary && commit.parents.length > 0) shallowEnd = oid;
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
  const why = skippedReverts ? 'every patchtx commit on this ref has been undone already' : 'no patchtx commit found on this ref';
  throw refused(shallowEnd === null ? why : `${why} as far as this shallow clone's history goes (it ends at ${shallowEnd.slice(0, 12)}); ${DEEPEN_REMEDY}`);
}

/**
 * Whether `oid` is on `tip`'s first-parent line, and the revert made by undo above it that is in
 * effect (not itself reverted), if any; a shallow clone's end is named when the walk stopped there.
 */
async function placeOnRef(session: Session, tip: string, oid: string): Promise<{ found: boolean; shallowEnd: string | null; revertedBy: HistoryStep | null }> {
  let last: HistoryStep | null = null;
  let revertedBy: HistoryStep | null = null;
  // newest first: a revert of a revert is seen before the revert it takes back
  const undone = new Set<string>();
  for await (const c of firstParents(session.store, tip)) {
    if (c.oid === oid) return { found: true, shallowEnd: null, revertedBy };
    const undoOf = patchtxInfo(c.commit)?.undoOf ?? null;
    if (undoOf !== null && !undone.has(c.oid)) {
      undone.add(undoOf);
      if (undoOf === oid) revertedBy ??= c;
    }
    last = c;
  }
  return { found: false, shallowEnd: last?.boundary && last.commit.parents.length > 0 ? last.oid : null, revertedBy: null };
}

/**
 * Refuses (missing_object, naming the path) before anything moves when a file the checkout is to
 * be given is not in the repository: a partial clone fetched only the blobs it checked out.
 */
async function requireBlobs(session: Session, target: Target, deltas: PathDelta[], side: 'before' | 'after'): Promise<void> {
  if (!target.worktree) return;
  for (const d of deltas) {
    const e = d[side];
    // readBlob throws the error that names the object, the path and the remedy
    if (e !== null && e.mode !== '160000' && !(await session.store.hasObject(e.oid))) await session.store.readBlob(e.oid, d.path);
  }
}

/**
 * Moves the ref from its tip to `to`, restoring `deltas` in the checkout (state `to`). `saved`:
 * the uncommitted work the transaction undone or redone replaced (tx/saved.ts). Undo puts it back
 * as it was, files and index entries; redo takes the checkout from it (as undo left it) to the
 * commit, as it does from a clean checkout.
 */
async function moveTip(
  session: Session,
  target: Target,
  to: string,
  deltas: PathDelta[],
  side: 'before' | 'after',
  message: string,
  redo: Prepared['redo'],
  saved: SavedPath[] = [],
): Promise<NoteWarning[]> {
  const from = side === 'before' ? 'after' : 'before';
  // what the tip holds at each path (`now`) and what the ref moves to (`next`)
  const entries = new Map(deltas.map((d) => [d.path, { now: editOf(d[from]), next: editOf(d[side]) }]));
  const unchanged = saved.filter((s) => !entries.has(s.path)).map((s) => s.path);
  const infos = await lookupPaths(session.store, target.baseTree, unchanged);
  for (const p of unchanged) entries.set(p, { now: fileEntryOf(infos.get(p)!), next: fileEntryOf(infos.get(p)!) });
  const savedAt = new Map(saved.map((s) => [s.path, s]));
  const restore = side === 'before' ? savedAt : new Map<string, SavedPath>();
  const paths = [...entries.keys()];
  await requireBlobs(session, target, deltas, side);
  const outcome = await runTransaction(session, target, side === 'after' ? 'redo' : 'undo', identities(session), async (lock) => {
    const accept = side === 'after' && saved.length > 0 ? (st: PathState) => holdsSaved(session, st, savedAt.get(st.path)) : undefined;
    const { stamps, accepted } = await requireClean(session, target, lock, target.baseTree!, paths, message, accept);
    const found = new Map<string, string | null>();
    // requireClean made sure the checkout holds the tip there, or (redo) the saved work
    for (const [p, e] of entries) found.set(p, accepted.has(p) ? (savedAt.get(p)!.worktree?.oid ?? null) : (e.now?.oid ?? null));
    const links = [...entries].filter(([, e]) => e.now?.mode === '120000').map(([p]) => p);
    await asCheckedOut(session, target.oldOid!, found, new Set([...accepted, ...links]));
    return {
      stamps,
      newOid: to,
      targets: new Map([...entries].map(([p, e]) => [p, restore.has(p) ? restore.get(p)!.worktree : e.next])),
      index: new Map([...restore].map(([p, s]) => [p, s.index])),
      restore: restore.size > 0 ? target.oldOid! : undefined,
      contents: new Map(),
      found,
      reflogMessage: `patchtx: ${message}`,
      redo,
    };
  });
  return outcome.warnings;
}

/**
 * The reverse edit as a V4A patch, so a revert is a patchtx transaction like any other (show,
 * replay). V4A cannot say everything git can (binary content, a change of line endings or of the
 * final newline alone, names the patch grammar refuses): then the revert keeps no patch text and
 * its Patch-Id is derived from the commit it reverts.
 */
async function reversePatch(session: Session, deltas: PathDelta[], undone: string): Promise<{ text: string | null; id: string }> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const text = async (e: PathDelta['before'], p: string): Promise<string | null> =>
    e === null ? null : decoder.decode(await session.store.readBlob(e.oid, p));
  try {
    const files = await Promise.all(deltas.map(async (d) => ({ path: d.path, before: await text(d.after, d.path), after: await text(d.before, d.path) })));
    if (files.some((f) => (f.before ?? '').includes('\0') || (f.after ?? '').includes('\0'))) throw new Error('binary');
    const reverseText = createPatchFromTexts(files);
    return { text: reverseText, id: patchId(parsePatch(reverseText)) };
  } catch (e) {
    // a blob a partial clone did not fetch is the user's to fetch, not a change V4A cannot say
    if (e instanceof PatchtxError && e.kind === 'missing_object') throw e;
    return { text: null, id: createHash('sha256').update(`revert ${undone}`).digest('hex').slice(0, 40) };
  }
}

async function revertCommit(
  session: Session,
  target: Target,
  undone: string,
  commit: CommitObject,
  deltas: PathDelta[],
  redo: Prepared['redo'] | undefined,
): Promise<{ commit: string; warnings: NoteWarning[] }> {
  const { store } = session;
  const tipTree = target.baseTree!;
  const now = await lookupPaths(
    store,
    tipTree,
    deltas.map((d) => d.path),
  );
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
  // a revert commit is signed as git revert signs it: when commit.gpgSign says so
  const signer = signerFor(session.config, committer, session.env);
  let result = '';
  const outcome = await runTransaction(session, target, 'undo', committer, async (lock) => {
    const { stamps } = await requireClean(
      session,
      target,
      lock,
      tipTree,
      deltas.map((d) => d.path),
      `revert ${undone.slice(0, 12)}`,
    );
    const tree = await editTree(store, tipTree, new Map(deltas.map((d) => [d.path, editOf(d.before)])));
    const message = appendTrailers(`Revert "${subject}"\n\nThis reverts commit ${undone}.\n`, [
      { key: TREE_TRAILER, value: tree },
      { key: UNDO_TRAILER, value: undone },
      { key: PATCH_ID_TRAILER, value: reverse.id },
    ]);
    const unsigned: CommitObject = { tree, parents: [target.base!], author: committer, committer, message };
    const gpgsig = signer === null ? undefined : await signPayload(signer, serializeCommit(unsigned), session.env);
    result = await store.writeCommit(gpgsig === undefined ? unsigned : { ...unsigned, gpgsig });
    return {
      newOid: result,
      targets: new Map(deltas.map((d) => [d.path, editOf(d.before)])),
      contents: new Map(),
      // the tip holds the reverted commit's side of each delta (checked above), and so does the checkout
      found: await asCheckedOut(
        session,
        target.oldOid!,
        new Map(deltas.map((d) => [d.path, d.after?.oid ?? null])),
        new Set(deltas.filter((d) => d.after?.mode === '120000').map((d) => d.path)),
      ),
      stamps,
      reflogMessage: `patchtx: revert ${undone.slice(0, 12)}`,
      ...(reverse.text !== null ? { note: { ref: NOTES_REF, text: reverse.text } } : {}),
      // by default remember the revert itself: redo of a revert is the undo of that revert
      redo: redo ?? { push: result },
    };
  });
  return { commit: result, warnings: outcome.warnings };
}

async function undoIn(session: Session, target: Target, commitRev: string | undefined, redo: Prepared['redo'], alwaysRevert = false): Promise<UndoResult> {
  const { store, repo } = session;
  const tip = target.oldOid;
  if (tip === null) throw refused(`${target.ref} has no commits; nothing to undo`);
  const oid = commitRev === undefined ? await findNewestPatchtxCommit(session, tip) : await resolveRevision(store, repo, commitRev);
  const commit = await store.readCommit(oid);
  const info = patchtxInfo(commit);
  if (!info) throw refused(`${oid.slice(0, 12)} was not made by patchtx (no Patch-Id trailer); use git revert`, { commit: oid });
  requireOwnTree(oid, commit, info.tree);
  if (commit.parents.length > 1)
    throw refused(`${oid.slice(0, 12)} has ${commit.parents.length} parents; patchtx undoes only single-parent commits`, { commit: oid });
  // the repository's first commit: its changes are taken back against the empty tree, and undone
  // at the tip, it takes the branch back to unborn (the ref is deleted; HEAD still names it)
  const parent = commit.parents[0] ?? null;
  if (parent === null && oid === tip && !alwaysRevert && target.ref === 'HEAD') {
    throw refused(
      `${oid.slice(0, 12)} is a first commit and HEAD is detached at it: there is no branch to take back to no commit; a revert commit can undo it`,
      { commit: oid, remedy: { option: 'revert', value: 'true' } },
    );
  }
  if (oid !== tip) {
    const onRef = await placeOnRef(session, tip, oid);
    if (!onRef.found) {
      const where =
        onRef.shallowEnd === null ? '' : ` as far as this shallow clone's history goes (it ends at ${onRef.shallowEnd.slice(0, 12)}); ${DEEPEN_REMEDY}`;
      throw refused(`${oid.slice(0, 12)} is not on ${target.ref}${where}`, { commit: oid });
    }
    if (onRef.revertedBy !== null) {
      const by = onRef.revertedBy;
      throw refused(
        `${oid.slice(0, 12)} was already reverted by ${by.oid.slice(0, 12)} (${by.commit.message.split('\n')[0]}); an undo of ${by.oid.slice(0, 12)} brings it back`,
        {
          commit: oid,
          revertedBy: by.oid,
        },
      );
    }
  }
  if (parent !== null && (await readShallow(repo)).has(oid)) {
    throw new PatchtxError(
      'missing_object',
      `cannot undo ${oid.slice(0, 12)}: its parent ${parent.slice(0, 12)} is not in this shallow clone; ${DEEPEN_REMEDY}`,
      { commit: oid, oid: parent },
    );
  }
  const parentTree = parent === null ? null : (await store.readCommit(parent)).tree;
  const deltas = await diffTrees(store, parentTree, commit.tree);
  if (oid === tip && !alwaysRevert) {
    const saved = target.worktree ? await readSavedRecord(store, repo, NOTES_REF, oid) : null;
    const warnings = await moveTip(session, target, parent ?? DELETED_REF, deltas, 'before', `undo ${oid.slice(0, 12)}`, redo ?? { push: oid }, saved ?? []);
    return withWarnings({ ok: true, action: 'reset', ref: target.ref, commit: parent, target: oid, files: await undoneFiles(session, oid, deltas) }, warnings);
  }
  // a revert commit takes back the commit's changes, not the checkout's: the uncommitted work the
  // transaction took in would be dropped from the working tree, so that is refused
  const saved = target.worktree ? await readSavedRecord(store, repo, NOTES_REF, oid) : null;
  if (saved && saved.length > 0) {
    const where = saved.map((s) => s.path).join(', ');
    const how =
      oid === tip
        ? 'an undo without a revert commit puts it back'
        : `it stays saved beside the transaction's note (git show ${NOTES_REF}:${savedRecordPath(oid)}/worktree/PATH)`;
    throw refused(
      `cannot revert ${oid.slice(0, 12)}: it took in uncommitted work at ${where}, which a revert commit would drop from the working tree; ${how}`,
      { commit: oid, paths: saved.map((s) => s.path) },
    );
  }
  const revert = await revertCommit(session, target, oid, commit, deltas, redo);
  return withWarnings(
    { ok: true, action: 'revert', ref: target.ref, commit: revert.commit, target: oid, files: await undoneFiles(session, oid, deltas) },
    revert.warnings,
  );
}

/** What taking `oid` back changes, its moves (from the patch kept with it) reported as moves back. */
async function undoneFiles(session: Session, oid: string, deltas: readonly PathDelta[]): Promise<FileChange[]> {
  const note = await readNote(session.store, session.repo, NOTES_REF, oid);
  return withMoves(changesOf(deltas, true), invertMoves(movedFrom(note ?? '')));
}

export async function undoTransaction(opts: UndoOptions): Promise<UndoResult> {
  return withSession(opts, async (session) => {
    const target = await resolveTarget(session, { ref: opts.ref });
    return withRecovery(session, await undoIn(session, target, opts.commit, undefined, opts.revert));
  });
}

const withWarnings = (r: UndoResult, warnings: NoteWarning[]): UndoResult => (warnings.length > 0 ? { ...r, warnings } : r);
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
  // (a first commit undone left the branch unborn: it has no parent, and the ref no value)
  if ((commit.parents[0] ?? null) === target.oldOid) {
    const deltas = await diffTrees(session.store, target.baseTree, commit.tree);
    const saved = target.worktree ? await readSavedRecord(session.store, session.repo, NOTES_REF, last) : null;
    const warnings = await moveTip(session, target, last, deltas, 'after', `redo ${last.slice(0, 12)}`, { pop: true }, saved ?? []);
    const files = withMoves(changesOf(deltas), movedFrom((await readNote(session.store, session.repo, NOTES_REF, last)) ?? ''));
    return withWarnings({ ok: true, action: 'fast-forward', ref: target.ref, commit: last, target: last, files }, warnings);
  }
  if (info?.undoOf) {
    // the last undo was a revert commit: redo is undoing that revert
    return { ...(await undoIn(session, target, last, { pop: true }, opts.revert)), redid: info.undoOf };
  }
  throw refused(`${target.ref} has moved since ${last.slice(0, 12)} was undone; re-apply it with: patchtx show ${last.slice(0, 12)} | patchtx apply`, {
    commit: last,
  });
}
