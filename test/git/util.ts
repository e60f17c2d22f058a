// Shared bits of the git layer tests: open a fixture as a Repository + ObjectStore, and run git
// with data on stdin (the shared helper's git() has no input).
import { execFileSync } from 'node:child_process';
import { openRepository } from '../../src/git/repo/discover.js';
import { ObjectStore } from '../../src/git/objects/store.js';
import type { Repository } from '../../src/git/repo/repository.js';
import { gitEnv, makeRepo, type FixtureKind } from '../helpers/repos.js';

export function gitInput(cwd: string, input: string | Buffer, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

export interface Fixture {
  /** the directory git commands run in (the linked worktree for the worktree kind) */
  dir: string;
  repo: Repository;
  store: ObjectStore;
}

/** The four repository shapes every store function is checked against. */
export const FIXTURE_KINDS: { kind: FixtureKind; pick: (d: string) => string }[] = [
  { kind: 'basic', pick: (d) => d },
  { kind: 'packed', pick: (d) => d },
  { kind: 'bare', pick: (d) => d },
  { kind: 'worktree', pick: (d) => `${d}-wt` },
];

export async function openFixture(kind: FixtureKind, pick: (d: string) => string = (d) => d): Promise<Fixture> {
  const dir = pick(makeRepo(kind));
  const repo = await openRepository({ cwd: dir, env: {} });
  return { dir, repo, store: new ObjectStore(repo) };
}
