// Running the built command line (dist/patchtx.cjs) as a real child process, for the crash and
// concurrency tests: they need processes that can be killed, and several of them at once.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { gitEnv, repoRoot } from './repos.js';

/** the bundle under test; PATCHTX_TEST_BIN points the tests at another build (say, of an experiment) */
const builtBin = process.env.PATCHTX_TEST_BIN ?? path.join(repoRoot, 'dist/patchtx.cjs');
let bin = builtBin;

/**
 * The tests spawn the bundle; `npm test` builds it, a single-file run needs `node scripts/build.mjs`.
 * A copy is taken, so a rebuild of dist/ by someone else while the tests run (the working tree is
 * shared) cannot pull the file from under them or mix two versions in one test file.
 */
export function requireBuiltCli(): void {
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

/** The bundle the tests run (the copy requireBuiltCli took), for tests that start it themselves. */
export const builtCliPath = (): string => bin;

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
}

/** Runs patchtx to completion (or to its death), never throwing for a non-zero exit. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], {
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

/** The same, synchronously (set-up steps). Throws unless it exits 0. */
export function cliOk(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...gitEnv, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`patchtx ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The git CLI, asynchronously (so that concurrent trials and kill timers are not held up):
 * status and output, never throwing for a non-zero exit. */
export function gitAsync(cwd: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
      resolve({ status: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** gitAsync that throws unless git exits 0; returns stdout. */
export async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  const r = await gitAsync(cwd, ...args);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** mulberry32: a small seeded PRNG, so a failing random schedule can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed from `envName` when set (to replay a run), else a fresh one. */
export function seedFrom(envName: string): number {
  const given = process.env[envName];
  if (given !== undefined && given !== '') return Number(given) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/**
 * Files in a git dir that an interrupted transaction must not leave behind once recovered: lock
 * files anywhere (index.lock, refs/…/x.lock, HEAD.lock, packed-refs.lock), patchtx's journal, its
 * temporary siblings and recovery claims, temporary files of the redo stack, the .keep file of a
 * transaction's pack (it keeps the pack from git's repacks only while the transaction runs).
 */
export function leftoverFiles(gitdir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      // objects/ holds nothing lock-like (tmp_obj_* files there are garbage git's prune removes),
      // only the .keep files of packs
      if (rel === '' && name === 'objects') {
        found.push(...patchtxKeeps(path.join(dir, name, 'pack')));
        continue;
      }
      const abs = path.join(dir, name);
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        walk(abs, relPath);
        continue;
      }
      if (name.endsWith('.lock') || (relPath.startsWith('patchtx/') && (name.startsWith('journal') || name.startsWith('recovering-') || name.includes('.tmp')))) {
        found.push(relPath);
      }
    }
  };
  walk(gitdir, '');
  return found.sort();
}

function patchtxKeeps(packDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(packDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.keep') && readFileSync(path.join(packDir, n), 'utf8').startsWith('patchtx transaction '))
    .map((n) => `objects/pack/${n}`);
}

/** The redo stack patchtx keeps for `ref` (one commit id per line, most recent last), in a file
 * named by the ref with `%` and `/` escaped. */
export function redoStack(commonDir: string, ref: string): string[] {
  try {
    return readFileSync(path.join(commonDir, 'patchtx', 'redo', ref.replace(/%/g, '%25').replace(/\//g, '%2F')), 'utf8')
      .split('\n')
      .filter((l) => /^[0-9a-f]{40}$/.test(l));
  } catch {
    return [];
  }
}

/** Runs `fn` over `items` with at most `lanes` in flight; rejects with the first failure. */
export async function inLanes<T, R>(items: T[], lanes: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed: unknown = null;
  const lane = async (): Promise<void> => {
    while (failed === null && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failed !== null) throw failed;
  return results;
}

/** Waits (up to 30 s, polling) until `check` holds, then asserts it: `what` names the awaited state. */
export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), what).toBe(true);
}
