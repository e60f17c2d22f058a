// `patchtx apply` and `patchtx check`: a whole patch becomes exactly one commit on the target ref,
// or nothing. The engine computes the new contents of the touched paths from the overlay; this
// module turns them into objects, one commit, and (through tx/run.ts) a published ref.
import { PatchtxError } from '../errors.js';
import { namingOrigin, planPatch } from '../engine/plan.js';
import type { Dialect, FileChange, Plan, PlanOptions, PlanWarning } from '../engine/types.js';
import { converts } from '../git/worktree/convert.js';
import { hashBlob, hashObject } from '../git/objects/hash.js';
import { parseIdentityOverride, resolveIdentity } from '../git/repo/identity.js';
import type { GitIndex } from '../git/index/format.js';
import { readIndex } from '../git/index/read.js';
import { validateIndexUpdates } from '../git/index/updates.js';
import { appendTrailers, readTrailers, type Trailer } from '../git/objects/model/trailers.js';
import type { Identity } from '../git/objects/model/identity.js';
import { EMPTY_TREE_OID, type TreeMode } from '../git/objects/model/tree.js';
import { editTree, type TreeEdit } from '../git/objects/tree-edit.js';
import type { Limits } from '../patch/limits.js';
import { parseStep, stepFormat, type Step } from '../edits/step.js';
import { noteFromResult } from './edit-note.js';
import type { Patch } from '../patch/types.js';
import type { TouchedFiles } from '../tx/touched-files.js';
import { stampsOf } from '../tx/as-read.js';
import { crashPoint } from '../tx/crash.js';
import { DryRunObjectStore } from './dry-store.js';
import type { ReplayedFiles } from './replay-verify.js';
import { patchtxInfo } from '../tx/history.js';
import { planAhead, planMadeAhead, planOutcome, type PlannedAhead } from './plan-ahead.js';
import { savedPathOf, savedRecordPath, savedSpec, writeSavedRecord, type SavedPath } from '../tx/saved.js';
import { checkMessageOption, generatedMessage, parseTrailerOption, PATCH_ID_TRAILER, TREE_TRAILER } from '../tx/message.js';
import { normalisePatch, patchId } from './patch-id.js';
import type { RecoveryReport } from '../tx/recover.js';
import { NOTES_REF, runTransaction, type Prepared } from '../tx/run.js';
import { checkCheckoutRoom, checkCheckoutWritable, indexUpdatesOf } from '../tx/sync.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { inspectPaths, loadTouched, type LoadedState, type PathState } from '../tx/state.js';
import { stillWitnessed, witnessLoad, type LoadWitness } from '../tx/load-witness.js';
import {
  committedForm,
  conversionsOfResult,
  lineFormsOf,
  storedAsItIs,
  storedForm,
  type CommittedForm,
  type Conversion,
  type ConvertedPath,
} from '../tx/conversions.js';
import { offBase, resolveTarget, type Target, type TargetOptions } from '../tx/target.js';
import { withPathHint } from './path-hint.js';
import { mark, timingEnd, timingStart } from '../timing.js';
import { messageHooks, messageThroughHooks, runPostCommit } from './commit-hooks.js';
import { serializeCommit, type CommitObject } from '../git/objects/model/commit.js';
import { signerFor, signPayload, type Signer } from '../git/repo/signing.js';
import { patchDirectory, rerootPatch, touchedPaths, type TouchedPath } from '../tx/touched.js';

export interface ApplyOptions extends SessionOptions, TargetOptions {
  patchText: string;
  message?: string;
  author?: string;
  committer?: string;
  /** `KEY=VALUE` specs */
  trailers?: string[];
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  /**
   * Apply the patch even when the target's tip carries its Patch-Id. By default that is a success
   * with nothing written (`alreadyApplied`): a re-run of the same patch must not apply it twice.
   */
  allowReapply?: boolean;
  /** run everything, write nothing */
  check?: boolean;
  /** return before/after bytes of every changed path (for --diff) */
  withContents?: boolean;
  /** bounds on the patch and on matching (defaults: DEFAULT_LIMITS) */
  limits?: Partial<Limits>;
  /**
   * The patch's paths are relative to this directory of the working tree ('' or absent: its root),
   * as when apply_patch runs in a subdirectory. The note then keeps the patch re-rooted, so
   * `patchtx show | patchtx apply` replays it from anywhere.
   */
  pathPrefix?: string;
  /**
   * Patches applied after patchText in the same transaction, each seeing the results of the ones
   * before (the steps of a library transaction). The note then holds their hunks in order in one
   * patch, which re-applies to the same result.
   */
  laterPatches?: readonly string[];
  /** whose final-newline rules the patch is applied with (default: Codex's; see PlanOptions) */
  dialect?: Dialect;
  /**
   * The tree the commit must have (a replay of patchtx's export): a patch that makes another one
   * is refused (replay_mismatch) before anything is written.
   */
  expectTree?: string;
  /**
   * The commit as it was recorded (a replay that keeps metadata): this message, with patchtx's
   * trailers (which must name this tree and Patch-Id), and these identities, dates included.
   */
  kept?: {
    message: string;
    author: Identity;
    committer: Identity;
    /** the recorded commit's signature, put back when the commit made is that very commit */
    signature?: { gpgsig: string; commit: string };
    /** the recorded Patch-Id, taken for the patch's own where the patch is a note made from the
     * result of other steps (replay-patch-id.ts; the tree is then checked: expectTree) */
    patchId?: string;
  };
  /** shown the result before the commit is written; throws to refuse it (a replay comparing it
   * with the changes its log records) */
  verify?: (files: ReplayedFiles) => void;
  /**
   * The steps, when given, instead of patchText and laterPatches: each patch text (V4A, a unified
   * diff, Aider blocks, told apart by their content) or a list of edit operations (src/edits).
   */
  steps?: readonly Step[];
  /** skip the commit-msg hook, as `git commit --no-verify` does (commit-hooks.ts) */
  noVerify?: boolean;
  /** sign the commit (true) or not (false) whatever commit.gpgSign says (git/repo/signing.ts) */
  sign?: boolean;
}

