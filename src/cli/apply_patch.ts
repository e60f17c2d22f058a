// `apply_patch`: a drop-in for the Codex standalone command. Same invocation
// (`apply_patch 'PATCH'` or the patch on standard input), same success text, exit 0/1/2.
// Inside a git repository every call is a patchtx transaction (one commit, or nothing); outside
// one, the whole patch is still validated in memory before a single file is written.
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { applyTransaction, type TxResult } from '../commands/apply.js';
import { applyToDirectory } from '../commands/apply-plain.js';
import { placeInRepository, type RepositoryPlace } from '../commands/place.js';
import { exitStatusFor, isReadOnlyRefusal, parseWaitSeconds, receivedSignal, waitingForLocks } from '../commands/process.js';
import { alreadyAppliedText, codexSummary, processStreams, toError, type Streams } from './output.js';
import { limitsFrom, withLimitRemedy } from './limits.js';
import { checkedArgument, readStdin } from './read-patch.js';
import type { Limits } from '../commands/inputs.js';
import { isTerminal } from './stdio.js';

/** How long apply_patch waits for another transaction's lock unless PATCHTX_WAIT says otherwise. */
const DEFAULT_WAIT_SECONDS = 30;

const USAGE = `Usage: apply_patch [--preserve-crlf] 'PATCH'\n       echo 'PATCH' | apply_patch [--preserve-crlf]\n`;

/**
 * The patch as a transaction; in a checkout whose git directory cannot be written (a sandbox that
 * keeps .git read-only) or that is in the middle of a merge, rebase, cherry-pick or revert (an
 * agent resolving its conflicts), the way taken outside a repository instead, saying on stderr
 * that nothing was committed and why.
 */
async function applyInRepository(patchText: string, cwd: string, place: RepositoryPlace, streams: Streams, limits: Partial<Limits>): Promise<Applied> {
  try {
    // agents send patches to different files at once: a lock held by another call is waited for,
    // and a branch another call moved is applied onto anew (PATCHTX_WAIT seconds, 30 by default),
    // as a Codex-style tool cannot be asked to retry
    const wait = parseWaitSeconds(process.env.PATCHTX_WAIT ?? String(DEFAULT_WAIT_SECONDS), 'PATCHTX_WAIT');
    const result = await waitingForLocks(wait, () => applyTransaction({ patchText, cwd, dirty: 'include', pathPrefix: place.prefix, limits }), true);
    if (result.alreadyApplied !== undefined) streams.err(`note: ${alreadyAppliedText(result)}\n`);
    return result;
  } catch (e) {
    const why = isReadOnlyRefusal(e)
      ? `the git directory ${String(e.data.gitdir)} is not writable (${String(e.data.cause)})`
      : isInProgressRefusal(e)
        ? `${String(e.data.what)} is in progress in this checkout (${String(e.data.marker)} exists)`
        : null;
    if (why === null || place.workdir === null) throw e;
    const applied = await applyToDirectory(place.workdir, patchText, place.prefix, limits);
    streams.err(`apply_patch: nothing was committed: ${why}; the files were written without a commit\n`);
    return applied;
  }
}

/** The refusal of a commit during an unfinished merge, rebase, cherry-pick or revert (see target.ts). */
const isInProgressRefusal = (e: unknown): e is PatchtxError => e instanceof PatchtxError && e.kind === 'usage' && e.data.reason === 'operation_in_progress';

type Applied = { summary: string[]; warnings: TxResult['warnings'] };

/**
 * What the patch itself gave warning of (an ambiguous match applied at the first place, an Add
 * over an existing file), on stderr as patchtx apply prints them; not the dirty_included ones:
 * taking uncommitted changes in is what apply_patch does by design.
 */
function printWarnings(streams: Streams, warnings: TxResult['warnings']): void {
  // uncommitted work the patch replaced (saved, not taken in) must still be told of
  for (const w of warnings) if ((w.kind !== 'dirty_included' && w.kind !== 'note') || w.replaced) streams.err(`warning: ${w.message}\n`);
}

/** The summary's paths relative to the current directory, as the patch spelled them (a `../` one too). */
function relativeSummary(summary: string[], prefix: string): string[] {
  if (prefix === '') return summary;
  return summary.map((l) => l.slice(0, 2) + path.posix.relative(prefix, l.slice(2)));
}

/** `code`, or 128 + the signal's number when a signal waited for the transaction (interrupt.ts). */
async function exitStatusAfter(code: number): Promise<number> {
  const signal = await receivedSignal();
  return signal === null ? code : exitStatusFor(signal);
}

export async function main(argv: string[], streams: Streams = processStreams, cwd = process.cwd()): Promise<number> {
  // line endings are always preserved; the flag is accepted for compatibility
  const args = argv[0] === '--preserve-crlf' ? argv.slice(1) : argv;
  if (args.length > 1) {
    streams.err('Error: apply_patch accepts exactly one PATCH argument.\n');
    return 2;
  }
  try {
    const limits = limitsFrom(undefined);
    let patchText = args[0];
    if (patchText === undefined) {
      patchText = isTerminal(0) ? '' : await readStdin(limits);
      if (patchText === '') {
        streams.err(USAGE);
        return 2;
      }
    } else {
      patchText = checkedArgument(patchText);
    }
    const place = await placeInRepository(cwd);
    const applied = place !== null ? await applyInRepository(patchText, cwd, place, streams, limits) : await applyToDirectory(cwd, patchText, '', limits);
    printWarnings(streams, applied.warnings);
    streams.out(codexSummary(place !== null ? relativeSummary(applied.summary, place.prefix) : applied.summary));
    return await exitStatusAfter(0);
  } catch (e) {
    const err = toError(withLimitRemedy(e, 'apply_patch'));
    streams.err(err.message + '\n');
    // as Codex: 2 when the invocation is wrong (here also a bad PATCHTX_LIMITS), 1 when the patch
    // is; beyond Codex, 74 when the file system refused and 70 for a bug
    return await exitStatusAfter(err.kind === 'internal' ? 70 : err.kind === 'io_error' ? 74 : err.kind === 'usage' ? 2 : 1);
  }
}
