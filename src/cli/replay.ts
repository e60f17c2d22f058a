// `patchtx replay LOG...`: options in, src/commands/replay.ts does the work, results out. Output:
// a line per entry for people (on a terminal, one progress line redrawn in place on stderr
// instead); `--json` one object per entry on stdout and the summary last; `--progress=jsonl` one
// event per entry on stderr and the summary last, for CI logs. The progress line is a few lines
// here rather than a package: it is one redrawn line, and the build bundles no terminal library.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { PatchtxError } from '../errors.js';
import { replayLogs, type ReplayEntryResult, type ReplaySummary } from '../commands/replay.js';
import { GROUPINGS, type Grouping } from '../commands/replay-groups.js';
import type { LogFormat } from '../commands/inputs.js';
import { limitsFrom } from './limits.js';
import type { Streams } from './output.js';
import { readPatchSource } from './read-patch.js';
import { isTerminal } from './stdio.js';

interface ReplayFlags {
  repo?: string;
  ref?: string;
  base?: string;
  format?: LogFormat;
  includeFailed?: boolean;
  map?: string[];
  dryRun?: boolean;
  continue?: boolean;
  skip?: boolean;
  author?: string;
  committer?: string;
  dirty?: 'refuse' | 'include';
  strict?: boolean;
  limits?: string;
  progress?: 'jsonl';
  json?: boolean;
  keepMetadata?: boolean;
  commit?: Grouping;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const short = (oid: string | null): string => (oid === null ? '' : oid.slice(0, 12));

function entryLine(r: ReplayEntryResult): string {
  const name = `${r.log} entry ${r.entry}${r.callId ? ` (${r.callId})` : ''}`;
  const why = r.reason ? ` (${r.reason.replace(/_/g, ' ')})` : '';
  return `${r.status} ${name}${r.commit ? ` ${short(r.commit)}` : ''}${why}`;
}

/** One redrawn line on a terminal: entries done of the total, the rate, and the current entry. */
function terminalProgress(streams: Streams): { update: (r: ReplayEntryResult, done: number, total: number) => void; end: () => void } {
  const started = Date.now();
  let drawn = false;
  return {
    update: (r, done, total) => {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? ` ${(done / seconds).toFixed(1)}/s` : '';
      const width = 20;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${rate} ${entryLine({ ...r, log: path.basename(r.log) })}`;
      // a line longer than the terminal wraps, and \r would then redraw only its last part
      streams.err(`\r\x1b[2K${line.slice(0, Math.max((process.stderr.columns ?? 80) - 1, 20))}`);
      drawn = true;
    },
    end: () => {
      if (drawn) streams.err('\n');
    },
  };
}

/** A directory stands for its files (hidden ones left out), sorted by name; anything else for itself. */
function filesOf(source: string): string[] {
  let isDir = false;
  try {
    isDir = source !== '-' && statSync(source).isDirectory();
  } catch {
    return [source]; // reading it says what is wrong
  }
  if (!isDir) return [source];
  const names = readdirSync(source, { withFileTypes: true })
    .filter((d) => !d.name.startsWith('.') && (d.isFile() || d.isSymbolicLink()))
    .map((d) => d.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) throw new PatchtxError('usage', `the directory ${source} holds no patch files`, { path: source });
  return names.map((n) => path.join(source, n));
}

function summaryLine(s: ReplaySummary): string {
  const did = s.dryRun ? `${s.checked} would apply` : `${s.applied} applied`;
  return `Replayed ${s.total} entr${s.total === 1 ? 'y' : 'ies'}: ${did}, ${s.skipped} skipped.${s.head && !s.dryRun ? ` Branch at ${short(s.head)}.` : ''}\n`;
}

export function addReplayCommand(program: Command, streams: Streams, run: (json: boolean | undefined, fn: () => Promise<void>) => Promise<void>): void {
  program
    .command('replay')
    .argument('<log...>', 'Codex session files, Responses API item lists, patchtx exports, patch files or directories of them (- : standard input)')
    .description('apply the patches of agent logs, one commit per call, resumable')
    .option('--repo <dir>', 'repository to work in (default: the one containing the current directory)')
    .option('--ref <branch>', 'replay onto this branch, without a working tree or index unless it is checked out (default: the checked-out branch)')
    .option('--base <rev>', 'the commit a --ref branch that does not exist yet starts from')
    .addOption(
      new Option('--format <format>', 'the log format (default: told from the content)').choices([
        'codex-rollout',
        'responses-items',
        'patchtx-export',
        'patch',
      ]),
    )
    .option('--include-failed', 'also replay calls the log records as failed or without an outcome')
    .option(
      '--map <old=new>',
      "the session's directory OLD is the repository's directory NEW (repeatable; default: the session's directory is the root)",
      collect,
    )
    .addOption(
      new Option(
        '--commit <grouping>',
        'one commit per call, per turn (Responses items: per response), or one for the whole replay (default: per-call; Responses items: per-turn)',
      ).choices([...GROUPINGS]),
    )
    .option('--dry-run', 'check every entry, write nothing')
    .option('--keep-metadata', "patchtx's export: keep each commit's recorded message, author and committer (and so its id)")
    .option('--continue', 'go on after a stop: retry the entry the last replay stopped at')
    .option('--skip', 'go on after a stop: drop the entry the last replay stopped at')
    .option('--author <ident>', 'author, "Name <email>"')
    .option('--committer <ident>', 'committer, "Name <email>"')
    .addOption(new Option('--dirty <mode>', 'touched paths with uncommitted changes: refuse, or include them').choices(['refuse', 'include']).default('refuse'))
    .option('--strict', 'ambiguous matches, matches beyond trailing whitespace and overwrites by Add/Move are errors')
    .option('--limits <spec>', 'input and matching limits, e.g. patch-bytes=256M (the logs are read within patch-bytes and line-bytes)')
    .addOption(new Option('--progress <format>', 'one JSON event per entry on stderr').choices(['jsonl']))
    .option('--json', 'one JSON object per entry on stdout, then the summary')
    .action((sources: string[], flags: ReplayFlags) =>
      run(flags.json, async () => {
        if (flags.continue && flags.skip) throw new PatchtxError('usage', '--continue and --skip cannot be given together', { option: 'skip' });
        if (sources.filter((s) => s === '-').length > 1) throw new PatchtxError('usage', 'standard input (-) can be given only once');
        const limits = limitsFrom(flags.limits);
        const logs = [];
        for (const name of sources.flatMap(filesOf)) logs.push({ name, text: await readPatchSource(name, limits) });
        const events = flags.progress === 'jsonl';
        const bar = !events && !flags.json && isTerminal(2) ? terminalProgress(streams) : null;
        try {
          const summary = await replayLogs({
            repoDir: flags.repo,
            ref: flags.ref,
            base: flags.base,
            logs,
            format: flags.format,
            includeFailed: flags.includeFailed,
            maps: flags.map,
            dryRun: flags.dryRun,
            resume: flags.continue ? 'continue' : flags.skip ? 'skip' : undefined,
            author: flags.author,
            committer: flags.committer,
            dirty: flags.dirty,
            strict: flags.strict,
            limits,
            keepMetadata: flags.keepMetadata,
            grouping: flags.commit,
            onEntry: (r, { done, total }) => {
              if (events) streams.err(JSON.stringify({ event: r.status, ...r, done, total }) + '\n');
              if (flags.json) streams.out(JSON.stringify(r) + '\n');
              else if (bar) bar.update(r, done, total);
              else if (r.status !== 'failed') streams.out(entryLine(r) + '\n');
            },
          });
          bar?.end();
          const counts = { ...summary, entries: undefined };
          if (events) streams.err(JSON.stringify({ event: 'summary', ...counts }) + '\n');
          if (flags.json) streams.out(JSON.stringify(counts) + '\n');
          else streams.out(summaryLine(summary));
        } catch (e) {
          bar?.end();
          if (events && e instanceof PatchtxError)
            streams.err(JSON.stringify({ event: 'summary', ok: false, error: { kind: e.kind, message: e.message } }) + '\n');
          throw e;
        }
      }),
    );
}
