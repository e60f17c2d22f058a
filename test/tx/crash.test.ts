// Crash safety of the commit protocol (src/tx/run.ts), end to end: the built CLI is started on a
// real repository and killed with SIGKILL, either at every named crash point
// (PATCHTX_TEST_CRASH_AT) or after a random delay; then `patchtx recover` runs and the repository
// is checked with the real git CLI: fsck clean, the ref at exactly the old or the new commit, the
// working tree and index of the touched paths in line with it, other staged and untracked changes
// untouched, no lock or journal files left, the redo stack and the notes consistent with the state,
// and the next transaction works.
//
// Random schedules come from a seeded PRNG; the seed is printed, and PATCHTX_CRASH_SEED=<seed>
// replays the same delays (the exact point a delay hits still depends on the machine's timing).
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRASH_POINTS } from '../../src/tx/crash.js';
import { cleanupBuiltCli, cliOk, type CliResult, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitAsync, gitOk, gitTry, makeRepo } from '../helpers/repos.js';
import { inLanes, prng, seedFrom } from '../helpers/schedule.js';
import { leftoverFiles, redoStack } from '../helpers/snapshot.js';

const SEED = seedFrom('PATCHTX_CRASH_SEED');
const rand = prng(SEED);
/** trials run this many at a time (each one is a chain of processes): one per core */
const LANES = 2;
const REF = 'refs/heads/main';
const NOTES = 'refs/notes/patchtx';

const work = mkdtempSync(path.join(tmpdir(), 'patchtx-crash-'));

afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Patches

/** every kind of change at once: update, add, delete, move with an update */
const P1 = `*** Begin Patch
*** Update File: src/math.js
@@
 export function add(a, b) {
-  return a + b;
+  return a + b + 0;
 }
*** Add File: src/feature.txt
+hello
+world
*** Delete File: docs/notes.txt
*** Update File: src/util/name.js
*** Move to: lib/name.js
@@
-export const name = "util";
+export const name = "lib";
*** End Patch
`;

/** an executable file and a new file in an existing directory, disjoint from P1 */
const P2 = `*** Begin Patch
*** Update File: bin/run.sh
@@
 #!/bin/sh
-echo hello
+echo hello again
*** Add File: docs/two.txt
+two
*** End Patch
`;

/** set-up only: something to undo, so that the redo stack is not empty when P1 is applied */
const P0 = `*** Begin Patch
*** Add File: docs/zero.txt
+zero
*** End Patch
`;

const nextPatch = (n: number): string => `*** Begin Patch\n*** Add File: next/n${n}.txt\n+after the crash ${n}\n*** End Patch\n`;

/** every path one of the transactions below changes */
const TOUCHED = ['src/math.js', 'src/feature.txt', 'docs/notes.txt', 'src/util/name.js', 'lib/name.js', 'bin/run.sh', 'docs/two.txt', 'docs/zero.txt'];

const patchFile = (name: string, text: string): string => {
  const file = path.join(work, `${name}.patch`);
  writeFileSync(file, text);
  return file;
};

// ---------------------------------------------------------------------------------------------
// Scenarios: a template repository, the command to interrupt, and what "new state" means

type Expect = { kind: 'exact'; oid: string } | { kind: 'child'; tree: string };

interface Scenario {
  name: string;
  bare: boolean;
  /** the template repository each trial starts from a copy of */
  template: string;
  /** the command, without --repo */
  args: string[];
  /** extra arguments of `apply` in this repository (--ref for bare ones) */
  refArgs: string[];
  oldHead: string;
  expectNew: Expect;
  /** the note text the new commit carries; undefined: no note (a reset), null: some note */
  note?: string | null;
  redoOld: string[];
  /** the redo stack in the new state; '<new>' stands for the new commit */
  redoNew: string[];
  /** git status --porcelain of the template (staged and untracked changes set up outside the patch) */
  status: string;
  notesCount: number;
}

const gitdirOf = (sc: { bare: boolean }, dir: string): string => (sc.bare ? dir : path.join(dir, '.git'));
const rev = (dir: string, r: string): string => git(dir, 'rev-parse', '--verify', '-q', r).trim();
const notesCount = (dir: string): number => {
  const r = gitTry(dir, 'notes', `--ref=${NOTES}`, 'list');
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean).length : 0;
};

