// `patchtx replay` of plain patch files, given one by one or as a directory (sorted by name), and
// `--ref`/`--base` to replay onto another branch than the checked-out one. Results read back with git.
// A long series replayed in one process (its entries share what the repository kept open between
// them) gives the commits that applying its patches one by one, each in a fresh session, gives.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { prng } from '../helpers/schedule.js';
import { cleanupScratch, isolateGitEnv, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';
import { repoWith } from '../helpers/replay.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

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

/**
 * `n` patches, each made on the files as the ones before left them (adds, deletes, moves, updates
 * of one or two lines, now and then of a file an earlier patch made), and the files at the end.
 */
function generatedSeries(n: number, seed: number): { initial: Record<string, string>; patches: string[]; final: Record<string, string> } {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const files = new Map<string, string[]>();
  for (let f = 0; f < 6; f++)
    files.set(
      `src/f${f}.txt`,
      Array.from({ length: 6 }, (_, k) => `f${f} line ${k}`),
    );
  const text = (lines: string[]): string => lines.join('\n') + '\n';
  const initial = Object.fromEntries([...files].map(([p, lines]) => [p, text(lines)]));
  const patches: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    const paths = [...files.keys()];
    if (r < 0.15) {
      const p = `src/added/n${i}.txt`;
      files.set(p, [`n${i} first`, `n${i} second`]);
      patches.push(v4a(`*** Add File: ${p}`, `+n${i} first`, `+n${i} second`));
    } else if (r < 0.25 && paths.length > 4) {
      const p = pick(paths);
      files.delete(p);
      patches.push(v4a(`*** Delete File: ${p}`));
    } else {
      const p = pick(paths);
      const lines = files.get(p)!;
      const hunks: string[] = [];
      // chunks in file order, as V4A wants them
      const at = [...new Set([Math.floor(rand() * lines.length), Math.floor(rand() * lines.length)])].sort((x, y) => x - y);
      for (const k of at) {
        hunks.push('@@', `-${lines[k]}`, `+${lines[k]} v${i}`);
        lines[k] = `${lines[k]} v${i}`;
      }
      const to = r < 0.35 ? `moved/m${i}.txt` : null;
      if (to !== null) {
        files.delete(p);
        files.set(to, lines);
      }
      patches.push(v4a(`*** Update File: ${p}`, ...(to === null ? [] : [`*** Move to: ${to}`]), ...hunks));
    }
  }
  return { initial, patches, final: Object.fromEntries([...files].map(([p, lines]) => [p, text(lines)])) };
}

describe('a long replay', () => {
  it('makes the commits, tree by tree, that applying its patches one by one in fresh sessions makes', async () => {
    const n = 60;
    const { initial, patches, final } = generatedSeries(n, 0x5eed);
    const a = repoWith(initial);
    const base = rev(a);
    const b = path.join(tempDir(), 'one-by-one');
    git(path.dirname(b), 'clone', '-q', a, b);
    git(b, 'config', 'user.name', 'Replay Tester');
    git(b, 'config', 'user.email', 'replay@tests.invalid');

    const p = patchDir(Object.fromEntries(patches.map((text, i) => [`p${String(i + 1).padStart(3, '0')}.patch`, text])));
    const r = await patchtxJson('replay', '--repo', a, p);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ total: n, applied: n, skipped: 0 });
    for (const text of patches) {
      const repo = await openRepository({ dir: b });
      await repo.apply(text);
      repo.close();
    }

    const trees = (dir: string): string[] =>
      git(dir, 'log', '--reverse', '--format=%T', `${base}..HEAD`)
        .split('\n')
        .filter((l) => l !== '');
    expect(trees(a)).toHaveLength(n);
    expect(trees(a)).toEqual(trees(b));
    const files = git(a, 'ls-tree', '-r', '--name-only', '-z', 'HEAD')
      .split('\0')
      .filter((f) => f !== '');
    expect(Object.fromEntries(files.map((f) => [f, git(a, 'show', `HEAD:${f}`)]))).toEqual(final);
    expect(git(a, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expectFsckClean(a);
  });
});
