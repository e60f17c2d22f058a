// The patchtx command line. Each command parses its options, calls one transaction function and
// prints the result; nothing here touches the repository itself.
import { statSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { PatchtxError, type ErrorDataOf } from '../errors.js';
import { applyTransaction, type ApplyOptions } from '../commands/apply.js';
import { listTransactions } from '../commands/log.js';
import { recoverCommand } from '../commands/recover.js';
import { recoverJson } from '../commands/results.js';
import { showOrRegenerate, showPatch, showRecord } from '../commands/show.js';
import { checkPushRemote, pushAfterApply, pushAfterUndo, pushBranch, type MovedByUndo, type PushResult } from '../commands/push.js';
import { pushWithRetry } from '../commands/push-retry.js';
import { redoTransaction, undoTransaction } from '../commands/undo.js';
import { exitStatusFor, parseWaitSeconds, receivedSignal, throwIfInterrupted, waitingForLocks } from '../commands/process.js';
import { jsonError, printApplied, printError, processStreams, recoveredRuns, recoveryText, toError, type Streams } from './output.js';
import { withFlagHints } from './flag-hints.js';
import { limitsFrom, withLimitRemedy } from './limits.js';
import { readPatchSource } from './read-patch.js';
import { parseOpsText, type Limits, type Step } from '../commands/inputs.js';
import { printLog, printUndo } from './print.js';
import { addExportCommand } from './export.js';
import { addReplayCommand } from './replay.js';

interface CommonFlags {
  repo?: string;
  json?: boolean;
}

interface ApplyFlags extends CommonFlags {
  ref?: string;
  base?: string;
  expectHead?: string;
  message?: string;
  author?: string;
  committer?: string;
  trailer?: string[];
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  allowReapply?: boolean;
  diff?: boolean;
  limits?: string;
  wait?: string;
  push?: string | boolean;
  force?: boolean;
  ops?: string;
  /** false with --no-verify */
  verify?: boolean;
  /** --sign, --no-sign; absent: commit.gpgSign */
  sign?: boolean;
  retry?: string;
}

interface UndoFlags extends CommonFlags {
  ref?: string;
  revert?: boolean;
  wait?: string;
  push?: string | boolean;
}

/** The push's result: a JSON line, or a sentence and its warnings. */
function printPushed(streams: Streams, r: PushResult, json: boolean): void {
  if (json) streams.out(JSON.stringify(r) + '\n');
  else {
    const was = r.previous === null ? 'new branch' : `was ${r.previous.slice(0, 12)}`;
    // as git says it: nothing was sent for the branch
    if (r.previous === r.commit) streams.out(`Everything up-to-date: ${r.ref} is at ${r.commit.slice(0, 12)} on ${r.remote}.\n`);
    else streams.out(`Pushed ${r.ref} (${r.commit.slice(0, 12)}) to ${r.remote} (${was}${r.forced ? ', forced' : ''}).\n`);
    if (r.retries !== undefined) {
      const again = (r.reapplied ?? []).map((c) => c.slice(0, 12)).join(', ');
      streams.out(`The remote branch had moved: the patches were applied again onto it (${r.retries} time${r.retries === 1 ? '' : 's'}), as ${again}.\n`);
    }
  }
  for (const w of r.warnings) streams.err(`warning: ${w.message}\n`);
}

/** --retry N: a whole number, 0 or more (absent: 0). */
function parseRetries(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value) || Number(value) > 100) {
    throw new PatchtxError('usage', `--retry takes a whole number from 0 to 100, not '${value}'`, { value });
  }
  return Number(value);
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function addApplyOptions(cmd: Command): Command {
  return cmd
    .option('--repo <dir>', 'repository to work in (default: the one containing the current directory)')
    .option('--ref <ref>', 'commit onto this ref without touching the working tree or index (e.g. refs/heads/bot)')
    .option('--base <rev>', 'commit to apply onto (the ref must be there, or not exist yet)')
    .option('--expect-head <oid>', 'refuse unless the ref is at this commit')
    .option('-m, --message <msg>', 'commit message (default: generated from the changes)')
    .option('--author <ident>', 'author, "Name <email>"')
    .option('--committer <ident>', 'committer, "Name <email>"')
    .option('--trailer <key=value>', 'add a trailer to the commit message (repeatable)', collect)
    .addOption(
      new Option('--dirty <mode>', 'touched paths with uncommitted changes: refuse, or include them in the commit')
        .choices(['refuse', 'include'])
        .default('refuse'),
    )
    .option('--strict', 'ambiguous matches, matches beyond trailing whitespace and overwrites by Add/Move are errors')
    .option('--allow-reapply', 'apply the patch even when the tip was made from it (by default that is a success with nothing written)')
    .option('--diff', 'print a unified diff of the changes')
    .option(
      '--limits <spec>',
      'raise or lower input and matching limits, e.g. patch-bytes=128M,line-bytes=4M,operations=20000,match-work=1G (default from PATCHTX_LIMITS)',
    )
    .option('--wait <seconds>', "wait up to this long for another transaction's lock instead of failing")
    .option('--ops <file>', 'a JSON array of edit operations (str_replace, insert, create, delete, move) instead of a patch; - for standard input')
    .option('--no-verify', 'do not run the commit-msg hook (prepare-commit-msg and post-commit still run, as with git commit)')
    .option('--sign', 'sign the commit as git does (gpg.format, user.signingKey), whatever commit.gpgSign says')
    .option('--no-sign', 'do not sign the commit, whatever commit.gpgSign says')
    .option('--json', 'print one JSON result object');
}

