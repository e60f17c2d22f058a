// `apply --push --retry N`: when the push loses its lease (another bot pushed first), fetch the
// remote branch's new tip, apply the same patches again onto it, and push again, up to N times.
// V4A patches are anchored on their context, so a patch written for the old tip usually applies
// to the new one; one that does not stops with its own error. Nothing is merged: the branch is
// taken back to the remote's tip (move-branch.ts) and the patches are applied there as new
// commits, with the same options (message, trailers, hooks, signing). When they no longer apply,
// the branch is put back on its own commits, as it was before the retry. The commits left behind
// (the first ones, or those of an attempt that stopped half-way) lose their notes in
// refs/notes/patchtx, unless another ref still reaches them: the notes ref is pushed with the
// branch, and would carry patch texts of commits the remote never gets.
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchtxError } from '../errors.js';
import { fetchRef } from '../git/remote/fetch.js';
import { removeNotes } from '../git/refs/notes.js';
import { reachedByOtherRefs } from '../git/refs/reachable.js';
import { readRef, updateRef } from '../git/refs/refs.js';
import { NOTES_REF } from '../tx/run.js';
import { withSession } from '../tx/session.js';
import { applyTransaction, type ApplyOptions } from './apply.js';
import { moveBranch } from './move-branch.js';
import { backoff, fetchEndpoint, pushAfterApply, reflogIdentity, trackingRefOf, type PushOptions, type PushResult } from './push.js';

export interface RetryPushOptions extends PushOptions {
  /** the branch the patches were applied to */
  ref: string;
  /** the commit the first patch was applied onto */
  builtOn: string | null;
  /** the commits the patches made, in order */
  committed: string[];
  /** each patch's options as it was applied (its base and expected head are replaced on a retry) */
  patches: ApplyOptions[];
  /** how many times to apply again after a lost lease */
  retries: number;
}

const isStale = (e: unknown): e is PatchtxError => e instanceof PatchtxError && e.kind === 'stale';

export async function pushWithRetry(opts: RetryPushOptions): Promise<PushResult> {
  let { builtOn, committed } = opts;
  // from the fetch the attempt was built on (the first: the push) to its loss
  let started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const pushed = await pushAfterApply({ ...opts, builtOn, committed });
      return attempt === 0 ? pushed : { ...pushed, retries: attempt, reapplied: committed };
    } catch (e) {
      if (!isStale(e) || attempt >= opts.retries || committed.length === 0) throw e;
      await sleep(backoff(attempt, Date.now() - started));
      started = Date.now();
      ({ builtOn, committed } = await applyAgain(opts, committed, builtOn));
    }
  }
}

/**
 * The remote branch's tip, fetched, with the remote-tracking ref updated to it. `lost` is the
 * commit the lost push was built on: the remote had it, so only what came after it is sent.
 */
async function fetchTip(opts: RetryPushOptions, lost: string | null): Promise<string | null> {
  return withSession({ ...opts, noRecover: true }, async (session) => {
    const remote = opts.remote ?? 'origin';
    // where git fetches from: the remote's URL, not its pushurl
    const from = fetchEndpoint(session, remote);
    const tip = await fetchRef({ gitdir: session.repo.commonDir, ...from, ref: opts.ref, have: lost ?? undefined });
    const tracking = trackingRefOf(session, remote, opts.ref);
    if (tracking !== null && tip !== null) {
      const was = await readRef(session.repo, tracking);
      if (was !== tip)
        await updateRef(session.repo, { ref: tracking, expectedOld: was, newOid: tip, message: 'fetch by patchtx', identity: reflogIdentity(session) });
    }
    return tip;
  });
}

/** Removes the notes of `left` (commits the branch no longer holds) that no ref reaches any more. */
async function dropNotesOf(opts: RetryPushOptions, left: readonly string[]): Promise<void> {
  if (left.length === 0) return;
  await withSession({ ...opts, noRecover: true }, async (session) => {
    const kept = await reachedByOtherRefs(session.store, session.repo, left, []);
    const targets = left.filter((c) => !kept.has(c));
    if (targets.length === 0) return;
    await removeNotes(session.store, session.repo, {
      notesRef: NOTES_REF,
      targets,
      identity: reflogIdentity(session),
      logAllRefUpdates: session.config.get('core.logAllRefUpdates'),
    });
  });
}

async function applyAgain(opts: RetryPushOptions, abandoned: string[], lost: string | null): Promise<{ builtOn: string; committed: string[] }> {
  const ours = abandoned[abandoned.length - 1]!;
  const tip = await fetchTip(opts, lost);
  if (tip === null)
    throw new PatchtxError('stale', `the remote's ${opts.ref} no longer exists: nothing to apply the patches onto`, { ref: opts.ref, actual: null });
  // the repository as every other step finds it: by its directory, from cwd, or kept open (warm)
  const at = { cwd: opts.cwd, repoDir: opts.repoDir, env: opts.env, warm: opts.warm, ref: opts.ref };
  await moveBranch({ ...at, from: ours, to: tip, why: `retry: back to the remote's ${opts.ref} (${tip.slice(0, 12)})` });
  const committed: string[] = [];
  let base = tip;
  try {
    for (const patch of opts.patches) {
      const result = await applyTransaction({ ...patch, ref: opts.ref, base, expectHead: undefined });
      if (result.commit !== null) committed.push((base = result.commit));
    }
  } catch (e) {
    // the branch goes back to the commits it had, and the error is the patch's own
    try {
      await moveBranch({ ...at, from: base, to: ours, why: `retry: the patches do not apply to the remote's ${opts.ref}; back to ${ours.slice(0, 12)}` });
    } catch (back) {
      if (!(e instanceof PatchtxError)) throw e;
      const where = `${opts.ref} could not be put back on ${ours.slice(0, 12)} (${(back as Error).message}): it is at ${base.slice(0, 12)}, the remote's tip with the patches that applied`;
      throw new PatchtxError(e.kind, `${e.message}\n${where}`, { ...e.data, committed: [ours] });
    }
    await dropNotesOf(opts, committed);
    throw e;
  }
  await dropNotesOf(opts, abandoned);
  return { builtOn: tip, committed };
}
