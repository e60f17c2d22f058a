// `patchtx replay` of plain patch files, given one by one or as a directory (sorted by name), and
// `--ref`/`--base` to replay onto another branch than the checked-out one. Results read back with git.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

function repoWith(files: Record<string, string>): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Replay Tester');
  git(dir, 'config', 'user.email', 'replay@tests.invalid');
  for (const [p, text] of Object.entries(files)) writeFileSync(path.join(dir, p), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

/** A directory holding `files` (name -> text). */
function patchDir(files: Record<string, string>): string {
  const dir = path.join(tempDir(), 'series');
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const series = {
  '10-third.patch': v4a('*** Update File: a.txt', '@@', '-a two', '+a three'),
  '01-first.patch': v4a('*** Add File: b.txt', '+bee'),
  '02-second.patch': v4a('*** Update File: a.txt', '@@', '-a one', '+a two'),
};

const subjectsAfter = (dir: string, base: string, ref = 'HEAD'): string[] =>
  git(dir, 'log', '--reverse', '--format=%(trailers:key=Call-Id,valueonly)', `${base}..${ref}`)
    .split('\n')
    .filter((l) => l.trim() !== '');

describe('replay of plain patch files', () => {
  it('applies the files given, in order, one commit each, and a second run writes nothing', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n' });
    const base = rev(dir);
    const p = patchDir(series);
    const r = await patchtx('replay', '--repo', dir, path.join(p, '01-first.patch'), path.join(p, '02-second.patch'));
    expect(r.code, r.err).toBe(0);
    expect(subjectsAfter(dir, base)).toEqual(['01-first.patch#1', '02-second.patch#1']);
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Replayed-From,valueonly)').trim()).toBe('02-second.patch');
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('a two\n');
    const head = rev(dir);
    const again = await patchtxJson('replay', '--repo', dir, path.join(p, '01-first.patch'), path.join(p, '02-second.patch'));
    expect(again.json).toMatchObject({ applied: 0, skipped: 2 });
    expect(rev(dir)).toBe(head);
  });

  it('takes a directory as its files sorted by name, hidden ones left out', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n' });
    const base = rev(dir);
    const p = patchDir({ ...series, '.notes': 'not a patch' });
    const r = await patchtx('replay', '--repo', dir, p);
    expect(r.code, r.err).toBe(0);
    expect(subjectsAfter(dir, base)).toEqual(['01-first.patch#1', '02-second.patch#1', '10-third.patch#1']);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('a three\n');
    expectFsckClean(dir);
  });

  it('names a file of the directory that is no patch, before anything is applied', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n' });
    const before = snapshot(dir);
    const p = patchDir({ ...series, '05-readme.md': 'Apply these in order.\n' });
    const r = await patchtx('replay', '--repo', dir, p);
    expect(r.code).toBe(3);
    expect(r.err).toContain('05-readme.md');
    expectUntouched(dir, before);
    const empty = path.join(tempDir(), 'empty');
    mkdirSync(empty);
    expect((await patchtx('replay', '--repo', dir, empty)).code).toBe(2);
  });
});

describe('replay --ref', () => {
  it('--ref with --base starts a new branch and replays onto it, leaving the checked-out branch and files alone', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n' });
    const base = rev(dir);
    const p = patchDir(series);
    const r = await patchtx('replay', '--repo', dir, '--ref', 'replayed', '--base', 'main', p);
    expect(r.code, r.err).toBe(0);
    expect(subjectsAfter(dir, base, 'replayed')).toEqual(['01-first.patch#1', '02-second.patch#1', '10-third.patch#1']);
    expect(git(dir, 'rev-list', '--first-parent', '--count', `${base}..replayed`).trim()).toBe('3');
    expect(git(dir, 'show', 'replayed:a.txt')).toBe('a three\n');
    expect(rev(dir, 'main')).toBe(base);
    expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a one\n');
    // again, onto the branch that now exists: nothing to do
    const tip = rev(dir, 'replayed');
    const again = await patchtxJson('replay', '--repo', dir, '--ref', 'replayed', p);
    expect(again.json).toMatchObject({ applied: 0, skipped: 3 });
    expect(rev(dir, 'replayed')).toBe(tip);
    expectFsckClean(dir);
  });

  it('--ref without --base names a branch that must exist', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n' });
    const r = await patchtx('replay', '--repo', dir, '--ref', 'nowhere', patchDir(series));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nowhere/);
  });
});
