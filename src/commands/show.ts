// `patchtx show`: the original patch text of a transaction, kept as a git note in refs/notes/patchtx;
// with --json, the transaction's whole record, as `patchtx export` writes it. For a commit without
// a note (its notes were not fetched, or it was rebased), a patch that makes the same change can be
// regenerated from the commit's diff against its first parent, marked as such.
import { PatchtxError } from '../errors.js';
import { diffTrees } from '../git/objects/tree-diff.js';
import { createPatchFromTexts } from '../patch/create.js';
import { readNote } from '../git/refs/notes.js';
import { resolveRevision } from '../git/refs/refs.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import { patchtxInfo } from '../tx/history.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type Session, type SessionOptions } from '../tx/session.js';
import { transactionRecord } from './export-record.js';

export async function showPatch(opts: SessionOptions & { commit: string }): Promise<string> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const { text } = await noteOf(session, opts.commit);
    return text.endsWith('\n') ? text : text + '\n';
  });
}

/** The record of the transaction `commit`, as one line of `patchtx export`. */
export async function showRecord(opts: SessionOptions & { commit: string }): Promise<ExportRecord> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const { oid, text } = await noteOf(session, opts.commit);
    const record = await transactionRecord(session, oid, await session.store.readCommit(oid), text);
    if (record === null)
      throw new PatchtxError('bad_revision', `${oid.slice(0, 12)} has a patch note but no Patch-Id: it was not made by patchtx`, { commit: oid });
    return record;
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
      ? `it carries a Patch-Id: it was made by patchtx and changed since (amended or rebased: the note stays with the commit patchtx made), or ${NOTES_REF} was not fetched`
      : `it was not made by patchtx, or ${NOTES_REF} was not fetched`;
    throw new PatchtxError('bad_revision', `no patch text is stored for ${oid.slice(0, 12)}: ${why} (git fetch <remote> ${NOTES_REF}:${NOTES_REF})`, {
      commit: oid,
    });
  }
  return { oid, text };
}
export interface ShownPatch {
  text: string;
  /** not the text that was applied: made from the commit's diff, as no note is stored */
  regenerated: boolean;
}

/**
 * The stored patch text of `commit`, or when there is none, one made from its diff against its
 * first parent (`regenerated`). A diff V4A cannot say (binary or non-UTF-8 content) is refused.
 */
export async function showOrRegenerate(opts: SessionOptions & { commit: string }): Promise<ShownPatch> {
  try {
    return { text: await showPatch(opts), regenerated: false };
  } catch (e) {
    if (!(e instanceof PatchtxError) || e.kind !== 'bad_revision' || e.data.commit === undefined) throw e;
    return { text: await regenerate(opts, e.data.commit as string), regenerated: true };
  }
}

async function regenerate(opts: SessionOptions, oid: string): Promise<string> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const commit = await session.store.readCommit(oid);
    const parent = commit.parents[0] === undefined ? null : (await session.store.readCommit(commit.parents[0])).tree;
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const files = [];
    for (const d of await diffTrees(session.store, parent, commit.tree)) {
      const text = async (e: typeof d.before): Promise<string | null> => {
        if (e === null) return null;
        const bytes = await session.store.readBlob(e.oid, d.path);
        let t: string;
        try {
          t = decoder.decode(bytes);
        } catch {
          t = '\0';
        }
        if (e.mode === '160000' || t.includes('\0')) {
          throw new PatchtxError('binary_or_encoding', `${oid.slice(0, 12)} changes ${d.path}, which is not UTF-8 text: a V4A patch cannot say that change`, {
            path: d.path,
          });
        }
        return t;
      };
      files.push({ path: d.path, before: await text(d.before), after: await text(d.after) });
    }
    return createPatchFromTexts(files);
  });
}
