// `patchtx show`: the original patch text of a transaction, kept as a git note in refs/notes/patchtx;
// with --json, the transaction's whole record, as `patchtx export` writes it. For a commit without
// a note (its notes were not fetched, or it was rebased), a patch that makes the same change can be
// regenerated from the commit's diff against its first parent, marked as such.
import { PatchtxError } from '../errors.js';
import { crashPoint } from '../test-points.js';
import { diffTrees } from '../git/objects/tree-diff.js';
import type { FileChange } from '../engine/types.js';
import { decodeText } from '../text/decode.js';
import { noteFromResult } from './edit-note.js';
import { readNote } from '../git/refs/notes.js';
import { resolveRevision } from '../git/refs/refs.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import { patchtxInfo } from '../tx/history.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { transactionRecord } from './export-record.js';
import { gitDiffNote } from './git-diff-note.js';
import { regeneratedDiffers, treeMadeBy, type RegeneratedDiffers } from './regenerate-check.js';

export async function showPatch(opts: SessionOptions & { commit: string }): Promise<string> {
  return (await storedPatch(opts)).text;
}

/** The commit `opts.commit` names and its stored patch text, as show prints it (a final newline). */
async function storedPatch(opts: SessionOptions & { commit: string }): Promise<{ oid: string; text: string }> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const { oid, text } = await noteOf(session, opts.commit);
    return { oid, text: text.endsWith('\n') ? text : text + '\n' };
  });
}

/**
 * The record of the transaction `commit`, as one line of `patchtx export`. With `regenerate`, a
 * patchtx commit whose note is missing gets a patch made from its diff, marked `regenerated`.
 */
export async function showRecord(opts: SessionOptions & { commit: string; regenerate?: boolean }): Promise<ExportRecord> {
  const shown = opts.regenerate ? await showOrRegenerate(opts) : null;
  // the tests move the branch here, between the regenerated patch and the record
  crashPoint('show-regenerated');
  return withSession({ ...opts, noRecover: true }, async (session) => {
    // the commit the patch was found for, by id: the record is of that commit even when the branch
    // named moved in between
    const { oid, text } = shown?.regenerated ? { oid: shown.commit, text: shown.text } : await noteOf(session, shown?.commit ?? opts.commit);
    const record = await transactionRecord(session, oid, await session.store.readCommit(oid), text);
    if (record === null) {
      const what = shown?.regenerated ? 'it has no Patch-Id' : 'it has a patch note but no Patch-Id';
      throw new PatchtxError('bad_revision', `${oid.slice(0, 12)} has no transaction record: ${what}: it was not made by patchtx`, { commit: oid });
    }
    if (!shown?.regenerated) return record;
    return { ...record, regenerated: true, ...(shown.warnings.length > 0 ? { warnings: shown.warnings } : {}) };
  });
}

/** The commit `rev` names and its note; bad_revision, saying why, when it has none. */
async function noteOf(session: Session, rev: string): Promise<{ oid: string; text: string }> {
  const oid = await resolveRevision(session.store, session.repo, rev);
  const text = await readNote(session.store, session.repo, NOTES_REF, oid);
  if (text === null) {
    // a commit with patchtx's trailers whose note is elsewhere: the note belongs to the commit
    // patchtx made, and an amend or a rebase makes another one (git carries notes over only
    // where notes.rewriteRef says so)
    const ours = patchtxInfo(await session.store.readCommit(oid)) !== null;
    const why = ours
      ? `it carries a Patch-Id: it was made by patchtx and changed since (amended or rebased: the note stays with the commit patchtx made; git config notes.rewriteRef ${NOTES_REF} carries notes over from then on), or ${NOTES_REF} was not fetched`
      : `it was not made by patchtx, or ${NOTES_REF} was not fetched`;
    // a commit of patchtx's can have an equivalent patch made from its diff
    throw new PatchtxError('bad_revision', `no patch text is stored for ${oid.slice(0, 12)}: ${why} (git fetch <remote> ${NOTES_REF}:${NOTES_REF})`, {
      commit: oid,
      ...(ours ? { remedy: { option: 'regenerate', value: 'true' } } : {}),
    });
  }
  return { oid, text };
}
export interface ShownPatch {
  /** the commit it is the patch of */
  commit: string;
  text: string;
  /** not the text that was applied: made from the commit's diff, as no note is stored */
  regenerated: boolean;
  /** a regenerated patch that would not make the commit's tree again says so */
  warnings: RegeneratedDiffers[];
}

