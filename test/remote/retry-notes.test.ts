// The notes of the commits `apply --push --retry` abandons: the patches are applied again onto the
// remote's new tip as new commits, and the first commits, which the server never gets, must not
// keep their notes in refs/notes/patchtx (here or, once pushed, on the server), unless another
// ref still reaches them. Checked with git itself: every note's commit is on a ref, and every
// commit of the server's branch has its note.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { patchtxJson, runCli } from '../helpers/cli.js';
import { addLine, anotherBotPushes, seededRemote, type SharedRemote, useHttpHost } from '../helpers/remote.js';
import { git } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const host = useHttpHost();
let setup: SharedRemote;

beforeEach(async () => {
  setup = await seededRemote(host());
});

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

/** The commits `git notes --ref patchtx` has a note for. */
const annotated = (dir: string): string[] => lines(git(dir, 'notes', '--ref', 'patchtx', 'list')).map((l) => l.split(' ')[1]!);

/** The notes of commits no ref (other than the notes ref) reaches. */
function orphanNotes(dir: string): string[] {
  const reachable = new Set(lines(git(dir, 'rev-list', '--branches', '--tags', '--remotes')));
  return annotated(dir).filter((c) => !reachable.has(c));
}

it('a retry drops the notes of the commits it abandons, here and on the server, and every pushed commit has its note', async () => {
  await anotherBotPushes(setup.url);
  const first = patchFile(v4a('*** Update File: a.txt', '@@', ' one', '+two'));
  const second = patchFile(v4a('*** Add File: c.txt', '+three'));
  const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '2', first, second);
  expect(r.code, r.out + r.err).toBe(0);
  expect(r.json.retries).toBe(1);
  const abandoned = [r.lines[0].commit, r.lines[1].commit];
  expect(r.json.reapplied).not.toContain(abandoned[0]);
  // the abandoned commits are still objects here: git's prune does not see their notes, a walk does
  expect(orphanNotes(setup.clone)).toEqual([]);
  for (const c of abandoned) expect(annotated(setup.clone)).not.toContain(c);
  // on the server, they never came: prune would list their notes
  expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'prune', '-n', '-v')).toBe('');
  expect(orphanNotes(setup.bare)).toEqual([]);
  for (const c of r.json.reapplied) expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', c)).toContain('*** Begin Patch');
  expectFsckClean(setup.bare);
  expectFsckClean(setup.clone);
});

it('an abandoned commit another branch still reaches keeps its note', async () => {
  await anotherBotPushes(setup.url);
  const release = path.join(tempDir(), 'go');
  // the first apply is held once its commit and note are written; a branch is made on it then
  const held = runCli(['apply', '--repo', setup.clone, '--push', '--retry', '2', '--json', addLine('two')], {
    env: { PATCHTX_TEST_PAUSE_AT: 'after-note', PATCHTX_TEST_PAUSE_UNTIL: release },
  });
  await waitFor(() => existsSync(`${release}.held`), 'the first apply wrote its note');
  git(setup.clone, 'branch', 'keep', 'main');
  const kept = git(setup.clone, 'rev-parse', 'keep').trim();
  writeFileSync(release, '');
  const r = await held;
  expect(r.status, r.stderr + r.stdout).toBe(0);
  const out = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { retries?: number; reapplied?: string[] });
  expect(out.at(-1)!.retries).toBe(1);
  expect(out.at(-1)!.reapplied).not.toContain(kept);
  expect(annotated(setup.clone)).toContain(kept);
  expect(git(setup.clone, 'notes', '--ref', 'patchtx', 'show', kept)).toContain('*** Begin Patch');
  expect(orphanNotes(setup.clone)).toEqual([]);
  expectFsckClean(setup.clone);
});

it.each([
  ['a linked worktree', (clone: string, c: string) => git(clone, 'worktree', 'add', '-q', '--detach', path.join(tempDir(), 'wt'), c)],
  ['the main worktree, seen from a linked one', null],
])('an abandoned commit that %s holds as its detached HEAD keeps its note', async (_where, hold) => {
  await anotherBotPushes(setup.url);
  // from a linked worktree, the detached HEAD that holds the commit is the main worktree's
  const fromLinked = hold === null;
  const repo = fromLinked ? path.join(tempDir(), 'linked') : setup.clone;
  if (fromLinked) {
    // main is checked out there, and the main worktree is detached (where it is left to hold the commit)
    git(setup.clone, 'checkout', '-q', '--detach');
    git(setup.clone, 'worktree', 'add', '-q', repo, 'main');
  }
  const release = path.join(tempDir(), 'go');
  const held = runCli(['apply', '--repo', repo, '--push=origin', '--retry', '2', '--json', addLine('two')], {
    env: { PATCHTX_TEST_PAUSE_AT: 'after-note', PATCHTX_TEST_PAUSE_UNTIL: release },
  });
  await waitFor(() => existsSync(`${release}.held`), 'the first apply wrote its note');
  const kept = git(repo, 'rev-parse', 'HEAD').trim();
  if (hold) hold(setup.clone, kept);
  else git(setup.clone, 'checkout', '-q', '--detach', kept);
  writeFileSync(release, '');
  const r = await held;
  expect(r.status, r.stderr + r.stdout).toBe(0);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { retries?: number; reapplied?: string[] };
  expect(out.retries).toBe(1);
  expect(out.reapplied).not.toContain(kept);
  // git itself counts the other worktree's HEAD as holding the commit (gc keeps it)
  expect(git(setup.clone, 'worktree', 'list', '--porcelain')).toContain(`HEAD ${kept}`);
  expect(git(setup.clone, 'notes', '--ref', 'patchtx', 'show', kept)).toContain('*** Begin Patch');
  expectFsckClean(setup.clone);
});

it('an attempt that stops half-way drops the notes of the commits it made, and the branch keeps its own', async () => {
  // the other bot rewrites a.txt: the second patch no longer applies on the new tip, the first does
  await anotherBotPushes(setup.url, { 'a.txt': 'uno\n' });
  const first = patchFile(v4a('*** Add File: c.txt', '+three'));
  const second = addLine('two');
  const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '2', first, second);
  expect(r.code, r.out + r.err).toBe(1);
  expect(r.lines.at(-1).error.kind).toBe('context_not_found');
  const mine = [r.lines[0].commit, r.lines[1].commit];
  expect(git(setup.clone, 'rev-parse', 'main').trim()).toBe(mine[1]);
  // the half-way attempt's commit (the first patch on the other bot's tip) is on no ref: no note
  expect(orphanNotes(setup.clone)).toEqual([]);
  expect(annotated(setup.clone).sort()).toEqual([...mine].sort());
  expectFsckClean(setup.clone);
});