/** cp -a keeps symlinks verbatim (fs.cpSync would make relative ones absolute) */
const copyRepo = (from: string, to: string): Promise<unknown> => promisify(execFile)('cp', ['-a', from, to]);

/** Outside changes that every transaction must leave alone: a staged file, an untracked file. */
function addBystanders(dir: string): void {
  writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nStaged before the crash.\n');
  git(dir, 'add', 'README.md');
  writeFileSync(path.join(dir, 'scratch.txt'), 'untracked\n');
}

interface ScenarioSetup {
  name: string;
  bare: boolean;
  /** patches applied (and undos run) to shape the template: 'undo' entries run `patchtx undo` */
  steps: (string | 'undo')[];
  args: (patches: Record<string, string>, commits: string[]) => string[];
  note?: 'patch' | 'some';
}

/** Builds a scenario's template and runs the command once, uninterrupted, to learn the new state. */
async function buildScenario(setup: ScenarioSetup): Promise<Scenario> {
  const template = makeRepo(setup.bare ? 'bare' : 'basic');
  const refArgs = setup.bare ? ['--ref', REF] : [];
  const commits: string[] = [];
  for (const step of setup.steps) {
    if (step === 'undo') cliOk(['undo', '--repo', template, ...refArgs]);
    else {
      const out = JSON.parse(cliOk(['apply', '--json', '--repo', template, ...refArgs, patchFile(`${setup.name}-setup`, step)])) as { commit: string };
      commits.push(out.commit);
    }
  }
  if (!setup.bare) addBystanders(template);
  const patches = { P1: patchFile('P1', P1) };
  const args = setup.args(patches, commits);
  const oldHead = rev(template, REF);
  const commonDir = gitdirOf(setup, template);
  const redoOld = redoStack(commonDir, REF);
  const status = setup.bare ? '' : git(template, 'status', '--porcelain', '--untracked-files=all');

  // the uninterrupted run, on a copy
  const probe = path.join(work, `${setup.name}-probe`);
  await copyRepo(template, probe);
  const r = await runCli([...args, '--repo', probe, ...refArgs]);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const newHead = rev(probe, REF);
  expect(newHead).not.toBe(oldHead);
  const parentOfNew = gitTry(probe, 'rev-parse', '--verify', '-q', `${newHead}^`).stdout.trim();
  const expectNew: Expect =
    parentOfNew === oldHead && !commits.includes(newHead) ? { kind: 'child', tree: rev(probe, `${newHead}^{tree}`) } : { kind: 'exact', oid: newHead };
  const redoNew = redoStack(gitdirOf(setup, probe), REF).map((c) => (c === newHead ? '<new>' : c));
  const scenario: Scenario = {
    name: setup.name,
    bare: setup.bare,
    template,
    args,
    refArgs,
    oldHead,
    expectNew,
    note: setup.note === 'patch' ? P1 : setup.note === 'some' ? null : undefined,
    redoOld,
    redoNew,
    status,
    notesCount: notesCount(template),
  };
  if (!setup.bare) expect(git(probe, 'status', '--porcelain', '--untracked-files=all')).toBe(status);
  rmSync(probe, { recursive: true, force: true });
  return scenario;
}

// ---------------------------------------------------------------------------------------------
// One trial

type Trial =
  | { kind: 'point'; point: string }
  | { kind: 'random'; delayMs: number }
  /** killed at `point`, then the first recovery killed at `recoverPoint` or after `recoverDelayMs` */
  | { kind: 'double'; point: string; recoverPoint?: string; recoverDelayMs?: number };

interface TrialResult {
  state: 'old' | 'new';
  /** for a crash-point trial: the point, when the process did die there */
  killedAt?: string;
  /** what the kill left behind: the process finished, or the journal it left (none/prepared/published) */
  phase: string;
}

function describeTrial(t: Trial): string {
  if (t.kind === 'point') return `crash at ${t.point}`;
  if (t.kind === 'random') return `SIGKILL after ${t.delayMs} ms`;
  return `crash at ${t.point}, recovery killed ${t.recoverPoint ? `at ${t.recoverPoint}` : `after ${t.recoverDelayMs} ms`}`;
}