/** Before and after bytes of a changed path; shared with the transaction (a pure rename's two
 * are the same bytes), so read-only. */
export interface FileContents {
  path: string;
  from?: string;
  before: Uint8Array | null;
  after: Uint8Array | null;
}

export interface TxResult {
  ok: true;
  /** the new commit (for check: the commit id it would have) or null for a noop */
  commit: string | null;
  parent: string | null;
  ref: string;
  noop: boolean;
  checked: boolean;
  files: FileChange[];
  /** Codex-style per-hunk summary lines */
  summary: string[];
  warnings: PlanWarning[];
  patchId: string;
  /** the commit's message (null for a noop) and tree (the base's for a noop) */
  message: string | null;
  tree: string;
  author: Identity;
  committer: Identity;
  contents?: FileContents[];
  /** the tip, when it was made from this very patch (same Patch-Id): nothing was written */
  alreadyApplied?: string;
  /** what recovery of an earlier interrupted run did, if anything */
  recovered?: RecoveryReport;
}

/**
 * The plan's changes by path, looked up once per written path: a 1,000-file patch has as many
 * changes, so a scan of the list per path would cost a million comparisons.
 */
interface ChangesByPath {
  /** paths with any change */
  changed: Set<string>;
  /** paths the patch adds */
  added: Set<string>;
  /** the first rename onto each path */
  movedTo: Map<string, FileChange>;
}

function changesByPath(changes: readonly FileChange[]): ChangesByPath {
  const out: ChangesByPath = { changed: new Set(), added: new Set(), movedTo: new Map() };
  for (const c of changes) {
    out.changed.add(c.path);
    if (c.op === 'A') out.added.add(c.path);
    if (c.op === 'R' && !out.movedTo.has(c.path)) out.movedTo.set(c.path, c);
  }
  return out;
}

function modeFor(p: string, states: Map<string, PathState>, byPath: ChangesByPath): TreeMode {
  const own = states.get(p)?.base;
  if (own?.type === 'blob') return own.mode;
  const moved = byPath.movedTo.get(p);
  const source = moved?.from !== undefined ? states.get(moved.from)?.base : undefined;
  if (source?.type === 'blob') return source.mode;
  return '100644';
}

/**
 * The blob `git add` would compare a path's new content with for git's text=auto rule: its index
 * entry, which a move brings along from the source (as `git mv` does) and a delete removes.
 */
function indexBlobFor(p: string, states: Map<string, PathState>, touched: Map<string, TouchedPath>, byPath: ChangesByPath): string | null {
  const moved = byPath.movedTo.get(p);
  if (!moved && touched.get(p)?.kinds.values().next().value === 'delete') return null;
  const st = states.get(moved?.from ?? p);
  if (st?.index !== undefined) return st.index.find((e) => e.stage === 0)?.oid ?? null;
  return st?.base.type === 'blob' ? st.base.oid : null;
}

/**
 * The note's text where the input says it: V4A steps are their own note (null: it is made from
 * the result); `diff`: the input, when it is one unified diff, which says a result that only it
 * can say (diffCommittedForm).
 */
interface NoteInput {
  text: string | null;
  diff: string | null;
}

/**
 * A unified diff's result committed as `git apply --index` commits it (Plan.stored), where it is:
 * not for uncommitted work taken in (--index refuses it; it is stored as `git add` stores it after
 * a plain `git apply`), and where `git add` of the result would store something else, only when
 * the note can say it (`diffIsNote`: the diff is the note; a note made from the result replays
 * as `git add` stores it). Undefined: the result is stored as `git add` stores it.
 */
