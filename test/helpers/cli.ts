// Running the programs: in this process through their main functions (fast), or the built bundles
// (dist/patchtx.cjs, dist/apply_patch.cjs) as real child processes, for tests that need processes
// that can be killed, several at once, or the program exactly as a user starts it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main as applyPatchMain } from '../../src/cli/apply_patch.js';
import { main as patchtxMain } from '../../src/cli/patchtx.js';
import { afterAll, beforeAll } from 'vitest';
import { gitEnv, repoRoot } from './repos.js';
import { cleanupScratch, isolateGitEnv } from './scratch.js';

export interface RunResult {
  code: number;
  out: string;
  err: string;
}

/** `patchtx ARGS` in this process. */
export async function patchtx(...args: string[]): Promise<RunResult> {
  let out = '';
  let err = '';
  const code = await patchtxMain(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** `patchtx ARGS --json` in this process; the last JSON line of stdout, parsed. */
export async function patchtxJson(...args: string[]): Promise<RunResult & { json: any; lines: any[] }> {
  const r = await patchtx(...args, '--json');
  const lines = r.out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
  return { ...r, json: lines[lines.length - 1], lines };
}

/** `apply_patch ARGS` in this process, run from `cwd`. */
export async function applyPatch(cwd: string, ...args: string[]): Promise<RunResult> {
  let out = '';
  let err = '';
  const code = await applyPatchMain(args, { out: (t) => void (out += t), err: (t) => void (err += t) }, cwd);
  return { code, out, err };
}

export type Program = 'patchtx' | 'apply_patch';

/** the bundle under test; PATCHTX_TEST_BIN points the tests at another build (say, of an experiment) */
const builtBin = process.env.PATCHTX_TEST_BIN ?? path.join(repoRoot, 'dist/patchtx.cjs');
let bin = builtBin;

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const abs = path.join(dir, name);
    const st = lstatSync(abs);
    newest = Math.max(newest, st.isDirectory() ? newestSource(abs) : st.mtimeMs);
  }
  return newest;
}

/** Runs scripts/build.mjs when dist/ is missing or older than src/. `npm test` builds first, so in
 * a full run nothing is rebuilt while other test files may be running the bundle. */
function buildIfStale(): void {
  if (process.env.PATCHTX_TEST_BIN !== undefined) return;
  const built = ['patchtx', 'apply_patch'].map((n) => path.join(path.dirname(builtBin), `${n}.cjs`));
  const oldest = Math.min(...built.map((f) => (existsSync(f) ? lstatSync(f).mtimeMs : 0)));
  if (oldest > newestSource(path.join(repoRoot, 'src'))) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs')], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * The tests spawn the bundle, built first when missing or older than src/. A copy is taken, so a
 * rebuild of dist/ by someone else while the tests run (the working tree is shared) cannot pull
 * the file from under them or mix two versions in one test file.
 */
export function requireBuiltCli(): void {
  buildIfStale();
  if (!existsSync(builtBin)) throw new Error(`${builtBin} is missing: run 'node scripts/build.mjs' first`);
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-bin-'));
  // the whole output directory (the programs load shared chunks), in a package that, like this
  // one, says its .js files are ES modules
  cpSync(path.dirname(builtBin), path.join(dir, 'dist'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  bin = path.join(dir, 'dist', path.basename(builtBin));
  copies.push(dir);
}

const copies: string[] = [];

/** The bundle of a program the tests run (in the copy requireBuiltCli took), for tests that start
 * it themselves. */
export const binPath = (program: Program = 'patchtx'): string => (program === 'patchtx' ? bin : path.join(path.dirname(bin), `${program}.cjs`));

/** Removes the copies requireBuiltCli took (call from afterAll). */
export function cleanupBuiltCli(): void {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
  bin = builtBin;
}

export interface CliResult {
  /** exit status, null when killed by a signal */
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** wall time from spawn to exit */
  ms: number;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** SIGKILL the child this many milliseconds after spawning it (if it is still running) */
  killAfterMs?: number;
  /** the program to run, patchtx unless said */
  program?: Program;
}

/** Runs a built program to completion (or to its death), never throwing for a non-zero exit. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [binPath(opts.program), ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: { ...gitEnv, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined); // a child killed before reading its input
    child.stdin.end(opts.input ?? '');
    let timer: NodeJS.Timeout | undefined;
    if (opts.killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    // 'close' comes after the child has been reaped and its output drained: its pid is dead by now
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Runs a built program synchronously, never throwing for a non-zero exit. `env` is the whole
 * environment when given (tests of a bare environment), else gitEnv without colour. */
export function runBin(program: Program, args: string[], opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): RunResult {
  const r = spawnSync(process.execPath, [binPath(program), ...args], {
    cwd: opts.cwd ?? repoRoot,
    input: opts.input ?? '',
    env: opts.env ?? { ...gitEnv, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** `patchtx ARGS` built, synchronously (set-up steps), with `env` over gitEnv. Throws unless it
 * exits 0; returns stdout. */
export function cliOk(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  const r = runBin('patchtx', args, { cwd: opts.cwd, input: opts.input, env: { ...gitEnv, ...opts.env } });
  if (r.code !== 0) throw new Error(`patchtx ${args.join(' ')} exited ${r.code}:\n${r.out}${r.err}`);
  return r.out;
}

/** The set-up of a test file that runs the built program: git's environment isolated, the program there, and both cleaned up after. */
export function useBuiltCli(): void {
  beforeAll(() => {
    isolateGitEnv();
    requireBuiltCli();
  });
  afterAll(() => {
    cleanupScratch();
    cleanupBuiltCli();
  });
}
