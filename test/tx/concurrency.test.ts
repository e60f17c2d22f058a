// Concurrent writers on one branch, end to end: several processes apply patches that touch disjoint
// files to the same ref at once, each retrying when it is refused as `stale` (exit 5), until every
// patch has landed. Nothing may be lost or garbled: every patch is exactly one commit on a linear
// first-parent chain, with its Patch-Id trailer and its note, the final tree has every file with
// the right content, every refusal was a clean `stale`, and git fsck is happy.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, cliOk, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, gitOk, makeRepo } from '../helpers/repos.js';
import { inLanes, prng, seedFrom } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

const SEED = seedFrom('PATCHTX_CONCURRENCY_SEED');
const rand = prng(SEED);
const NOTES = 'refs/notes/patchtx';

const work = mkdtempSync(path.join(tmpdir(), 'patchtx-concurrency-'));

beforeAll(() => {
  requireBuiltCli();
  console.log(`concurrency test seed: ${SEED} (replay the retry back-off with PATCHTX_CONCURRENCY_SEED=${SEED})`);
});

afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// The workload: writer w's patch i touches only w<w>/f<i>.txt; odd i update a file the base has,
// even i add one

const fileOf = (w: number, i: number): string => `w${w}/f${i}.txt`;
const baseContent = (w: number, i: number): string => `base of writer ${w} file ${i}\n`;
const finalContent = (w: number, i: number): string => `written by writer ${w}, patch ${i}\n`;

function patchText(w: number, i: number): string {
  const file = fileOf(w, i);
  const line = finalContent(w, i).trimEnd();
  return i % 2 === 1
    ? `*** Begin Patch\n*** Update File: ${file}\n@@\n-${baseContent(w, i).trimEnd()}\n+${line}\n*** End Patch\n`
    : `*** Begin Patch\n*** Add File: ${file}\n+${line}\n*** End Patch\n`;
}

/** A checkout whose last commit holds the files the update patches expect. */
function seedCheckout(dir: string, writers: number, perWriter: number): string {
  for (let w = 0; w < writers; w++) {
    for (let i = 1; i < perWriter; i += 2) {
      execFileSync('mkdir', ['-p', path.join(dir, `w${w}`)]);
      writeFileSync(path.join(dir, fileOf(w, i)), baseContent(w, i));
    }
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'Files for the concurrent writers');
  return git(dir, 'rev-parse', 'HEAD').trim();
}

// ---------------------------------------------------------------------------------------------
// Writers

interface Landed {
  writer: number;
  patch: number;
  commit: string;
  patchId: string;
}

interface Stats {
  landed: Landed[];
  attempts: number;
  /** refusals: exit 5 with a JSON error of kind stale */
  stale: number;
  /** the refusals by what they said (ids and numbers blanked out) */
  staleReasons: Map<string, number>;
  /** anything else that was not a success (must stay empty) */
  failures: string[];
  /** warnings of landed commits (a note that could not be stored: must stay empty) */
  warnings: string[];
}

interface WriterOptions {
  /** --repo for writer w (all the same repository, or linked worktrees of one) */
  repoOf: (w: number) => string;
  extraArgs: string[];
  writers: number;
  perWriter: number;
  /** where the patch files go (default: the test's work dir) */
  patchDir?: string;
}

/**
 * Each writer is a sequence of `patchtx apply --json` processes, one patch each, retried after a
 * random back-off whenever it is refused as stale, until it lands. All writers run at once.
 */