async function diffCommittedForm(
  session: Session,
  plan: Plan,
  p: string,
  state: PathState | undefined,
  conversion: Conversion | null,
  data: Uint8Array,
  indexOid: string | null,
  diffIsNote: boolean,
): Promise<{ form: CommittedForm; onlyDiffSays: boolean } | undefined> {
  const stored = plan.stored?.get(p);
  if (stored === undefined || state?.dirty !== undefined) return undefined;
  const form = storedAsItIs(Buffer.from(stored, 'utf8'), conversion);
  if (form === undefined || conversion === null) return form && { form, onlyDiffSays: false };
  const viaAdd = await storedForm(session.store, conversion, data, indexOid);
  if (Buffer.from(viaAdd.data).equals(form.blob)) return { form, onlyDiffSays: false };
  return diffIsNote ? { form, onlyDiffSays: true } : undefined;
}

/**
 * Adding `a/b` where `a` is a file in the base works only when the same patch deletes `a`. The
 * error names the edit operation (block, file of a diff) that wrote the path, when one did.
 */
function checkBlockedAdds(plan: Plan, states: Map<string, PathState>, patch: Patch): void {
  for (const [p, data] of plan.files) {
    const base = states.get(p)?.base;
    if (data === null || base?.type !== 'missing' || !base.blockedBy) continue;
    if (plan.files.get(base.blockedBy.path) === null) continue;
    const e = new PatchtxError('path_rejected', `cannot create ${p}: ${base.blockedBy.path} is a file, not a directory`, {
      path: p,
      reason: 'file_prefix',
      by: base.blockedBy.path,
    });
    const hunk = patch.hunks.find((h) => (h.kind === 'update' && h.moveTo !== null ? h.moveTo : h.path) === p);
    throw hunk ? namingOrigin(e, hunk) : e;
  }
}

/**
 * The patch's changes as the commit makes them (result, message and log then agree): the engine
 * compares with what it was given, which with --dirty=include is the working tree, so an Add over
 * an untracked file looks like an update to it (A: the path is new to the commit), and one where a
 * tracked file was deleted from the working tree like an add (M: it replaces the committed file).
 */
function asCommitted(changes: FileChange[], states: Map<string, PathState>): FileChange[] {
  return changes.map((c) => {
    if (c.op !== 'A' && c.op !== 'M') return c;
    const base = states.get(c.path)?.base.type;
    const op = base === 'blob' || base === 'symlink' ? 'M' : 'A';
    return op === c.op ? c : { ...c, op };
  });
}

/**
 * What the checkout holds at each target path (Journal.found): the base entry where the path is
 * clean (for a converted file, the hash of its working-tree form), the hash of the bytes on disk
 * where --dirty=include took them in (the overlay has them).
 * Directories and special files are not listed.
 */
function foundInCheckout(targets: ReadonlyMap<string, TreeEdit>, states: Map<string, PathState>, overlay: TouchedFiles): Map<string, string | null> {
  const found = new Map<string, string | null>();
  for (const p of targets.keys()) {
    const st = states.get(p);
    const kind = st?.worktree?.kind;
    if (!st || kind === undefined) continue;
    if (kind === 'missing') {
      found.set(p, null);
    } else if ((kind === 'file' || kind === 'symlink') && st.dirty === undefined) {
      // a converted file holds the base blob's working-tree form, which the overlay has
      const bytes = kind === 'file' && converts(st.conversion) ? overlay.read(p) : undefined;
      if (bytes) found.set(p, hashBlob(bytes));
      else if (st.base.type === 'blob' || st.base.type === 'symlink') found.set(p, st.base.oid);
    } else if (kind === 'file' || kind === 'symlink') {
      const bytes = overlay.read(p);
      if (bytes) found.set(p, hashBlob(bytes));
    }
  }
  return found;
}

interface Built {
  prepared: Prepared;
  /** the uncommitted work the run replaces, saved beside its note (tx/saved.ts) */
  saved: Map<string, SavedPath>;
  /** where `saved` is kept when there is no commit: the id of its record tree */
  savedKey?: string;
  plan: Plan;
  /** what the patch does to each path it names */
  touched: Map<string, TouchedPath>;
  states: Map<string, PathState>;
  /** the touched paths as the patch found them (base, or working tree with --dirty=include) */
  overlay: TouchedFiles;
  commit: string | null;
  tree: string;
  message: string | null;
}

/**
 * With --dirty=include, what the commit took in besides the patch: the stored patch text (show,
 * log, a replay elsewhere) does not hold those changes, so a caller must be told, path by path.
 */
