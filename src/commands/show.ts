// `patchtx show`: the original patch text of a transaction, kept as a git note in refs/notes/patchtx;
// with --json, the transaction's whole record, as `patchtx export` writes it.
import { PatchtxError } from '../errors.js';
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