/** The patch files, or with --ops the one list of edit operations, each read before anything is applied. */
async function readSteps(sources: Array<string | undefined>, flags: ApplyFlags, limits: Limits): Promise<Step[]> {
  if (flags.ops === undefined) {
    const texts: Step[] = [];
    for (const source of sources) texts.push(await readPatchSource(source, limits));
    return texts;
  }
  if (sources.some((s) => s !== undefined)) throw new PatchtxError('usage', '--ops takes the place of a patch: give either patch files or --ops, not both');
  return [{ ops: parseOpsText(await readPatchSource(flags.ops, limits)) }];
}

function applyOptions(flags: ApplyFlags, step: Step, check: boolean, limits: Limits): ApplyOptions {
  return {
    ...(typeof step === 'string' ? { patchText: step } : { patchText: '', steps: [step] }),
    limits,
    repoDir: flags.repo,
    ref: flags.ref,
    base: flags.base,
    expectHead: flags.expectHead,
    message: flags.message,
    author: flags.author,
    committer: flags.committer,
    trailers: flags.trailer,
    dirty: flags.dirty,
    strict: flags.strict,
    allowReapply: flags.allowReapply,
    check,
    withContents: flags.diff === true,
    noVerify: flags.verify === false,
    sign: flags.sign,
  };
}

/**
 * The error of patch `i` of a series, saying which patch it was and what was not applied: the
 * patches before it are committed, the ones after it were not tried.
 */
function inSeries(e: unknown, sources: Array<string | undefined>, i: number): unknown {
  if (!(e instanceof PatchtxError)) return e;
  const name = (s: string | undefined): string => (s === undefined || s === '-' ? 'standard input' : s);
  const skipped = sources.slice(i + 1).map(name);
  const rest = skipped.length === 0 ? '' : `\nnot applied: ${skipped.join(', ')}`;
  const message = `${name(sources[i])} (patch ${i + 1} of ${sources.length}) failed:\n${e.message}${rest}`;
  // the kind stays: the exit code says what went wrong
  return new PatchtxError(e.kind, message, { ...e.data, patch: name(sources[i]), skipped });
}