/** The journal a killed run left: the checkout's, or (bare, --ref) its ref's. */
function journalPhase(gitdir: string): string {
  const refJournal = path.join(gitdir, 'patchtx', 'refs', `journal-${REF.replace(/\//g, '%2F')}.json`);
  const file = existsSync(refJournal) ? refJournal : path.join(gitdir, 'patchtx', 'journal.json');
  if (!existsSync(file)) return 'no journal';
  try {
    return `journal ${(JSON.parse(readFileSync(file, 'utf8')) as { state: string }).state}`;
  } catch {
    return 'journal unreadable';
  }
}

function expectAliveOrKilled(r: CliResult, what: string): boolean {
  if (r.signal === 'SIGKILL') return true;
  expect(r.status, `${what} exited ${r.status}:\n${r.stdout}${r.stderr}`).toBe(0);
  return false;
}

const parseEntries = (text: string, fields: (meta: string[]) => string): Map<string, string> =>
  new Map(
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [meta, p] = l.split('\t') as [string, string];
        return [p, fields(meta.split(' '))] as const;
      }),
  );

/** The checks after recovery; returns which state the repository is in. */
async function checkRecovered(sc: Scenario, dir: string, label: string): Promise<{ state: 'old' | 'new'; head: string }> {
  const gitdir = gitdirOf(sc, dir);
  const fsck = await gitAsync(dir, 'fsck', '--full', '--no-dangling', '--no-progress');
  expect(fsck.status, `${label}: git fsck\n${fsck.stdout}${fsck.stderr}`).toBe(0);
  expect((fsck.stdout + fsck.stderr).trim(), `${label}: git fsck output`).toBe('');
  expect(leftoverFiles(gitdir), `${label}: files left behind`).toEqual([]);

  const head = (await gitOk(dir, 'rev-parse', '--verify', '-q', REF)).trim();
  let state: 'old' | 'new';
  if (head === sc.oldHead) state = 'old';
  else if (sc.expectNew.kind === 'exact') {
    expect(head, `${label}: ${REF} is neither the old nor the new commit`).toBe(sc.expectNew.oid);
    state = 'new';
  } else {
    // exactly one new commit on top of the old one, with the expected tree and a Patch-Id trailer
    const [parents, tree, trailer] = (await gitOk(dir, 'log', '-1', '--format=%P%n%T%n%(trailers:key=Patch-Id,valueonly)', head)).split('\n');
    expect(parents, `${label}: ${REF} is neither the old commit nor a single new commit on it`).toBe(sc.oldHead);
    expect(tree, `${label}: the tree of the new commit`).toBe(sc.expectNew.tree);
    expect(trailer).toMatch(/^[0-9a-f]{40}$/);
    state = 'new';
  }

  // the note exists exactly when a commit that carries one has landed
  const notes = await gitAsync(dir, 'notes', `--ref=${NOTES}`, 'list');
  const noteCount = notes.status === 0 ? notes.stdout.split('\n').filter(Boolean).length : 0;
  expect(noteCount, `${label}: notes`).toBe(sc.notesCount + (state === 'new' && sc.note !== undefined ? 1 : 0));
  if (state === 'new' && typeof sc.note === 'string') expect(await gitOk(dir, 'notes', `--ref=${NOTES}`, 'show', head)).toBe(sc.note);
  // the redo stack is changed exactly once, with the ref
  const expectedRedo = state === 'old' ? sc.redoOld : sc.redoNew.map((c) => (c === '<new>' ? head : c));
  expect(redoStack(gitdir, REF), `${label}: redo stack`).toEqual(expectedRedo);

  if (!sc.bare) {
    const [symbolic, status, lsTree, lsFiles] = await Promise.all([
      gitOk(dir, 'symbolic-ref', 'HEAD'),
      gitOk(dir, 'status', '--porcelain', '--untracked-files=all'),
      gitOk(dir, 'ls-tree', '-r', 'HEAD', '--', ...TOUCHED),
      gitOk(dir, 'ls-files', '-s', '--', ...TOUCHED),
    ]);
    expect(symbolic.trim()).toBe(REF);
    expect(status, `${label}: git status`).toBe(sc.status);
    // byte for byte, not only what git status infers from stat data: the working tree file and
    // the index entry of every touched path are those of HEAD (or absent with it)
    const inHead = parseEntries(lsTree, ([mode, , oid]) => `${mode} ${oid}`);
    const inIndex = parseEntries(lsFiles, ([mode, oid, stage]) => `${mode} ${oid} stage ${stage}`);
    expect(inIndex, `${label}: index entries of the touched paths`).toEqual(new Map([...inHead].map(([p, e]) => [p, `${e} stage 0`])));
    for (const p of TOUCHED) {
      const abs = path.join(dir, p);
      const st = lstatSync(abs, { throwIfNoEntry: false });
      const entry = inHead.get(p);
      if (!entry) {
        expect(st, `${label}: ${p} should not exist`).toBeUndefined();
        continue;
      }
      expect(st?.isFile(), `${label}: ${p} should be a file`).toBe(true);
      const oid = entry.split(' ')[1]!;
      const hash = (await gitOk(dir, 'hash-object', '--no-filters', '--', p)).trim();
      expect(hash, `${label}: content of ${p}`).toBe(oid);
      expect((st!.mode & 0o111) !== 0, `${label}: executable bit of ${p}`).toBe(entry.startsWith('100755'));
    }
    // the symlink the fixture has is untouched
    expect(readlinkSync(path.join(dir, 'docs/src-link'))).toBe('../src');
  }
  return { state, head };
}