async function runWriters(opts: WriterOptions): Promise<Stats> {
  const stats: Stats = { landed: [], attempts: 0, stale: 0, staleReasons: new Map(), failures: [], warnings: [] };
  const patchFiles = new Map<string, string>();
  for (let w = 0; w < opts.writers; w++) {
    for (let i = 0; i < opts.perWriter; i++) {
      const file = path.join(opts.patchDir ?? work, `p-${w}-${i}.patch`);
      writeFileSync(file, patchText(w, i));
      patchFiles.set(`${w}/${i}`, file);
    }
  }
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; i < opts.perWriter; i++) {
      for (let attempt = 1; ; attempt++) {
        stats.attempts++;
        const r = await runCli(['apply', '--json', '--repo', opts.repoOf(w), ...opts.extraArgs, patchFiles.get(`${w}/${i}`)!]);
        let out: { ok: boolean; commit?: string; patchId?: string; warnings?: { message: string }[]; error?: { kind: string; message: string } } | null = null;
        try {
          out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
        } catch {
          out = null;
        }
        if (r.status === 0 && out?.ok === true && out.commit) {
          stats.landed.push({ writer: w, patch: i, commit: out.commit, patchId: out.patchId! });
          for (const warning of out.warnings ?? []) stats.warnings.push(`writer ${w} patch ${i}: ${warning.message}`);
          break;
        }
        if (r.status === 5 && out?.ok === false && out.error?.kind === 'stale') {
          stats.stale++;
          const reason = out.error.message
            .replace(/\/\S+/g, '<path>')
            .replace(/[0-9a-f]{7,40}|\d+/g, '#')
            .slice(0, 70);
          stats.staleReasons.set(reason, (stats.staleReasons.get(reason) ?? 0) + 1);
          if (attempt > 500) {
            stats.failures.push(`writer ${w} patch ${i}: still stale after ${attempt} attempts`);
            return;
          }
          // randomised, growing back-off: on two cores every refused run costs a node start-up
          await sleep(Math.floor(rand() * 80 * Math.min(attempt, 8)));
          continue;
        }
        stats.failures.push(`writer ${w} patch ${i}: exit ${r.status ?? r.signal}: ${r.stdout}${r.stderr}`);
        return;
      }
    }
  };
  await inLanes(
    Array.from({ length: opts.writers }, (_, w) => w),
    opts.writers,
    writer,
  );
  return stats;
}

// ---------------------------------------------------------------------------------------------
// Checks