/** A missing identity, with the option of apply and check that supplies it added to the remedies. */
function withIdentityOption(e: unknown): unknown {
  // a series' error already has it (added before the series note)
  if (!(e instanceof PatchtxError) || e.kind !== 'missing_identity' || / or pass --(author|committer) /.test(e.message)) return e;
  const option = e.data.role === 'committer' ? '--committer' : '--author';
  return new PatchtxError('missing_identity', `${e.message}; or pass ${option} "Name <email>"`, e.data as ErrorDataOf<'missing_identity'>);
}

/** A signal that arrived during a tool call ends the server once the call has finished (or rolled back). */
async function exitOnSignal(): Promise<void> {
  const signal = await receivedSignal();
  if (signal !== null) process.exit(exitStatusFor(signal));
}

/**
 * `parserQuiet`: commander's own messages are not printed (with --json, the result object says it).
 * `only`: the one command to define ('': none; see commandNamed); the others are left out.
 */
export function buildProgram(streams: Streams, setExit: (code: number) => void, parserQuiet = false, only?: string): Command {
  const want = (name: string): boolean => only === undefined || only === name;
  const program = new Command('patchtx')
    .description('Apply V4A patches as one git commit each, or not at all')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: streams.out, writeErr: parserQuiet ? () => undefined : streams.err });

  // undo --push, redo --push: the branch as the undo or redo left it, under a lease on where it was
  // `apply --push FILE` gives FILE to --push (its remote is optional): said, rather than waiting on standard input
  const checkApplyPush = async (flags: ApplyFlags, noSources: boolean): Promise<void> => {
    const remote = typeof flags.push === 'string' ? flags.push : undefined;
    // a remote is a repository (a directory), never a file: a file there is the patch
    if (remote !== undefined && noSources && statSync(remote, { throwIfNoEntry: false })?.isFile()) {
      throw new PatchtxError(
        'usage',
        `${remote} is a file: --push took it for the remote; give the patch before --push, or the remote after it (--push origin ${remote})`,
        { option: 'push' },
      );
    }
    await checkPushRemote({ repoDir: flags.repo, ref: flags.ref, remote });
  };
  const checkUndoPush = async (flags: UndoFlags): Promise<void> => {
    if (flags.push !== undefined)
      await checkPushRemote({ repoDir: flags.repo, ref: flags.ref, remote: typeof flags.push === 'string' ? flags.push : undefined });
  };
  const pushUndone = async (flags: UndoFlags, moved: MovedByUndo): Promise<void> => {
    if (flags.push === undefined) return;
    const remote = typeof flags.push === 'string' ? flags.push : undefined;
    printPushed(streams, await pushAfterUndo({ repoDir: flags.repo, remote, moved }), flags.json === true);
  };

  const run = (json: boolean | undefined, fn: () => Promise<void>) =>
    fn().catch(async (e) => setExit(await printError(streams, toError(withFlagHints(withLimitRemedy(e, 'patchtx'))), json === true)));
  // apply and check take the identity as an option too; the git layer's message cannot know that
  const runWithIdentityOptions = (json: boolean | undefined, fn: () => Promise<void>) =>
    run(json, () =>
      fn().catch((e: unknown) => {
        throw withIdentityOption(e);
      }),
    );

  if (want('apply'))
    addApplyOptions(program.command('apply').argument('[patch...]', 'patch files, applied in order, one commit each; - or nothing: standard input'))
      .description('apply patches, one commit each')
      .option(
        '--push [remote]',
        'then push the branch and the patch texts to the remote (default: origin), if its branch is still where the first patch was applied',
      )
      .option('--force', 'with --push: overwrite the remote branch whatever it holds')
      .option('--retry <n>', 'with --push: when the remote branch moved, fetch it and apply the patches again onto it, up to N times')
      .action((sources: string[], flags: ApplyFlags) =>
        runWithIdentityOptions(flags.json, async () => {
          if (flags.force && flags.push === undefined) throw new PatchtxError('usage', '--force is about the push: give --push too');
          const retries = parseRetries(flags.retry);
          if (retries > 0 && flags.push === undefined) throw new PatchtxError('usage', '--retry is about the push: give --push too');
          const list = sources.length === 0 ? [undefined] : sources;
          if (list.filter((s) => s === undefined || s === '-').length > 1) {
            throw new PatchtxError('usage', 'standard input (-) can be given only once');
          }
          const limits = limitsFrom(flags.limits);
          // a remote the push cannot go to is found before anything is read or committed
          if (flags.push !== undefined) await checkApplyPush(flags, sources.length === 0);
          // every patch is read before the first is applied: a missing file must not leave a half-applied series
          const texts = await readSteps(list, flags, limits);
          const wait = parseWaitSeconds(flags.wait, '--wait');
          let chained = flags;
          const committed: string[] = [];
          let builtOn: string | null | undefined;
          let ref: string | undefined;
          for (const [i, patchText] of texts.entries()) {
            const result = await Promise.resolve()
              // a signal during the previous patch's commit: that one finished, no more are started
              .then(() => throwIfInterrupted())
              .then(() => waitingForLocks(wait, () => applyTransaction(applyOptions(chained, patchText, false, limits))))
              .catch((e: unknown) => {
                throw list.length > 1 ? inSeries(withFlagHints(withIdentityOption(e)), list, i) : e;
              });
            await printApplied(streams, result, { json: flags.json === true, diff: flags.diff === true });
            // the next patch applies on top of this one: --base and --expect-head were about the first
            if (result.commit !== null) chained = { ...chained, base: result.commit, expectHead: undefined };
            if (result.commit !== null && builtOn === undefined) builtOn = result.parent;
            if (result.commit !== null) committed.push(result.commit);
            ref = result.ref;
          }
          if (flags.push !== undefined) {
            const remote = typeof flags.push === 'string' ? flags.push : undefined;
            const opts = { repoDir: flags.repo, remote, ref, force: flags.force };
            // nothing new was committed: the lease is the remote-tracking ref, as for push alone
            const patches = texts.map((text) => applyOptions(flags, text, false, limits));
            const r =
              builtOn === undefined
                ? await pushBranch(opts)
                : retries > 0 && ref !== undefined && !flags.force
                  ? await pushWithRetry({ ...opts, ref, builtOn, committed, patches, retries })
                  : await pushAfterApply({ ...opts, builtOn, committed });
            printPushed(streams, r, flags.json === true);
          }
        }),
      );

  if (want('check'))
    addApplyOptions(program.command('check').argument('[patch]', 'patch file; - or nothing: standard input'))
      .description('run the whole pipeline without writing anything; exit 0 when the patch would apply')
      .action((source: string | undefined, flags: ApplyFlags) =>
        runWithIdentityOptions(flags.json, async () => {
          const limits = limitsFrom(flags.limits);
          const [step] = await readSteps([source], flags, limits);
          const result = await waitingForLocks(parseWaitSeconds(flags.wait, '--wait'), () => applyTransaction(applyOptions(flags, step!, true, limits)));
          await printApplied(streams, result, { json: flags.json === true, diff: flags.diff === true });
        }),
      );

  if (want('replay')) addReplayCommand(program, streams, runWithIdentityOptions);
  if (want('export')) addExportCommand(program, streams, run);

  if (want('mcp'))
    program
      .command('mcp')
      .description('serve apply_patch, edit, check, undo, redo, log and show as MCP tools on standard input and output')
      .option('--repo <dir>', 'repository of the calls that name none (default: the one containing the current directory)')
      .action((flags: { repo?: string }) =>
        run(false, async () => {
          const { serveMcp } = await import('../mcp/server.js');
          const cwd = path.resolve(flags.repo ?? '.');
          await serveMcp({ cwd, version: program.version() ?? '', limits: limitsFrom(undefined), afterCall: exitOnSignal });
        }),
      );

  if (want('undo'))
    program
      .command('undo')
      .argument('[commit]', 'the patchtx commit to undo (default: the newest one on the ref)')
      .description('undo a patchtx transaction (reset if it is the tip, otherwise a revert commit)')
      .option('--repo <dir>', 'repository to work in')
      .option('--ref <ref>', 'ref to undo on (default: the checked-out branch)')
      .option('--revert', 'make a revert commit even for the tip (never move the branch back)')
      .option('--wait <seconds>', "wait up to this long for another transaction's lock instead of failing")
      .option('--push [remote]', "then push the branch (default: origin), if the remote's branch is still where it was before the undo")
      .option('--json', 'print one JSON result object')
      .action((commit: string | undefined, flags: UndoFlags) =>
        run(flags.json, async () => {
          await checkUndoPush(flags);
          const r = await waitingForLocks(parseWaitSeconds(flags.wait, '--wait'), () =>
            undoTransaction({ repoDir: flags.repo, ref: flags.ref, commit, revert: flags.revert }),
          );
          printUndo(streams, r, flags.json === true);
          await pushUndone(flags, r);
        }),
      );

  if (want('redo'))
    program
      .command('redo')
      .description('re-apply what the last undo removed')
      .option('--repo <dir>', 'repository to work in')
      .option('--ref <ref>', 'ref to redo on (default: the checked-out branch)')
      .option('--revert', 'bring back an undone revert with a new commit even at the tip (never move the branch back)')
      .option('--wait <seconds>', "wait up to this long for another transaction's lock instead of failing")
      .option('--push [remote]', "then push the branch (default: origin), if the remote's branch is still where it was before the redo")
      .option('--json', 'print one JSON result object')
      .action((flags: UndoFlags) =>
        run(flags.json, async () => {
          await checkUndoPush(flags);
          const r = await waitingForLocks(parseWaitSeconds(flags.wait, '--wait'), () =>
            redoTransaction({ repoDir: flags.repo, ref: flags.ref, revert: flags.revert }),
          );
          printUndo(streams, r, flags.json === true);
          await pushUndone(flags, r);
        }),
      );

  if (want('push'))
    program
      .command('push')
      .argument('[remote]', 'a configured remote or an http(s) URL (default: origin)')
      .description("push a branch and the patch texts, if the remote's branch is where it was last fetched or pushed")
      .option('--repo <dir>', 'repository to work in')
      .option('--ref <ref>', 'branch to push (default: the checked-out branch)')
      .option('--expect <oid>', "the commit the remote's branch must be at (default: the remote-tracking ref; 'none': absent)")
      .option('--force', 'overwrite the remote branch whatever it holds')
      .option('--json', 'print one JSON result object')
      .action((remote: string | undefined, flags: CommonFlags & { ref?: string; expect?: string; force?: boolean }) =>
        run(flags.json, async () => {
          const expected = flags.expect === undefined ? undefined : flags.expect === 'none' ? null : flags.expect;
          if (typeof expected === 'string' && !/^[0-9a-f]{40}$/.test(expected))
            throw new PatchtxError('usage', `--expect wants a full commit id or 'none', got '${expected}'`, { option: 'expected' });
          printPushed(streams, await pushBranch({ repoDir: flags.repo, remote, ref: flags.ref, expected, force: flags.force }), flags.json === true);
        }),
      );

  if (want('log'))
    program
      .command('log')
      .description('list patchtx transactions on a ref, newest first')
      .option('--repo <dir>', 'repository to work in')
      .option('--ref <ref>', 'ref to list (default: the checked-out branch)')
      .option('-n, --max-count <n>', 'how many to list', '20')
      .option('--json', 'print a JSON array')
      .action((flags: CommonFlags & { ref?: string; maxCount: string }) =>
        run(flags.json, async () => {
          const max = Number(flags.maxCount);
          if (!Number.isInteger(max) || max < 1) throw new PatchtxError('usage', `-n wants a positive whole number, got '${flags.maxCount}'`);
          printLog(streams, await listTransactions({ repoDir: flags.repo, ref: flags.ref, max }), flags.json === true);
        }),
      );

  if (want('show'))
    program
      .command('show')
      .argument('<commit>', 'a patchtx commit')
      .description('print the original patch text of a transaction')
      .option('--repo <dir>', 'repository to work in')
      .option('--json', "print the transaction's record, as a line of patchtx export")
      .option('--regenerate', 'for a commit without a stored patch text: make an equivalent patch from its diff (said on stderr)')
      .action((commit: string, flags: CommonFlags & { regenerate?: boolean }) =>
        run(flags.json, async () => {
          const regenerated = (): void =>
            streams.err(
              `note: no patch text is stored for ${commit}: this patch was regenerated from the commit's diff; it makes the same change, but is not the text that was applied\n`,
            );
          if (flags.json) {
            const record = await showRecord({ repoDir: flags.repo, commit, regenerate: flags.regenerate });
            if (record.regenerated) regenerated();
            streams.out(JSON.stringify(record) + '\n');
            return;
          }
          if (!flags.regenerate) {
            streams.out(await showPatch({ repoDir: flags.repo, commit }));
            return;
          }
          const shown = await showOrRegenerate({ repoDir: flags.repo, commit });
          if (shown.regenerated) regenerated();
          for (const w of shown.warnings) streams.err(`warning: ${w.message}\n`);
          streams.out(shown.text);
        }),
      );

  if (want('recover'))
    program
      .command('recover')
      .description('finish or drop a transaction that was interrupted (also done by every other command)')
      .option('--repo <dir>', 'repository to work in')
      .option('--json', 'print one JSON result object')
      .action((flags: CommonFlags) =>
        run(flags.json, async () => {
          const report = await recoverCommand({ repoDir: flags.repo });
          if (flags.json) streams.out(JSON.stringify(recoverJson(report)) + '\n');
          else if (!report) streams.out('Nothing to recover.\n');
          else {
            for (const one of recoveredRuns(report)) {
              const r = recoveryText(one);
              streams.out(`${r.line[0]!.toUpperCase()}${r.line.slice(1)}.\n`);
              for (const w of r.warnings) streams.err(`warning: ${w}\n`);
            }
          }
        }),
      );

  return program;
}