function dirtyIncluded(built: Built, check: boolean): PlanWarning[] {
  if (built.commit === null) return replacedWithoutCommit(built);
  const commit = check ? 'the commit would include' : 'the commit includes';
  const warnings: PlanWarning[] = [];
  for (const s of built.states.values()) {
    if (s.dirty === undefined) continue;
    // the content goes on when the patch first updates the file or moves it away; when it first
    // deletes the file, adds one there or moves another onto it, the changes are in no commit
    const first = built.touched.get(s.path)?.kinds.values().next().value;
    const dropped = first === 'delete' ? 'deletes the file' : first === 'add' ? 'adds the file' : first === 'move-dest' ? 'moves another file onto it' : null;
    const saved = built.saved.get(s.path);
    const side = saved?.worktree ? 'worktree' : saved?.index ? 'index' : null;
    const where = side === null ? '' : `git show ${savedSpec(NOTES_REF, built.commit, s.path, side)}`;
    if (dropped !== null) {
      const message = check
        ? `${s.path}: its uncommitted changes (${s.dirty}) would be replaced: the patch ${dropped}; they would be saved beside the transaction's note`
        : `${s.path}: its uncommitted changes (${s.dirty}) were replaced: the patch ${dropped}${where && `; they are saved: ${where}`}`;
      warnings.push({ kind: 'dirty_included', message, path: s.path, replaced: true });
    } else {
      const message = `${s.path}: ${commit} its uncommitted changes (${s.dirty}) besides the patch; the patch stored with the commit does not hold them${where && `; they are saved as they were: ${where}`}`;
      warnings.push({ kind: 'dirty_included', message, path: s.path });
    }
  }
  return warnings;
}

/** Where a patch without a commit replaced uncommitted work (it turned it into the committed content). */
function replacedWithoutCommit(built: Built): PlanWarning[] {
  if (built.savedKey === undefined) return [];
  const warnings: PlanWarning[] = [];
  for (const [p, s] of built.saved) {
    if (!s.worktree) continue;
    const dirty = built.states.get(p)?.dirty;
    const message = `${p}: its uncommitted changes (${dirty}) were replaced: the patch turned the file back into the committed one, so there is nothing to commit; they are saved: git show ${savedSpec(NOTES_REF, built.savedKey, p, 'worktree')}`;
    warnings.push({ kind: 'dirty_included', message, path: p, replaced: true });
  }
  return warnings;
}

/** The uncommitted work at the dirty touched paths, as tx/saved.ts keeps it (checkout mode). */
async function savedWork(session: Session, states: Map<string, PathState>, overlay: TouchedFiles): Promise<Map<string, SavedPath>> {
  const saved = new Map<string, SavedPath>();
  const trustExec = session.config.getBool('core.filemode') ?? true;
  for (const st of states.values()) {
    if (st.dirty === undefined) continue;
    saved.set(st.path, await savedPathOf(session.store, st.path, st.worktree, overlay.read(st.path), st.index ?? [], trustExec));
  }
  return saved;
}