/**
 * The stored patch text of `commit`, or when there is none, one made from its diff against its
 * first parent (`regenerated`). A diff V4A cannot say (binary or non-UTF-8 content) is refused.
 */
export async function showOrRegenerate(opts: SessionOptions & { commit: string }): Promise<ShownPatch> {
  try {
    const { oid, text } = await storedPatch(opts);
    return { commit: oid, text, regenerated: false, warnings: [] };
  } catch (e) {
    if (!(e instanceof PatchtxError) || e.kind !== 'bad_revision' || e.data.commit === undefined) throw e;
    const commit = e.data.commit as string;
    return { commit, ...(await regenerate(opts, commit)), regenerated: true };
  }
}

/**
 * The patch made from the commit's diff, checked by applying it to the parent: where V4A would not
 * make the commit's tree again (git would store its result otherwise), the diff in git's form,
 * which `apply` commits as `git apply --index` does, when that one does; else the patch with a
 * warning saying so.
 */
async function regenerate(opts: SessionOptions, oid: string): Promise<{ text: string; warnings: RegeneratedDiffers[] }> {
  const made = await madeFromDiff(opts, oid);
  const expected = made.tree;
  const actual = await treeMadeBy(opts, made.parent, made.text);
  if (actual === expected) return { text: made.text, warnings: [] };
  const diff = made.diff();
  if (diff !== undefined && diff !== made.text && (await treeMadeBy(opts, made.parent, diff)) === expected) return { text: diff, warnings: [] };
  const warning = await withSession({ ...opts, noRecover: true }, (session) => regeneratedDiffers(session, expected, made.after, { expected, actual }));
  return { text: made.text, warnings: [warning] };
}

interface MadeFromDiff {
  text: string;
  /** the change as a unified diff in git's form (undefined: it cannot say it) */
  diff: () => string | undefined;
  parent: string | null;
  tree: string;
  /** each changed path's blob in the commit (null: deleted) */
  after: Map<string, Uint8Array | null>;
}

async function madeFromDiff(opts: SessionOptions, oid: string): Promise<MadeFromDiff> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const commit = await session.store.readCommit(oid);
    const parent = commit.parents[0] === undefined ? null : (await session.store.readCommit(commit.parents[0])).tree;
    const changes: FileChange[] = [];
    const before = new Map<string, Uint8Array>();
    const after = new Map<string, Uint8Array | null>();
    const modes = { before: new Map<string, string>(), after: new Map<string, string>() };
    for (const d of await diffTrees(session.store, parent, commit.tree)) {
      // a symbolic link or a submodule is no file a patch can make
      for (const e of [d.before, d.after]) {
        if (e !== null && e.mode !== '100644' && e.mode !== '100755') {
          throw new PatchtxError('binary_or_encoding', `${oid.slice(0, 12)} changes ${d.path}, which is not a regular file: no patch can say that change`, {
            path: d.path,
          });
        }
      }
      if (d.before !== null) {
        before.set(d.path, await session.store.readBlob(d.before.oid, d.path));
        modes.before.set(d.path, d.before.mode);
      }
      if (d.after !== null) modes.after.set(d.path, d.after.mode);
      after.set(d.path, d.after === null ? null : await session.store.readBlob(d.after.oid, d.path));
      changes.push({ op: d.before === null ? 'A' : d.after === null ? 'D' : 'M', path: d.path });
    }
    const base = { read: (p: string) => before.get(p), isDirectory: () => false };
    // V4A where it says the change exactly, else a unified diff in git's form (modes, final newlines)
    const sides = { before: (p: string) => modes.before.get(p), after: (p: string) => modes.after.get(p) };
    const text = noteFromResult(changes, base, after, sides);
    if (text === undefined) {
      throw new PatchtxError('binary_or_encoding', `${oid.slice(0, 12)} changes a file that is not UTF-8 text: no patch can say that change`, {
        path: changes.find((c) => [before.get(c.path), after.get(c.path)].some((b) => b && decodeText(b) === undefined))?.path ?? '',
      });
    }
    const diff = (): string | undefined =>
      gitDiffNote(changes, { before: (p) => before.get(p) ?? null, after: (p) => after.get(p) ?? null, modeBefore: sides.before, modeAfter: sides.after });
    return { text, diff, parent: commit.parents[0] ?? null, tree: commit.tree, after };
  });
}
