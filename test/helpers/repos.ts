// Test repositories are real git repositories built by fixtures-repos/build.sh with the git CLI,
// each in its own temporary directory; `git()` (and its variants with input, without throwing, or
// asynchronous) runs the real git CLI against them, the one way tests ask git anything.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const scenariosDir = path.resolve(repoRoot, '../shared/conformance/codex/scenarios');
/**
 * The Codex scenario suite lives beside the project (CI always has it); a user's clone does not,
 * and the tests that read it are then skipped, with a skipped test saying so.
 */
export const hasScenarios = existsSync(scenariosDir);
export const SCENARIOS_ABSENT = 'the Codex scenario suite (../shared/conformance/codex/scenarios) is absent: its scenarios were not run';

/** git with no user or system config, a fixed identity and clock: results are reproducible */
export const gitEnv: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture Author',
  GIT_AUTHOR_EMAIL: 'author@fixtures.invalid',
  GIT_COMMITTER_NAME: 'Fixture Committer',
  GIT_COMMITTER_EMAIL: 'committer@fixtures.invalid',
};

export type FixtureKind = 'basic' | 'packed' | 'bare' | 'worktree' | 'empty' | 'fromdir';

const made: string[] = [];

/** Builds a fixture repository in a fresh temp dir and returns its path (the worktree kind's linked
 * worktree is at `${path}-wt`). */
export function makeRepo(kind: FixtureKind, opts: { source?: string } = {}): string {
  const parent = mkdtempSync(path.join(tmpdir(), 'patchtx-test-'));
  made.push(parent);
  const dest = path.join(parent, 'repo');
  execFileSync(path.join(repoRoot, 'fixtures-repos/build.sh'), [kind, dest], {
    env: { ...gitEnv, FIXTURE_SOURCE: opts.source ?? '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return dest;
}

/** Removes every repository made by this test file (call from afterAll). */
export function cleanupRepos(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Options of one git run: extra environment (over gitEnv) and data on stdin. */
export interface GitOptions {
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

/** No optional locks, so a `git status` of a test never rewrites the index behind its back. */
const runEnv = (extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...gitEnv, GIT_OPTIONAL_LOCKS: '0', ...extra });

/** Runs the git CLI with options; throws with stderr on failure, returns stdout. */
export function gitWith(cwd: string, opts: GitOptions, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: runEnv(opts.env),
    input: opts.input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Runs the git CLI; throws with stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  return gitWith(cwd, {}, ...args);
}

/** Runs the git CLI and returns status and output without throwing. */
export function gitTry(cwd: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, env: runEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The git CLI, asynchronously (so that concurrent trials and kill timers are not held up):
 * status and output, never throwing for a non-zero exit. */
export function gitAsync(cwd: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: runEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
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

export const rev = (cwd: string, what = 'HEAD'): string => git(cwd, 'rev-parse', '--verify', '-q', what).trim();

/** `git rev-list --count` of a revision. */
export const commitCount = (cwd: string, what = 'HEAD'): number => Number(git(cwd, 'rev-list', '--count', what).trim());

/** The git dir of a checkout (or the bare repository itself). */
export const gitDirOf = (cwd: string): string => path.resolve(cwd, git(cwd, 'rev-parse', '--git-dir').trim());
export const commonDirOf = (cwd: string): string => path.resolve(cwd, git(cwd, 'rev-parse', '--git-common-dir').trim());

/** Files in a commit, as `git ls-tree -r` prints them: path -> "mode oid". */
export function treeOf(dir: string, commit = 'HEAD'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of git(dir, 'ls-tree', '-r', '-z', commit).split('\0')) {
    if (line === '') continue;
    const m = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(line)!;
    out[m[3]!] = `${m[1]} ${m[2]}`;
  }
  return out;
}

export const show = (dir: string, spec: string): string => git(dir, 'show', spec);