async function build(
  session: Session,
  target: Target,
  patch: Patch,
  opts: ApplyOptions,
  index: GitIndex | null,
  author: Identity,
  committer: Identity,
  pid: string,
  noteInput: NoteInput,
  trailers: Trailer[],
  signer: Signer | null,
  ahead?: Ahead,
  /** check: where objects are "written" (ids computed, nothing stored) */
  dryStore?: DryRunObjectStore,
): Promise<Built> {
  const store = dryStore ?? session.store;
  // the same patch: what the plan made ahead found it touches stands
  const touched = ahead?.touched ?? touchedPaths(patch);
  // the paths as read before the lock, when nothing they were read from has changed since
  const reused = ahead?.witness && (await stillWitnessed(session, ahead.witness, target.baseTree, index)) ? ahead.loaded : undefined;
  if (!reused && ahead) crashPoint('touched-read-again');
  const { states, overlay } =
    reused ??
    (await loadTouched(session, target.baseTree, touched, {
      worktree: target.worktree,
      index,
      dirty: opts.dirty ?? 'refuse',
    }));
  mark('load touched');
  let plan: Plan;
  try {
    if (reused) plan = planOutcome(ahead!.plan);
    else {
      // a plan made ahead stands where it read the same files and placed diffs with the same conversions
      const converted = diffConversions(patch, states);
      const madeAhead = ahead?.converted === JSON.stringify(converted) ? planMadeAhead(ahead.plan, overlay) : undefined;
      plan = madeAhead ?? planPatch(patch, overlay, await planOptions(session, opts, converted));
    }
  } catch (e) {
    // a path that is not there: say what the caller probably meant
    throw await withPathHint(e, session, { tree: target.baseTree, cwd: opts.cwd ?? process.cwd(), pathPrefix: opts.pathPrefix });
  }
  checkBlockedAdds(plan, states, patch);
  // the result is stored and checked out with the attributes it has itself (the patch may change them)
  const conversions = await conversionsOfResult(session, target.baseTree, plan.files, states);
  mark('plan');

  const edits = new Map<string, TreeEdit>();
  const targets = new Map<string, TreeEdit>();
  // a result only the diff given says (diffCommittedForm): the diff is the note
  let onlyDiffSays = false;
  const contents = new Map<string, Uint8Array>();
  const byPath = changesByPath(plan.changes);
  for (const [p, data] of plan.files) {
    const base = states.get(p)?.base;
    if (data === null) {
      if (base?.type === 'blob' || base?.type === 'symlink') edits.set(p, null);
      targets.set(p, null);
      continue;
    }
    const mode = plan.modes?.get(p) ?? modeFor(p, states, byPath);
    const baseEntry = states.get(p)?.base;
    // a mode change alone changes no content: the engine does not list it
    if (baseEntry?.type === 'blob' && baseEntry.mode !== mode && !byPath.changed.has(p)) plan.changes.push({ op: 'M', path: p });
    // core.safecrlf guards bytes a file had; an added file's line endings are the patch format's
    const added = byPath.added.has(p);
    const conversion = mode === '120000' ? null : conversions.get(p)!;
    const indexOid = indexBlobFor(p, states, touched, byPath);
    // most files are neither a diff's result as stored nor converted: they cost no promise here
    // (each promise of a transaction costs a hook call: tx/interrupt.ts)
    const asDiff = plan.stored?.has(p)
      ? await diffCommittedForm(session, plan, p, states.get(p), conversion, data, indexOid, noteInput.diff !== null)
      : undefined;
    if (asDiff?.onlyDiffSays) onlyDiffSays = true;
    const form =
      asDiff?.form ??
      (conversion === null || !converts(conversion)
        ? { blob: data, worktree: data, warning: null }
        : await committedForm(session, p, data, conversion, indexOid, !added));
    if (form.warning !== null) plan.warnings.push({ kind: 'line_endings', message: form.warning, path: p });
    const entry = { oid: await store.writeBlob(form.blob), mode };
    edits.set(p, entry);
    targets.set(p, entry);
    contents.set(p, form.worktree);
  }
  plan.changes = asCommitted(plan.changes, states);
  const tree = await editTree(store, target.baseTree, edits);
  if (opts.expectTree !== undefined && tree !== opts.expectTree) {
    throw new PatchtxError('replay_mismatch', `the patch makes the tree ${tree.slice(0, 12)}, not the recorded ${opts.expectTree.slice(0, 12)}`, {
      expected: opts.expectTree,
      actual: tree,
      reason: 'tree',
    });
  }
  opts.verify?.({ changes: plan.changes, before: (p) => overlay.read(p), after: (p) => plan.files.get(p) });
  const unchanged = tree === (target.baseTree ?? EMPTY_TREE_OID);
  const prepared: Prepared = {
    newOid: null,
    targets,
    contents,
    reflogMessage: '',
    syncWithoutCommit: [...states.values()].some((s) => s.dirty !== undefined),
    found: target.worktree ? foundInCheckout(targets, states, overlay) : undefined,
    stamps: target.worktree ? stampsOf(states.values()) : undefined,
  };
  if (unchanged) {
    // the sync still replaces the uncommitted work (the patch turned it into the committed
    // content): it is saved beside the notes, under the id of its own record
    const saved = opts.check || !prepared.syncWithoutCommit ? new Map<string, SavedPath>() : await savedWork(session, states, overlay);
    if (saved.size === 0) return { prepared, saved, plan, touched, states, overlay, commit: null, tree, message: null };
    const record = await writeSavedRecord(store, [...saved.values()]);
    prepared.savedWithoutCommit = { ref: NOTES_REF, attach: { path: savedRecordPath(record), tree: record } };
    return { prepared, saved, savedKey: record, plan, touched, states, overlay, commit: null, tree, message: null };
  }

  const own = [
    { key: TREE_TRAILER, value: tree },
    { key: PATCH_ID_TRAILER, value: pid },
  ];
  // a recorded commit (a replay keeping metadata) is made again as it was: no hooks, and signed
  // only when asked to be
  const message = opts.kept
    ? keptMessage(opts.kept.message, tree, pid)
    : await throughHooks(session, appendTrailers(opts.message ?? generatedMessage(plan.changes), [...trailers, ...own]), own, opts, author, target.worktree);
  const unsigned: CommitObject = { tree, parents: target.base ? [target.base] : [], author, committer, message };
  // a check writes nothing: it names the commit unsigned
  const signWith = opts.check || (opts.kept !== undefined && opts.sign !== true) ? null : signer;
  const recorded = opts.kept?.signature && !opts.check && opts.sign !== false ? recordedSignature(unsigned, opts.kept.signature) : undefined;
  const commit = await store.writeCommit(
    recorded ?? (signWith ? { ...unsigned, gpgsig: await signPayload(signWith, serializeCommit(unsigned), session.env) } : unsigned),
  );
  prepared.newOid = commit;
  prepared.reflogMessage = `patchtx: ${message.split('\n')[0]}`;
  // what the paths were under the lock (the load, or the witness of the load made ahead) still
  // stands for the checks before the commit point, unless a program of the user's ran since
  const programRan = signWith !== null || (opts.kept === undefined && messageHooks(session, opts.noVerify).length > 0);
  if (target.worktree && !opts.check && !programRan) prepared.seenUnderLock = (p) => states.get(p)?.worktree;
  const modes = {
    before: (p: string) => {
      const b = states.get(p)?.base;
      return b?.type === 'blob' ? b.mode : undefined;
    },
    after: (p: string) => targets.get(p)?.mode,
  };
  // a check writes no note: the work of making one is left out
  const note =
    noteInput.text ??
    (onlyDiffSays ? noteInput.diff : null) ??
    (opts.check ? null : noteFromResult(plan.changes, overlay, plan.files, modes)) ??
    normalisePatch(patch);
  prepared.note = { ref: NOTES_REF, text: note };
  // uncommitted work the run replaces is saved beside the note before the working tree changes
  const saved = opts.check ? new Map<string, SavedPath>() : await savedWork(session, states, overlay);
  if (saved.size > 0) prepared.note.attach = { path: savedRecordPath(commit), tree: await writeSavedRecord(store, [...saved.values()]) };
  prepared.redo = { clear: true };
  mark('objects: hash');
  return { prepared, saved, plan, touched, states, overlay, commit, tree, message };
}

