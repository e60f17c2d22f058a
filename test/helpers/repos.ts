// Test repositories are real git repositories built by fixtures-repos/build.sh with the git CLI,
// each in its own temporary directory; `git()` runs the real git CLI against them.
import { execFileSync, spawnSync } from 'node:child_process';
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

/** Runs the git CLI; throws with stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the git CLI and returns status and output without throwing. */
export function gitTry(cwd: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