let nextId = 0;

async function runTrial(sc: Scenario, t: Trial): Promise<TrialResult> {
  const id = nextId++;
  const dir = path.join(work, `${sc.name}-${id}`);
  const label = `[${sc.name} #${id}: ${describeTrial(t)}; seed ${SEED}]`;
  await copyRepo(sc.template, dir);
  const gitdir = gitdirOf(sc, dir);
  const point = t.kind === 'random' ? undefined : t.point;
  const first = await runCli([...sc.args, '--repo', dir, ...sc.refArgs], {
    env: point ? { PATCHTX_TEST_CRASH_AT: point } : {},
    killAfterMs: t.kind === 'random' ? t.delayMs : undefined,
  });
  const killed = expectAliveOrKilled(first, `${label} the interrupted command`);
  const phase = killed ? journalPhase(gitdir) : 'finished';

  if (t.kind === 'double') {
    const r = await runCli(['recover', '--repo', dir], {
      env: t.recoverPoint ? { PATCHTX_TEST_CRASH_AT: t.recoverPoint } : {},
      killAfterMs: t.recoverDelayMs,
    });
    expectAliveOrKilled(r, `${label} the interrupted recovery`);
  }
  const rec = await runCli(['recover', '--json', '--repo', dir]);
  expect(rec.status, `${label} patchtx recover:\n${rec.stdout}${rec.stderr}`).toBe(0);
  const report = (JSON.parse(rec.stdout) as { recovered: { outcome: string } | null }).recovered;

  const { state, head } = await checkRecovered(sc, dir, label);
  if (report?.outcome === 'finished') expect(state, `${label}: recovery said it finished the run`).toBe('new');
  if (phase === 'finished') expect(state, `${label}: the command finished`).toBe('new');
  if (phase === 'journal prepared') expect(state, `${label}: a run that never published`).toBe('old');

  // the next transaction works, on top of whatever state recovery left
  const next = await runCli(['apply', '--json', '--repo', dir, ...sc.refArgs], { input: nextPatch(id) });
  expect(next.status, `${label} the next apply:\n${next.stdout}${next.stderr}`).toBe(0);
  const commit = (JSON.parse(next.stdout) as { commit: string }).commit;
  expect((await gitOk(dir, 'rev-parse', REF, `${commit}^`)).trim().split('\n'), `${label}: the next commit`).toEqual([commit, head]);
  expect(leftoverFiles(gitdir), `${label}: files left behind by the next apply`).toEqual([]);
  if (!sc.bare) expect(await gitOk(dir, 'status', '--porcelain', '--untracked-files=all'), `${label}: git status after the next apply`).toBe(sc.status);

  rmSync(dir, { recursive: true, force: true });
  return { state, phase, killedAt: t.kind === 'point' && killed ? t.point : undefined };
}