/**
 * A recorded message kept as it is, when its Patch-Id is this patch's. Its Patchtx-Tree trailer is
 * made to name this commit's tree (undo trusts it): the same on the recorded parent's tree, the
 * new one where the patch lands on another.
 */
function keptMessage(message: string, tree: string, pid: string): string {
  const trailers = readTrailers(message);
  const recorded = (key: string): string | null => trailers.find((t) => t.key === key)?.value ?? null;
  const [recordedId, recordedTree] = [recorded(PATCH_ID_TRAILER), recorded(TREE_TRAILER)];
  if (recordedId !== pid) {
    throw new PatchtxError('replay_mismatch', `the recorded message has the Patch-Id ${recordedId ?? '(none)'}, not this patch's ${pid}`, {
      reason: 'patch_id',
    });
  }
  if (recordedTree === null || recordedTree === tree) return message;
  const lines = message.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith(`${TREE_TRAILER}:`) || !lines[i]!.includes(recordedTree)) continue;
    lines[i] = `${TREE_TRAILER}: ${tree}`;
    break;
  }
  return lines.join('\n');
}

/**
 * The recorded commit, signature included, when `unsigned` is that commit without its signature
 * (a replay keeping the metadata, on the recorded parent): the signature is valid for it alone.
 */
function recordedSignature(unsigned: CommitObject, signature: { gpgsig: string; commit: string }): CommitObject | undefined {
  const signed = { ...unsigned, gpgsig: signature.gpgsig };
  return hashObject('commit', serializeCommit(signed)) === signature.commit ? signed : undefined;
}

/**
 * For a check: why the id it computes may not be the one apply gives the commit, if it may not.
 * Apply signs it (commit.gpgSign or asked to; a replay keeping a recorded commit puts its
 * signature back), or runs a hook that may edit its message (a kept message goes through none).
 */
function idUnknownBeforeCommit(session: Session, opts: ApplyOptions, signer: Signer | null): PlanWarning[] {
  const signs = (signer !== null && (opts.kept === undefined || opts.sign === true)) || (opts.kept?.signature !== undefined && opts.sign !== false);
  const hooks = opts.kept ? [] : messageHooks(session, opts.noVerify).map((h) => h.name);
  if (!signs && hooks.length === 0) return [];
  const why = [...(signs ? ['apply signs it'] : []), ...hooks.map((h) => `apply runs the ${h} hook, which may edit its message`)];
  const message = `the commit's id is not known before it is made: ${why.join(', and ')}`;
  return [{ kind: 'commit_id_unknown', message, path: '', reasons: [...(signs ? ['signing'] : []), ...hooks] }];
}

/** The message as the prepare-commit-msg and commit-msg hooks leave it; a check runs nothing that could write. */
async function throughHooks(session: Session, proposed: string, own: Trailer[], opts: ApplyOptions, author: Identity, checkout: boolean): Promise<string> {
  return opts.check ? proposed : messageThroughHooks(session, proposed, own, { author, checkout, noVerify: opts.noVerify });
}

/**
 * The paths a unified diff's hunks edit, each with its conversion and index blob: they decide how
 * the hunks are placed (in the stored form of a file git converts, as git apply places them).
 */
function diffConversions(patch: Patch, states: Map<string, PathState>): ConvertedPath[] {
  const diffed = new Set(patch.hunks.flatMap((h) => (h.kind === 'edit' && h.edit.type === 'hunks' ? [h.path] : [])));
  return [...diffed].flatMap((p) => {
    const st = states.get(p);
    if (st === undefined) return [];
    const staged = st.index?.find((e) => e.stage === 0)?.oid;
    return [{ path: p, conversion: st.conversion, indexOid: staged ?? (st.base.type === 'blob' ? st.base.oid : null) }];
  });
}

async function planOptions(session: Session, opts: ApplyOptions, converted: readonly ConvertedPath[]): Promise<PlanOptions> {
  const options: PlanOptions = { strict: opts.strict, matchWork: opts.limits?.matchWork, dialect: opts.dialect };
  const forms = await lineFormsOf(session.store, converted);
  if (forms.size > 0) options.lineForms = (p) => forms.get(p);
  return options;
}

