// The export of a transaction of several steps (repo.begin() with V4A steps, with V4A steps and
// edit operations, applyResponseItems' one commit for a response's calls, a replay's one commit
// for a response's calls) replayed with its metadata into a clone at its parent: the very same
// commit, checked with git (rev-parse, notes, fsck). A commit whose note was made from its result
// keeps its recorded Patch-Id where the replay makes the recorded tree, and is refused elsewhere,
// naming why.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { applyResponseItems } from '../../src/openai/index.js';
import { patchtx } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { git, rev } from '../helpers/repos.js';
import { logFixture, repoWith } from '../helpers/replay.js';
import { cleanupScratch, isolateGitEnv, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const FILES = { 'app.txt': 'alpha\nbeta\ngamma\n', 'notes.txt': 'one\ntwo\nthree\n' };
const ADD_TODO = v4a('*** Add File: todo.txt', '+first', '+second');
const EDIT_TODO = v4a('*** Update File: todo.txt', '@@', ' first', '-second', '+second, edited', '+third');
const EDIT_APP = v4a('*** Update File: app.txt', '@@', ' alpha', '-beta', '+BETA', ' gamma');

/** The export records of the commits after `base` in `dir`. */
async function exported(dir: string, base: string): Promise<Record<string, unknown>[]> {
  const r = await patchtx('export', '--repo', dir, `${base}..HEAD`);
  expect(r.code, r.err).toBe(0);
  return r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A clone of `dir` whose branch is at `at`. */
function cloneAt(dir: string, at: string): string {
  const clone = tempDir();
  git(clone, 'clone', '-q', dir, '.');
  git(clone, 'reset', '-q', '--hard', at);
  return clone;
}

/** Exports what `dir` made after `base`, replays it with its metadata in a clone at `base`: the same commits. */
async function expectSameCommitsReplayed(dir: string, base: string): Promise<void> {
  const records = await exported(dir, base);
  expect(records.length).toBeGreaterThan(0);
  const clone = cloneAt(dir, base);
  const r = await (await openRepository({ dir: clone })).replay(records, { keepMetadata: true });
  expect(r.applied).toBe(records.length);
  expect(rev(clone)).toBe(rev(dir));
  expect(git(clone, 'status', '--porcelain')).toBe('');
  // the note comes along as it was: an export of the clone is the same export
  expect(git(clone, 'notes', '--ref=patchtx', 'show', 'HEAD')).toBe(git(dir, 'notes', '--ref=patchtx', 'show', 'HEAD'));
  expectFsckClean(clone);
}

describe('replay --keep-metadata of a transaction of several steps', () => {
  it('begin() with V4A steps only (one adds a file the next updates) comes back as the same commit', async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(ADD_TODO);
    await tx.apply(EDIT_TODO);
    await tx.apply(EDIT_APP);
    await tx.commit({ message: 'Three V4A steps' });
    await expectSameCommitsReplayed(dir, base);
  });

  it('begin() with V4A steps and edit operations comes back as the same commit', async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_APP);
    await tx.edit([
      { op: 'str_replace', path: 'notes.txt', old: 'two\n', new: 'TWO\n' },
      { op: 'insert', path: 'app.txt', line: 1, text: 'inserted' },
    ]);
    await tx.apply(v4a('*** Update File: notes.txt', '@@', ' TWO', '-three', '+THREE'));
    await tx.commit({ message: 'Mixed steps', trailers: ['Ticket=T-7'] });
    await expectSameCommitsReplayed(dir, base);
  });

  it('one edit operation step (repo.edit) comes back as the same commit', async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    await (await openRepository({ dir })).edit({ op: 'str_replace', path: 'app.txt', old: 'gamma', new: 'GAMMA' });
    await expectSameCommitsReplayed(dir, base);
  });

  it("applyResponseItems' one commit for two calls (the Agents SDK's rules) comes back as the same commit", async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    const call = (call_id: string, operation: Record<string, unknown>) => ({ type: 'apply_patch_call', call_id, status: 'completed', operation });
    const outputs = await applyResponseItems(await openRepository({ dir }), [
      call('call_add', { type: 'create_file', path: 'todo.txt', diff: '+first\n+second\n' }),
      call('call_edit', { type: 'update_file', path: 'app.txt', diff: '@@\n alpha\n-beta\n+BETA\n' }),
    ]);
    expect(outputs.map((o) => o.status)).toEqual(['completed', 'completed']);
    expect(rev(dir, 'HEAD~1')).toBe(base);
    await expectSameCommitsReplayed(dir, base);
    // without the metadata, the same tree: the note is applied under the rules it was made with
    const clone = cloneAt(dir, base);
    git(clone, 'config', 'user.name', 'Replayer');
    git(clone, 'config', 'user.email', 'replayer@tests.invalid');
    const r = await (await openRepository({ dir: clone })).replay(await exported(dir, base), {});
    expect(r.applied).toBe(1);
    expect(rev(clone, 'HEAD^{tree}')).toBe(rev(dir, 'HEAD^{tree}'));
    expect(git(clone, 'show', 'HEAD:todo.txt')).toBe('first\nsecond');
  });

  it("a replay's one commit for a response's two calls (the second moves the file the first made) comes back as the same commit", async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    const items = JSON.parse(readFileSync(logFixture('replay-responses.json'), 'utf8')) as unknown[];
    const r = await (await openRepository({ dir })).replay(items, { name: 'items.json' });
    expect(r.applied).toBe(2);
    expect(rev(dir, 'HEAD~1')).toBe(base);
    await expectSameCommitsReplayed(dir, base);
  });

  it('a note made from the result replayed onto another tree is refused with replay_mismatch, writing nothing', async () => {
    const dir = repoWith(FILES);
    const base = rev(dir);
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_APP);
    await tx.edit({ op: 'str_replace', path: 'notes.txt', old: 'two\n', new: 'TWO\n' });
    await tx.commit();
    const records = await exported(dir, base);
    const clone = cloneAt(dir, base);
    // another parent, whose tree has a file the transaction does not touch
    writeFileSync(path.join(clone, 'other.txt'), 'other\n');
    git(clone, 'add', 'other.txt');
    git(clone, 'commit', '-q', '-m', 'another tree');
    const before = rev(clone);
    const e = await rejection((async () => (await openRepository({ dir: clone })).replay(records, { keepMetadata: true }))());
    expect(e).toMatchObject({ kind: 'replay_mismatch', data: { reason: 'patch_id' } });
    expect(String((e as Error).message)).toMatch(/made from the result/);
    expect(rev(clone)).toBe(before);
  });
});
