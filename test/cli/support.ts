// Shared bits of the CLI tests: run the commands in-process (fast) or as the built binaries, write
// patch files, and take snapshots of a repository with the real git CLI so a test can prove that a
// failed command left everything exactly as it was.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { main as applyPatchMain } from '../../src/cli/apply_patch.js';
import { main as patchtxMain } from '../../src/cli/patchtx.js';
import { gitEnv, repoRoot } from '../helpers/repos.js';

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

const scratch: string[] = [];

export function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'patchtx-cli-'));
  scratch.push(d);
  return d;
}

export function cleanupScratch(): void {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes `text` to a new patch file and returns its path. */
export function patchFile(text: string): string {
  const f = path.join(tempDir(), 'change.patch');
  writeFileSync(f, text);
  return f;
}

/** A V4A patch from its hunk lines. */
export function v4a(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
}

/** The git CLI with no optional locks, so `git status` never rewrites the index behind our back. */
export function g(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...gitEnv, GIT_OPTIONAL_LOCKS: '0' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function gTry(cwd: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, env: { ...gitEnv, GIT_OPTIONAL_LOCKS: '0' }, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export const rev = (cwd: string, what = 'HEAD'): string => g(cwd, 'rev-parse', '--verify', '-q', what).trim();

/** `git rev-list --count` of a revision. */
export const commitCount = (cwd: string, what = 'HEAD'): number => Number(g(cwd, 'rev-list', '--count', what).trim());

/** The git dir of a checkout (or the bare repository itself). */
export const gitDirOf = (cwd: string): string => path.resolve(cwd, g(cwd, 'rev-parse', '--git-dir').trim());
export const commonDirOf = (cwd: string): string => path.resolve(cwd, g(cwd, 'rev-parse', '--git-common-dir').trim());

/** Every file below `dir` (not .git): type, mode and content hash. */
export function worktreeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel))) {
      if (rel === '' && name === '.git') continue;
      const r = rel === '' ? name : `${rel}/${name}`;
      const abs = path.join(dir, r);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[r + '/'] = 'dir';
        walk(r);
      } else if (!st.isFile()) out[r] = st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : 'device'; // never opened: a FIFO would block
      else out[r] = `file ${(st.mode & 0o111) !== 0 ? 'x' : '-'} ${createHash('sha1').update(readFileSync(abs)).digest('hex')}`;
    }
  };
  walk('');
  return out;
}

export interface Snapshot {
  head: string;
  symbolicHead: string;
  refs: string;
  status: string;
  index: string | null;
  files: Record<string, string> | null;
  objects: string;
  reflog: string;
}

const fileHash = (f: string): string | null => (existsSync(f) ? createHash('sha1').update(readFileSync(f)).digest('hex') : null);

/** Everything a failed command must leave as it was. `dir` is a checkout or a bare repository. */
export function snapshot(dir: string): Snapshot {
  const bare = g(dir, 'rev-parse', '--is-bare-repository').trim() === 'true';
  const gitDir = gitDirOf(dir);
  return {
    head: gTry(dir, 'rev-parse', '--verify', '-q', 'HEAD').stdout.trim(),
    symbolicHead: gTry(dir, 'symbolic-ref', '-q', 'HEAD').stdout.trim(),
    refs: g(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    status: bare ? '' : g(dir, 'status', '--porcelain=v1', '--untracked-files=all', '--ignored'),
    index: bare ? null : fileHash(path.join(gitDir, 'index')),
    files: bare ? null : worktreeFiles(dir),
    objects: g(dir, 'count-objects', '-v'),
    reflog: gTry(dir, 'reflog', '--format=%H %gs').stdout,
  };
}

/** No journal, no lock files left behind. */
export function expectNoLeftovers(dir: string): void {
  const gitDir = gitDirOf(dir);
  const common = commonDirOf(dir);
  expect(existsSync(path.join(gitDir, 'patchtx', 'journal.json'))).toBe(false);
  expect(existsSync(path.join(gitDir, 'index.lock'))).toBe(false);
  expect(existsSync(path.join(gitDir, 'HEAD.lock'))).toBe(false);
  const locks: string[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      const abs = path.join(d, name);
      if (lstatSync(abs).isDirectory()) walk(abs);
      else if (name.endsWith('.lock')) locks.push(abs);
    }
  };
  walk(path.join(common, 'refs'));
  expect(locks).toEqual([]);
  expect(existsSync(path.join(common, 'packed-refs.lock'))).toBe(false);
}

export function expectFsckClean(dir: string): void {
  const r = gTry(dir, 'fsck', '--strict', '--no-progress');
  expect(r.stderr + r.stdout).not.toMatch(/error|fatal|missing|broken|corrupt/i);
  expect(r.status).toBe(0);
}

/** The repository is exactly as `before`, with nothing left behind, and fsck clean. */
export function expectUntouched(dir: string, before: Snapshot): void {
  expect(snapshot(dir)).toEqual(before);
  expectNoLeftovers(dir);
  expectFsckClean(dir);
}

/** Files in a commit, as `git ls-tree -r` prints them: path -> "mode oid". */
export function treeOf(dir: string, commit = 'HEAD'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of g(dir, 'ls-tree', '-r', '-z', commit).split('\0')) {
    if (line === '') continue;
    const m = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(line)!;
    out[m[3]!] = `${m[1]} ${m[2]}`;
  }
  return out;
}

export const show = (dir: string, spec: string): string => g(dir, 'show', spec);

export const distDir = path.join(repoRoot, 'dist');

/** Runs a built binary (dist/NAME.cjs) with node. */
export function runBin(
  name: 'patchtx' | 'apply_patch',
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): RunResult {
  const r = spawnSync(process.execPath, [path.join(distDir, `${name}.cjs`), ...args], {
    cwd: opts.cwd ?? repoRoot,
    input: opts.input ?? '',
    env: opts.env ?? { ...gitEnv, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const abs = path.join(dir, name);
    const st = lstatSync(abs);
    newest = Math.max(newest, st.isDirectory() ? newestSource(abs) : st.mtimeMs);
  }
  return newest;
}

/**
 * Runs scripts/build.mjs when dist/ is missing or older than src/. `npm test` builds first, so in a
 * full run nothing is rebuilt while other test files may be running the bundle.
 */
export function buildDist(): void {
  const built = ['patchtx', 'apply_patch'].map((n) => path.join(distDir, `${n}.cjs`));
  const oldest = Math.min(...built.map((f) => (existsSync(f) ? lstatSync(f).mtimeMs : 0)));
  if (oldest > newestSource(path.join(repoRoot, 'src'))) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs')], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** No user or system git config and no identity from the environment: tests see only the repository's config. */
export function isolateGitEnv(): void {
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  for (const k of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE', 'EMAIL', 'GIT_DIR', 'GIT_WORK_TREE', 'NO_COLOR', 'FORCE_COLOR']) {
    delete process.env[k];
  }
}

/** Runs `fn` with some environment variables set (undefined: unset), restoring them afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The patch most tests start from: an update, an add and an update of the executable script. */
export const BASIC_PATCH = v4a(
  '*** Update File: src/math.js',
  '@@',
  ' export function add(a, b) {',
  '-  return a + b;',
  '+  return a + b; // sum',
  ' }',
  '*** Add File: src/new.js',
  '+export const x = 1;',
  '*** Update File: bin/run.sh',
  '@@',
  '-echo hello',
  '+echo hi',
);

export const BASIC_SUMMARY = 'Success. Updated the following files:\nA src/new.js\nM src/math.js\nM bin/run.sh\n';