/** What was read and planned before the lock was taken. */
interface Ahead {
  plan: PlannedAhead;
  /** what the patch does to each path it names (touchedPaths) */
  touched: Map<string, TouchedPath>;
  /** the touched paths as read then */
  loaded: LoadedState;
  /** what they were read from (null: the load is not to be reused) */
  witness: LoadWitness | null;
  /** the conversions the plan placed a diff's hunks with (diffConversions, as JSON): a plan made
   * ahead stands only where they are still the same */
  converted: string;
}

/**
 * The plan made from the touched paths as they are before the lock is taken (see plan-ahead.ts),
 * and the load it was made from, which the run under the lock uses again when nothing it was read
 * from has changed (load-witness.ts); undefined when they cannot be read that way (a dirty path,
 * say): the run under the lock then finds that again and reports it.
 */
async function planBeforeLock(session: Session, target: Target, patch: Patch, opts: ApplyOptions): Promise<Ahead | undefined> {
  try {
    const index = target.worktree ? await readIndex(session.repo) : null;
    const touched = touchedPaths(patch);
    const loaded = await loadTouched(session, target.baseTree, touched, { worktree: target.worktree, index, dirty: opts.dirty ?? 'refuse' });
    const converted = diffConversions(patch, loaded.states);
    const plan = planAhead(patch, loaded.overlay, await planOptions(session, opts, converted));
    return { plan, touched, loaded, witness: witnessLoad(session, target.baseTree, index, loaded), converted: JSON.stringify(converted) };
  } catch {
    return undefined;
  }
}

function contentsOf(built: Built): FileContents[] {
  const out: FileContents[] = [];
  for (const c of built.plan.changes) {
    const beforePath = c.op === 'R' ? c.from! : c.path;
    const before = c.op === 'A' ? null : built.plan.files.has(beforePath) ? baseBytes(built, beforePath) : null;
    const after = c.op === 'D' ? null : (built.plan.files.get(c.path) ?? null);
    out.push({ path: c.path, from: c.from, before, after });
  }
  return out;
}

function baseBytes(built: Built, p: string): Uint8Array | null {
  return built.overlay.read(p) ?? null;
}

/**
 * --committer, else the configured committer (as git does: --author alone does not change the
 * committer), else --author when no committer identity is configured at all.
 */
function resolveCommitter(session: Session, opts: ApplyOptions): Identity {
  if (opts.committer !== undefined) return resolveIdentity(session.config, 'committer', session.env, opts.committer);
  try {
    return resolveIdentity(session.config, 'committer', session.env);
  } catch (e) {
    if (opts.author !== undefined && e instanceof PatchtxError && e.kind === 'missing_identity') {
      parseIdentityOverride(opts.author, 'author'); // a malformed author is reported as the author's
      return resolveIdentity(session.config, 'committer', session.env, opts.author);
    }
    throw e;
  }
}

/**
 * Whether the checkout holds the tip at every path `patch` touches (always, for a ref without a
 * checkout). A patch the tip was made from is taken as already applied only then: where the user
 * put a touched file back meanwhile, the patch applies to it again, as an agent that re-sends it means.
 */
async function checkoutHoldsTip(session: Session, target: Target, patch: Patch): Promise<boolean> {
  if (!target.worktree) return true;
  const index = await readIndex(session.repo);
  const states = await inspectPaths(session, target.baseTree, [...touchedPaths(patch).keys()], index, true);
  return [...states.values()].every((s) => s.dirty === undefined);
}

/** The Patch-Id of the target's tip, when patchtx made it. */
async function tipPatchId(session: Session, target: Target): Promise<string | null> {
  if (target.base === null) return null;
  return patchtxInfo(await session.store.readCommit(target.base))?.patchId ?? null;
}

/**
 * The result for a patch the tip was made from: a success that writes nothing. Its summary is the
 * patch's, as the tip applied it.
 */
function alreadyApplied(
  session: Session,
  target: Target,
  patch: Patch,
  pid: string,
  opts: ApplyOptions,
  who: { author: Identity; committer: Identity },
): TxResult {
  const summary = patch.hunks.map((h) =>
    h.kind === 'add' ? `A ${h.path}` : h.kind === 'delete' ? `D ${h.path}` : h.kind === 'edit' ? `M ${h.path}` : `M ${h.moveTo ?? h.path}`,
  );
  const result: TxResult = {
    ok: true,
    commit: null,
    parent: target.base,
    ref: target.ref,
    noop: true,
    checked: opts.check === true,
    files: [],
    summary,
    warnings: [],
    patchId: pid,
    alreadyApplied: target.base!,
    message: null,
    tree: target.baseTree!,
    ...who,
  };
  if (session.recovered) result.recovered = session.recovered;
  if (opts.withContents) result.contents = [];
  return result;
}

/**
 * Several patches as one: their hunks in order. Hunks run in order over one overlay, so each
 * step's hunks see what the steps before did, as they did when the steps were applied.
 */
function joinSteps(patches: Patch[]): Patch {
  return { hunks: patches.flatMap((p) => p.hunks), text: patches.map((p) => p.text).join('\n') };
}