export async function main(argv: string[], streams: Streams = processStreams): Promise<number> {
  const code = await runMain(argv, streams);
  // a signal that waited for a transaction to finish (or rolled it back): the status says so
  const signal = await receivedSignal();
  return signal === null ? code : exitStatusFor(signal);
}

/**
 * The command a run names first, when defining only that one parses it alike: commander hands the
 * rest of the arguments to that command, and defining the others (their options and help) is work
 * a start need not do. Help, for the program or a command, gets the whole program; `--version`
 * alone needs no command at all ('').
 */
function commandNamed(argv: string[]): string | undefined {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return '';
  const first = argv[0];
  if (first === undefined || first.startsWith('-') || argv.some((a) => a === '-h' || a === '--help')) return undefined;
  return first;
}

async function runMain(argv: string[], streams: Streams): Promise<number> {
  let code = 0;
  const json = argv.includes('--json');
  const setExit = (c: number): void => void (code = c);
  const only = commandNamed(argv);
  let program = buildProgram(streams, setExit, json, only);
  // not a command's name after all: the whole program, to say so as commander says it
  if (only !== undefined && only !== '' && program.commands.length === 0) program = buildProgram(streams, setExit, json);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0;
      // commander has already explained on stderr; --json callers also get the one result object
      if (json) streams.out(JSON.stringify(jsonError(new PatchtxError('usage', e.message.replace(/^error: /, '')))) + '\n');
      return 2;
    }
    return await printError(streams, toError(withFlagHints(e)), json);
  }
  return code;
}