// ---------------------------------------------------------------------------------------------

interface Tally {
  old: number;
  new: number;
  phases: Record<string, number>;
}
const tallies = new Map<string, Tally>();

/** The crash points every run of this scenario passes (so a point that stops being reached, a
 * renamed one say, does not quietly stop being tested). */
function pointsReached(sc: Scenario): string[] {
  const checkout = ['after-index-lock', 'mid-worktree', 'after-worktree', 'after-index'];
  const redoStackWritten = sc.args[0] === 'undo' || sc.args[0] === 'redo';
  return CRASH_POINTS.filter((p) => (sc.bare ? !checkout.includes(p) : true) && (p === 'mid-redo-stack' ? redoStackWritten : true));
}

async function runTrials(sc: Scenario, trials: Trial[]): Promise<void> {
  const started = performance.now();
  const results = await inLanes(trials, LANES, (t) => runTrial(sc, t));
  if (trials.some((t) => t.kind === 'point')) {
    expect(results.flatMap((r) => (r.killedAt ? [r.killedAt] : [])).sort(), `${sc.name}: the crash points reached`).toEqual([...pointsReached(sc)].sort());
  }
  const tally: Tally = tallies.get(sc.name) ?? { old: 0, new: 0, phases: {} };
  for (const r of results) {
    tally[r.state]++;
    tally.phases[r.phase] = (tally.phases[r.phase] ?? 0) + 1;
  }
  tallies.set(sc.name, tally);
  const old = results.filter((r) => r.state === 'old').length;
  console.log(
    `${sc.name}: ${trials.length} trials in ${((performance.now() - started) / 1000).toFixed(1)} s: ${old} old state, ${trials.length - old} new state`,
  );
}

/** Random delays: a third over the whole 0-150 ms from spawn (mostly start-up), the rest 0-150 ms
 * after the measured start-up time, where the transaction itself runs. */
function randomTrials(n: number): Trial[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'random' as const,
    delayMs: Math.round((i % 3 === 0 ? 0 : startupMs) + rand() * 150),
  }));
}

const pointTrials = (): Trial[] => CRASH_POINTS.map((point) => ({ kind: 'point' as const, point }));

/** time from spawn to the point where patchtx starts its work (node and the bundle loaded) */
let startupMs = 0;

beforeAll(() => {
  requireBuiltCli();
  console.log(`crash test seed: ${SEED} (replay with PATCHTX_CRASH_SEED=${SEED})`);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    cliOk(['--version']);
    times.push(performance.now() - t0);
  }
  // --version exits right after loading; a transaction's work starts a little before that
  startupMs = Math.round(Math.min(...times) * 0.8);
  console.log(`start-up: ${times.map((t) => t.toFixed(0)).join('/')} ms; random kills are offset by ${startupMs} ms for two thirds of the trials`);
});

afterAll(() => {
  let old = 0;
  let neu = 0;
  const phases: Record<string, number> = {};
  for (const t of tallies.values()) {
    old += t.old;
    neu += t.new;
    for (const [k, v] of Object.entries(t.phases)) phases[k] = (phases[k] ?? 0) + v;
  }
  console.log(`crash trials: ${old + neu} in total, ${old} ended in the old state, ${neu} in the new state (seed ${SEED})`);
  console.log(`what the kills left behind: ${JSON.stringify(phases)}`);
});

const APPLY_STEPS = [P0, 'undo' as const];