export async function applyTransaction(opts: ApplyOptions): Promise<TxResult> {
  timingStart();
  // apply_patch's paths are relative to its current directory, as in Codex: `..` and absolute
  // paths are resolved against it below, and refused only when they leave the repository
  const steps = opts.steps ?? [opts.patchText, ...(opts.laterPatches ?? [])];
  // apply_patch (the caller whose paths are relative to a directory) keeps Codex's grammar: V4A only
  const v4aOnly = opts.pathPrefix !== undefined;
  const invocations = steps.map((step) => parseStep(step, { limits: opts.limits, pathsFromCwd: v4aOnly, v4aOnly }));
  const allV4A = v4aOnly || steps.every((step) => stepFormat(step) === 'v4a');
  // every usage problem is found before anything is read or written
  const trailers = (opts.trailers ?? []).map(parseTrailerOption);
  checkMessageOption(opts.message);
  mark('parse');
  return withSession(opts, async (session) => {
    mark('open');
    // `cd DIR && apply_patch <<'EOF'` means the paths are relative to DIR
    const patches = invocations.map((invocation) =>
      rerootPatch(invocation.patch, patchDirectory(session.repo.workdir, opts.pathPrefix ?? '', invocation.cwd), session.repo.workdir),
    );
    const patch = patches.length === 1 ? patches[0]! : joinSteps(patches);
    const pid = (opts.expectTree !== undefined ? opts.kept?.patchId : undefined) ?? patchId(patch, opts.dialect);
    // a patch that names a directory (`cd DIR && apply_patch`) or was given relative to a
    // subdirectory is stored re-rooted at the repository, so `patchtx show X | patchtx apply` replays it
    const noteInput: NoteInput = {
      text: !allV4A ? null : patch !== invocations[0]!.patch ? normalisePatch(patch) : (steps[0] as string),
      diff: !v4aOnly && steps.length === 1 && stepFormat(steps[0]!) === 'unified' ? (steps[0] as string) : null,
    };
    const target = await resolveTarget(session, { ...opts, commits: true, ...(opts.allowReapply ? {} : { patchId: pid }) });
    const author = opts.kept?.author ?? resolveIdentity(session.config, 'author', session.env, opts.author);
    const committer = opts.kept?.committer ?? resolveCommitter(session, opts);
    // a signing configuration git would not take is refused before anything is read or written
    const signer = signerFor(session.config, committer, session.env, opts.sign);
    if (!opts.allowReapply && (await tipPatchId(session, target)) === pid && (await checkoutHoldsTip(session, target, patch))) {
      return alreadyApplied(session, target, patch, pid, opts, { author, committer });
    }
    // the ref holds this patch on top of the requested base, but the checkout no longer holds it
    if (target.retryOnBase) throw offBase(target.ref, target.oldOid!, target.retryOnBase.rev, target.retryOnBase.oid);
    mark('target');

    let built: Built;
    let warnings: PlanWarning[] = [];
    if (opts.check) {
      const index = target.worktree ? await readIndex(session.repo) : null;
      const dryStore = new DryRunObjectStore(session.store);
      try {
        built = await build(session, target, patch, opts, index, author, committer, pid, noteInput, trailers, signer, undefined, dryStore);
      } finally {
        dryStore.close();
      }
      // the same index clash check apply makes before it moves the ref
      if (index && built.commit !== null) {
        validateIndexUpdates(index, indexUpdatesOf(built.prepared.targets));
        await checkCheckoutWritable(session, built.prepared.targets);
        checkCheckoutRoom(session, built.prepared.targets, built.prepared.contents);
      }
      if (built.commit !== null) warnings = idUnknownBeforeCommit(session, opts, signer);
    } else {
      let captured: Built | undefined;
      const ahead = await planBeforeLock(session, target, patch, opts);
      mark('plan ahead');
      crashPoint('planned-ahead');
      const outcome = await runTransaction(session, target, 'apply', committer, async (lock) => {
        captured = await build(session, target, patch, opts, lock?.index ?? null, author, committer, pid, noteInput, trailers, signer, ahead);
        return captured.prepared;
      });
      built = captured!;
      warnings = outcome.warnings;
      if (outcome.published) await runPostCommit(session, { author, checkout: target.worktree, noVerify: opts.noVerify });
    }
    const result: TxResult = {
      ok: true,
      // a check names no id the commit will not have
      commit: warnings.some((w) => w.kind === 'commit_id_unknown') ? null : built.commit,
      parent: target.base,
      ref: target.ref,
      noop: built.commit === null,
      checked: opts.check === true,
      files: built.plan.changes,
      summary: built.plan.summary,
      warnings: [...dirtyIncluded(built, opts.check === true), ...built.plan.warnings, ...warnings],
      patchId: pid,
      message: built.message,
      tree: built.tree,
      author,
      committer,
    };
    if (session.recovered) result.recovered = session.recovered;
    if (opts.withContents) result.contents = contentsOf(built);
    timingEnd();
    return result;
  });
}
