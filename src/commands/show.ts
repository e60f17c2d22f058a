// `patchtx show`: the original patch text of a transaction, kept as a git note in refs/notes/patchtx.
import { PatchtxError } from '../errors.js';
import { readNote } from '../git/refs/notes.js';
import { resolveRevision } from '../git/refs/refs.js';
import { patchtxInfo } from '../tx/history.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession, type SessionOptions } from '../tx/session.js';

export async function showPatch(opts: SessionOptions & { commit: string }): Promise<string> {
  // read-only: never waits on, or finishes, another run's transaction
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const oid = await resolveRevision(session.store, session.repo, opts.commit);
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
    return text.endsWith('\n') ? text : text + '\n';
  });
}