/** `git cat-file --batch` for many object names at once: name → content (null when missing). */
function catFileBatch(dir: string, names: string[]): Map<string, string | null> {
  const out = execFileSync('git', ['cat-file', '--batch'], { cwd: dir, env: gitEnv, input: names.map((n) => n + '\n').join(''), maxBuffer: 64 << 20 });
  const result = new Map<string, string | null>();
  let pos = 0;
  for (const name of names) {
    const nl = out.indexOf(10, pos);
    const header = out.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    if (header.endsWith(' missing')) {
      result.set(name, null);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    result.set(name, out.subarray(pos, pos + size).toString('utf8'));
    pos += size + 1;
  }
  return result;
}

async function checkHistory(dir: string, ref: string, base: string, stats: Stats, opts: WriterOptions, label: string, notesBefore = 0): Promise<void> {
  const total = opts.writers * opts.perWriter;
  expect(stats.failures, `${label}: refusals other than a clean stale`).toEqual([]);
  expect(stats.warnings, `${label}: warnings`).toEqual([]);
  expect(stats.landed).toHaveLength(total);

  // a linear chain of exactly `total` new commits, each with one parent
  const chain = (await gitOk(dir, 'rev-list', '--parents', `${base}..${ref}`)).trim().split('\n');
  expect(chain, `${label}: commits between the base and ${ref}`).toHaveLength(total);
  for (const line of chain) expect(line.split(' '), `${label}: ${line} has one parent`).toHaveLength(2);
  const firstParent = (await gitOk(dir, 'rev-list', '--first-parent', `${base}..${ref}`)).trim().split('\n');
  expect(firstParent).toEqual(chain.map((l) => l.split(' ')[0]));
  expect((await gitOk(dir, 'rev-list', '--max-count=1', `${ref}~${total}`)).trim()).toBe(base);
  // every landed commit is on it, once, and carries its Patch-Id
  const onChain = new Set(firstParent);
  expect(new Set(stats.landed.map((l) => l.commit)).size).toBe(total);
  for (const l of stats.landed) expect(onChain.has(l.commit), `${label}: ${l.commit} (writer ${l.writer} patch ${l.patch}) is on ${ref}`).toBe(true);
  const trailers = new Map(
    (await gitOk(dir, 'log', '--format=%H %(trailers:key=Patch-Id,valueonly,separator=%x2C)', `${base}..${ref}`))
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  for (const l of stats.landed) expect(trailers.get(l.commit), `${label}: Patch-Id of ${l.commit}`).toBe(l.patchId);

  // the final tree: every file, with the content of its patch
  const names: string[] = [];
  for (let w = 0; w < opts.writers; w++) for (let i = 0; i < opts.perWriter; i++) names.push(`${ref}:${fileOf(w, i)}`);
  const blobs = catFileBatch(dir, names);
  for (let w = 0; w < opts.writers; w++) {
    for (let i = 0; i < opts.perWriter; i++) expect(blobs.get(`${ref}:${fileOf(w, i)}`), `${label}: ${fileOf(w, i)}`).toBe(finalContent(w, i));
  }

  // every commit has its note, holding its patch (at <commit id> in the notes tree, or under the
  // two-digit directories it fans out into once large, as git's does)
  const noted = new Set(
    (await gitOk(dir, 'notes', `--ref=${NOTES}`, 'list'))
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[1]),
  );
  expect(noted.size, `${label}: notes`).toBe(total + notesBefore);
  for (const c of onChain) expect(noted.has(c), `${label}: ${c} has a note`).toBe(true);
  const notePath = new Map(
    (await gitOk(dir, 'ls-tree', '-r', '--name-only', NOTES))
      .trim()
      .split('\n')
      .map((p) => [p.replace(/\//g, ''), p] as const),
  );
  const notes = catFileBatch(
    dir,
    stats.landed.map((l) => `${NOTES}:${notePath.get(l.commit)}`),
  );
  for (const l of stats.landed) expect(notes.get(`${NOTES}:${notePath.get(l.commit)}`), `${label}: the note of ${l.commit}`).toBe(patchText(l.writer, l.patch));

  const fsck = execFileSync('git', ['fsck', '--full', '--no-dangling', '--no-progress'], {
    cwd: dir,
    env: gitEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  expect(fsck.trim(), `${label}: git fsck`).toBe('');
}

function report(label: string, stats: Stats, ms: number): void {
  console.log(
    `${label}: ${stats.landed.length} commits landed in ${(ms / 1000).toFixed(1)} s, ${stats.attempts} patchtx runs, ${stats.stale} refused as stale (all retried), ${stats.failures.length} other failures`,
  );
  for (const [reason, n] of [...stats.staleReasons].sort((a, b) => b[1] - a[1])) console.log(`  ${n} x stale: ${reason}`);
}

// ---------------------------------------------------------------------------------------------

describe('concurrent writers on one branch', () => {
  it('8 processes x 25 patches into a bare repository with --ref', { timeout: 600_000 }, async () => {
    const seedDir = makeRepo('basic');
    const base = seedCheckout(seedDir, 8, 25);
    const bare = path.join(path.dirname(seedDir), 'bare.git');
    execFileSync('git', ['clone', '-q', '--bare', seedDir, bare], { env: gitEnv });
    const opts: WriterOptions = { repoOf: () => bare, extraArgs: ['--ref', 'refs/heads/main'], writers: 8, perWriter: 25 };
    const started = performance.now();
    const stats = await runWriters(opts);
    report('bare, 8x25', stats, performance.now() - started);
    await checkHistory(bare, 'refs/heads/main', base, stats, opts, 'bare');
    expect(leftoverFiles(bare)).toEqual([]);
  });

  it('4 processes x 8 patches into a checkout (working tree and index follow)', { timeout: 600_000 }, async () => {
    const dir = makeRepo('basic');
    const base = seedCheckout(dir, 4, 8);
    // a staged change and an untracked file that no writer touches
    writeFileSync(path.join(dir, 'README.md'), 'staged meanwhile\n');
    git(dir, 'add', 'README.md');
    writeFileSync(path.join(dir, 'untracked.txt'), 'untracked\n');
    const opts: WriterOptions = { repoOf: () => dir, extraArgs: [], writers: 4, perWriter: 8 };
    const started = performance.now();
    const stats = await runWriters(opts);
    report('checkout, 4x8', stats, performance.now() - started);
    await checkHistory(dir, 'refs/heads/main', base, stats, opts, 'checkout');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('M  README.md\n?? untracked.txt\n');
    for (let w = 0; w < 4; w++) {
      for (let i = 0; i < 8; i++) expect(git(dir, 'cat-file', 'blob', `:${fileOf(w, i)}`)).toBe(finalContent(w, i));
    }
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it(
    '4 linked worktrees x 2 processes x 6 patches onto one --ref (one journal for the ref, whichever worktree a run is in: one run at a time, the others retry)',
    { timeout: 600_000 },
    async () => {
      const dir = makeRepo('basic');
      const base = seedCheckout(dir, 8, 6);
      git(dir, 'branch', 'shared');
      const trees = [dir];
      for (let t = 1; t < 4; t++) {
        const wt = path.join(path.dirname(dir), `wt${t}`);
        git(dir, 'worktree', 'add', '-q', '-b', `side${t}`, wt);
        trees.push(wt);
      }
      const opts: WriterOptions = { repoOf: (w) => trees[w % trees.length]!, extraArgs: ['--ref', 'refs/heads/shared'], writers: 8, perWriter: 6 };
      const started = performance.now();
      const stats = await runWriters(opts);
      report('linked worktrees, 8x6', stats, performance.now() - started);
      await checkHistory(dir, 'refs/heads/shared', base, stats, opts, 'worktrees');
      for (const t of trees) expect(git(t, 'status', '--porcelain', '--untracked-files=all'), `status of ${t}`).toBe('');
      expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    },
  );

  it('a crashed transaction met by 6 processes starting at once: one recovery, then all land', { timeout: 600_000 }, async () => {
    const template = makeRepo('basic');
    const templateBase = seedCheckout(template, 6, 2);
    const crashed = path.join(work, 'crashed.patch');
    writeFileSync(crashed, '*** Begin Patch\n*** Add File: crashed.txt\n+landed, then killed\n*** End Patch\n');
    const rounds = 6;
    let raced = 0;
    const started = performance.now();
    for (let round = 0; round < rounds; round++) {
      const dir = path.join(work, `race-${round}`);
      execFileSync('cp', ['-a', template, dir]);
      // the ref has moved; journal "published", index.lock held, working tree and index not synced
      const killed = await runCli(['apply', '--repo', dir, crashed], { env: { PATCHTX_TEST_CRASH_AT: round % 2 === 0 ? 'after-ref' : 'mid-worktree' } });
      expect(killed.signal).toBe('SIGKILL');
      const crashedCommit = git(dir, 'rev-parse', 'HEAD').trim();
      expect(git(dir, 'rev-parse', 'HEAD^').trim()).toBe(templateBase);
      const patchDir = path.join(work, `race-patches-${round}`);
      mkdirSync(patchDir);
      const opts: WriterOptions = { repoOf: () => dir, extraArgs: [], writers: 6, perWriter: 1, patchDir };
      const stats = await runWriters(opts);
      raced += stats.stale;
      // the six commits on top of the recovered one
      await checkHistory(dir, 'refs/heads/main', crashedCommit, stats, opts, `race round ${round}`, 1);
      expect(git(dir, 'status', '--porcelain', '--untracked-files=all'), `race round ${round}: status`).toBe('');
      expect(git(dir, 'cat-file', 'blob', ':crashed.txt')).toBe('landed, then killed\n');
      expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
      cliOk(['recover', '--repo', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(`recovery race: ${rounds} rounds of 6 processes in ${((performance.now() - started) / 1000).toFixed(1)} s, ${raced} refused as stale`);
  });

  it('transactions killed in one worktree and recovered there while two others keep committing to the same ref', { timeout: 600_000 }, async () => {
    const dir = makeRepo('basic');
    const base = seedCheckout(dir, 2, 12);
    git(dir, 'branch', 'shared');
    const trees: string[] = [];
    for (let t = 1; t <= 2; t++) {
      const wt = path.join(path.dirname(dir), `busy${t}`);
      git(dir, 'worktree', 'add', '-q', '-b', `busy${t}`, wt);
      trees.push(wt);
    }
    const REF = 'refs/heads/shared';
    const opts: WriterOptions = { repoOf: (w) => trees[w]!, extraArgs: ['--ref', REF], writers: 2, perWriter: 12 };
    // after-publish-journal: the journal lists the ref and notes locks the run never took, which
    // the busy neighbours take all the time; after-ref: landed, and the ref moves on before recovery
    const points = ['after-publish-journal', 'after-ref', 'after-note', 'after-publish-journal', 'after-ref', 'mid-publish-journal'];
    const crashedLanded: string[] = [];
    let crashes = 0;
    const crasher = async (): Promise<void> => {
      for (let k = 0; k < 12; k++) {
        const file = path.join(work, `crasher-${k}.patch`);
        writeFileSync(file, `*** Begin Patch\n*** Add File: crasher/k${k}.txt\n+crashed ${k}\n*** End Patch\n`);
        const before = git(dir, 'rev-parse', REF).trim();
        const r = await runCli(['apply', '--json', '--repo', dir, '--ref', REF, file], { env: { PATCHTX_TEST_CRASH_AT: points[k % points.length]! } });
        if (r.signal === 'SIGKILL') crashes++;
        else expect(r.status === 0 || r.status === 5, `crasher ${k}: ${r.stdout}${r.stderr}`).toBe(true);
        // recover while the others keep going (a recovery can be refused as stale too: retry)
        for (let attempt = 0; ; attempt++) {
          const rec = await runCli(['recover', '--json', '--repo', dir]);
          if (rec.status === 0) break;
          expect(rec.status, `recover after crasher ${k}: ${rec.stdout}${rec.stderr}`).toBe(5);
          expect(attempt).toBeLessThan(200);
          await sleep(10);
        }
        const log = git(dir, 'log', '--format=%H %s', `${before}..${REF}`);
        for (const line of log.trim().split('\n').filter(Boolean)) if (line.includes(`crasher/k${k}.txt`)) crashedLanded.push(line.split(' ')[0]!);
      }
    };
    const started = performance.now();
    const [stats] = await Promise.all([runWriters(opts), crasher()]);
    report('busy worktrees with a crashing neighbour', stats, performance.now() - started);
    console.log(`  ${crashes} runs killed in the neighbour, ${crashedLanded.length} of its commits landed (finished by recovery)`);
    expect(stats.failures).toEqual([]);
    expect(stats.warnings).toEqual([]);
    // the chain holds the writers' commits and the crasher's that landed, each with its note
    const chain = git(dir, 'rev-list', '--first-parent', `${base}..${REF}`).trim().split('\n');
    expect(git(dir, 'rev-list', '--merges', `${base}..${REF}`).trim()).toBe('');
    expect(chain).toHaveLength(24 + crashedLanded.length);
    const noted = new Set(
      git(dir, 'notes', `--ref=${NOTES}`, 'list')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[1]),
    );
    for (const c of chain) expect(noted.has(c), `${c} has a note`).toBe(true);
    for (let w = 0; w < 2; w++) for (let i = 0; i < 12; i++) expect(git(dir, 'cat-file', 'blob', `${REF}:${fileOf(w, i)}`)).toBe(finalContent(w, i));
    expect(git(dir, 'fsck', '--full', '--no-dangling', '--no-progress').trim()).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });
});
