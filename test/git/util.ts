// Shared bits of the git layer tests: open a fixture as a Repository + ObjectStore, and run git
// with data on stdin.
import { openRepository } from '../../src/git/repo/discover.js';
import { ObjectStore } from '../../src/git/objects/store.js';
import type { Repository } from '../../src/git/repo/repository.js';
import { gitWith, makeRepo, type FixtureKind } from '../helpers/repos.js';

/** `git ARGS` with `input` on stdin; returns stdout. */
export const gitInput = (cwd: string, input: string | Buffer, ...args: string[]): string => gitWith(cwd, { input }, ...args);

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