describe('crash safety of the commit protocol (SIGKILL, then recovery)', () => {
  it('apply in a checkout: every crash point, random kills, killed recoveries', { timeout: 300_000 }, async () => {
    const sc = await buildScenario({ name: 'apply-checkout', bare: false, steps: APPLY_STEPS, args: (p) => ['apply', '--json', p.P1!], note: 'patch' });
    expect(sc.redoOld).toHaveLength(1);
    expect(sc.redoNew).toEqual([]);
    const doubles: Trial[] = [];
    for (const point of ['after-ref', 'after-note', 'mid-worktree', 'after-worktree', 'after-index']) {
      for (const recoverPoint of ['after-note', 'mid-worktree', 'after-worktree', 'after-index']) doubles.push({ kind: 'double', point, recoverPoint });
    }
    for (let i = 0; i < 6; i++) doubles.push({ kind: 'double', point: 'mid-worktree', recoverDelayMs: Math.round(startupMs + rand() * 100) });
    await runTrials(sc, [...pointTrials(), ...randomTrials(45), ...doubles]);
  });

  it('apply to a bare repository with --ref: every crash point, random kills, killed recoveries', { timeout: 300_000 }, async () => {
    const sc = await buildScenario({ name: 'apply-bare', bare: true, steps: APPLY_STEPS, args: (p) => ['apply', '--json', p.P1!], note: 'patch' });
    // the journal is the ref's (not the repository's): a recovery of it killed in turn
    const doubles: Trial[] = [
      ['after-publish-journal', 'after-note'],
      ['after-ref', 'after-note'],
      ['after-note', 'after-note'],
    ].map(([point, recoverPoint]) => ({ kind: 'double', point: point!, recoverPoint }));
    for (let i = 0; i < 4; i++) doubles.push({ kind: 'double', point: 'after-ref', recoverDelayMs: Math.round(startupMs + rand() * 100) });
    await runTrials(sc, [...pointTrials(), ...randomTrials(25), ...doubles]);
  });

  it('undo and redo in a checkout: every crash point, random kills', { timeout: 300_000 }, async () => {
    // undo of the tip: the ref moves back to the parent; the redo stack grows by one
    const undo = await buildScenario({ name: 'undo-checkout', bare: false, steps: [P1, P2, 'undo'], args: () => ['undo', '--json'] });
    expect(undo.redoOld).toHaveLength(1);
    expect(undo.redoNew).toHaveLength(2);
    // the redo stack change is repeated by recovery when the run died before it, skipped when after
    const doubles: Trial[] = [
      ['after-ref', 'mid-redo-stack'],
      ['after-ref', 'mid-worktree'],
      ['after-note', 'after-index'],
      ['mid-redo-stack', 'mid-redo-stack'],
      ['mid-worktree', 'after-note'],
      ['mid-worktree', 'mid-worktree'],
    ].map(([point, recoverPoint]) => ({ kind: 'double', point: point!, recoverPoint }));
    await runTrials(undo, [...pointTrials(), ...randomTrials(15), ...doubles]);

    // redo: the ref moves forward to the undone commit; the redo stack shrinks by one
    const redo = await buildScenario({ name: 'redo-checkout', bare: false, steps: [P1, P2, 'undo', 'undo'], args: () => ['redo', '--json'] });
    expect(redo.redoOld).toHaveLength(2);
    expect(redo.redoNew).toEqual(redo.redoOld.slice(0, 1));
    await runTrials(redo, [...pointTrials(), ...randomTrials(15), ...doubles.map((d) => ({ ...d }))]);

    // undo of an older commit: a revert commit (with a note) on top of the tip
    const revert = await buildScenario({
      name: 'revert-checkout',
      bare: false,
      steps: [P1, P2],
      args: (_p, commits) => ['undo', '--json', commits[0]!],
      note: 'some',
    });
    expect(revert.expectNew.kind).toBe('child');
    expect(revert.redoNew).toEqual(['<new>']);
    await runTrials(revert, [...pointTrials(), ...randomTrials(12)]);
  });

  it('undo in a bare repository with --ref: every crash point, random kills, killed recoveries', { timeout: 300_000 }, async () => {
    const sc = await buildScenario({ name: 'undo-bare', bare: true, steps: [P1, P2], args: () => ['undo', '--json'] });
    const doubles: Trial[] = [
      ['after-ref', 'mid-redo-stack'],
      ['mid-redo-stack', 'mid-redo-stack'],
      ['after-note', 'after-note'],
    ].map(([point, recoverPoint]) => ({ kind: 'double', point: point!, recoverPoint }));
    await runTrials(sc, [...pointTrials(), ...randomTrials(12), ...doubles]);
  });
});
