// `apply_patch`, the Codex drop-in, in-process: a transaction inside a git repository, an
// all-or-nothing write outside one, Codex's texts and exit codes.
import { mkdirSync, readFileSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, patchtx } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, makeRepo, rev, treeOf } from '../helpers/repos.js';
import { BASIC_PATCH, BASIC_SUMMARY, cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot, worktreeFiles } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

describe('inside a git repository', () => {
  it('one commit, Codex success text, exit 0', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await applyPatch(dir, BASIC_PATCH);
    expect(r).toEqual({ code: 0, out: BASIC_SUMMARY, err: '' });
    expect(commitCount(dir)).toBe(3);
    expect(rev(dir, 'HEAD~1')).toBe(base);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Apply patch: update src/math.js, add src/new.js (+1 more)');
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'notes', '--ref=patchtx', 'show', 'HEAD')).toBe(BASIC_PATCH);
    expect((await patchtx('log', '--repo', dir)).out).toContain('Apply patch: update src/math.js');
    expectFsckClean(dir);
  });

  it('--preserve-crlf is accepted (line endings are always preserved)', async () => {
    const dir = makeRepo('basic');
    const r = await applyPatch(dir, '--preserve-crlf', v4a('*** Update File: docs/crlf.txt', '@@', '-line two', '+line 2'));
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'docs/crlf.txt'), 'utf8')).toBe('line one\r\nline 2\r\nline three\r\n');
  });

  it('uncommitted changes in touched files are taken into the commit, as Codex would edit the file on disk', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nedited by hand\n');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'other edit, untouched by the patch\n');
    const r = await applyPatch(dir, v4a('*** Update File: README.md', '@@', '-# Sample', '+# Title'));
    expect(r).toEqual({ code: 0, out: 'Success. Updated the following files:\nM README.md\n', err: '' });
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Title\n\nedited by hand\n');
    expect(git(dir, 'status', '--porcelain')).toBe(' M docs/notes.txt\n');
  });

  it('from a subdirectory: paths are relative to the current directory, as in Codex', async () => {
    const dir = makeRepo('basic');
    const r = await applyPatch(
      path.join(dir, 'src'),
      v4a(
        '*** Update File: math.js',
        '@@',
        '-  return a + b;',
        '+  return b + a;',
        '*** Add File: util/more.js',
        '+more',
        '*** Update File: util/name.js',
        '*** Move to: util/renamed.js',
      ),
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nA util/more.js\nM math.js\nM util/renamed.js\n');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toContain('return b + a;');
    expect(git(dir, 'show', 'HEAD:src/util/more.js')).toBe('more\n');
    expect(git(dir, 'show', 'HEAD:src/util/renamed.js')).toBe('export const name = "util";\n');
    expect(existsSync(path.join(dir, 'math.js'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // the note holds the patch re-rooted at the repository, so a replay from the top works
    const shown = (await patchtx('show', '--repo', dir, 'HEAD')).out;
    expect(shown).toContain('*** Update File: src/math.js');
    expect(shown).toContain('*** Move to: src/util/renamed.js');
    const tree = treeOf(dir);
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    const replay = await patchtx('apply', '--repo', dir, patchFile(shown));
    expect(replay.code).toBe(0);
    expect(treeOf(dir)).toEqual(tree);
  });

  it('`cd DIR && apply_patch <<EOF` wrappers apply in DIR', async () => {
    const dir = makeRepo('basic');
    const text = `cd src/util && apply_patch <<'EOF'\n${v4a('*** Update File: name.js', '@@', '-export const name = "util";', '+export const name = "utility";')}EOF\n`;
    const r = await applyPatch(dir, text);
    expect(r.code).toBe(0);
    expect(git(dir, 'show', 'HEAD:src/util/name.js')).toBe('export const name = "utility";\n');
    // a wrapper that leaves the repository is refused
    const before = snapshot(dir);
    const escape = await applyPatch(dir, `cd .. && apply_patch <<'EOF'\n${v4a('*** Add File: x.txt', '+x')}EOF\n`);
    expect(escape.code).toBe(1);
    expect(escape.err).toMatch(/outside the repository/);
    const intoGit = await applyPatch(dir, `cd .git && apply_patch <<'EOF'\n${v4a('*** Add File: x.txt', '+x')}EOF\n`);
    expect(intoGit.code).toBe(1);
    expectUntouched(dir, before);
  });

  it('context mismatch: the Codex error text on stderr, exit 1, nothing changed', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await applyPatch(dir, v4a('*** Update File: src/math.js', '@@', '-  return a * b;', '+  return 0;'));
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.startsWith('Failed to find expected lines in src/math.js:\n  return a * b;\n')).toBe(true);
    expectUntouched(dir, before);
  });

  it('parse errors and rejected paths: exit 1 with the message, nothing changed', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const parse = await applyPatch(dir, 'not a patch');
    expect(parse).toEqual({ code: 1, out: '', err: "Invalid patch: The first line of the patch must be '*** Begin Patch'\n" });
    const bad = await applyPatch(dir, v4a('*** Add File: .git/hooks/post-checkout', '+#!/bin/sh'));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/\.git/);
    const link = await applyPatch(dir, v4a('*** Add File: docs/src-link/x', '+x'));
    expect(link.code).toBe(1);
    expect(link.err).toMatch(/symbolic link/);
    expectUntouched(dir, before);
  });

  it('a later hunk that fails leaves the earlier ones unapplied', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await applyPatch(
      dir,
      v4a('*** Add File: created.txt', '+x', '*** Delete File: docs/notes.txt', '*** Update File: README.md', '@@', '-missing', '+x'),
    );
    expect(r.code).toBe(1);
    expect(existsSync(path.join(dir, 'created.txt'))).toBe(false);
    expectUntouched(dir, before);
  });

  it('usage: more than one argument is exit 2 with the Codex text', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await applyPatch(dir, BASIC_PATCH, 'extra');
    expect(r).toEqual({ code: 2, out: '', err: 'Error: apply_patch accepts exactly one PATCH argument.\n' });
    expectUntouched(dir, before);
  });
});

describe('outside a git repository', () => {
  function plainDir(): string {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(path.join(dir, 'old.txt'), 'old\n');
    writeFileSync(path.join(dir, 'gone.txt'), 'gone\n');
    return dir;
  }

  it('writes the files (add, update, delete, move) and prints the Codex summary', async () => {
    const dir = plainDir();
    const r = await applyPatch(
      dir,
      v4a(
        '*** Add File: new/deep/file.txt',
        '+hello',
        '*** Update File: src/a.txt',
        '@@',
        ' one',
        '-two',
        '+2',
        '*** Delete File: gone.txt',
        '*** Update File: old.txt',
        '*** Move to: moved/old.txt',
        '@@',
        '-old',
        '+new',
      ),
    );
    expect(r).toEqual({ code: 0, out: 'Success. Updated the following files:\nA new/deep/file.txt\nM src/a.txt\nM moved/old.txt\nD gone.txt\n', err: '' });
    expect(readFileSync(path.join(dir, 'new/deep/file.txt'), 'utf8')).toBe('hello\n');
    expect(readFileSync(path.join(dir, 'src/a.txt'), 'utf8')).toBe('one\n2\nthree\n');
    expect(readFileSync(path.join(dir, 'moved/old.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(path.join(dir, 'old.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'gone.txt'))).toBe(false);
    expect(existsSync(path.join(dir, '.git'))).toBe(false);
    // no temporary files left behind
    expect(Object.keys(worktreeFiles(dir)).filter((p) => p.includes('.tmp'))).toEqual([]);
  });

  it('nothing is written at all when a later hunk fails', async () => {
    const dir = plainDir();
    const before = worktreeFiles(dir);
    const r = await applyPatch(
      dir,
      v4a(
        '*** Add File: created.txt',
        '+x',
        '*** Delete File: gone.txt',
        '*** Update File: src/a.txt',
        '@@',
        '-two',
        '+2',
        '*** Update File: src/a.txt',
        '@@',
        '-no such line',
        '+x',
      ),
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.startsWith('Failed to find expected lines in src/a.txt:\nno such line\n')).toBe(true);
    expect(worktreeFiles(dir)).toEqual(before);
  });

  it('missing file to update, Codex message, exit 1, nothing written', async () => {
    const dir = plainDir();
    const before = worktreeFiles(dir);
    const r = await applyPatch(dir, v4a('*** Add File: a.txt', '+a', '*** Update File: nope.txt', '@@', '-a', '+b'));
    expect(r.code).toBe(1);
    expect(r.err).toBe('Failed to read file to update nope.txt: No such file or directory\n');
    expect(worktreeFiles(dir)).toEqual(before);
  });

  it('never writes through a symlink', async () => {
    const dir = plainDir();
    const target = tempDir();
    symlinkSync(target, path.join(dir, 'link'));
    const before = worktreeFiles(dir);
    const r = await applyPatch(dir, v4a('*** Add File: link/x.txt', '+x'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/symbolic link/);
    expect(worktreeFiles(dir)).toEqual(before);
    expect(worktreeFiles(target)).toEqual({});
  });

  it('usage: two arguments, exit 2', async () => {
    const dir = plainDir();
    expect(await applyPatch(dir, 'a', 'b')).toEqual({ code: 2, out: '', err: 'Error: apply_patch accepts exactly one PATCH argument.\n' });
  });
});

describe('warnings', () => {
  it('an ambiguous match is applied at the first place, with the warning on stderr (in a repository and outside one)', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'dup.txt'), 'a\nx\nb\nx\nc\n');
    git(dir, 'add', 'dup.txt');
    git(dir, 'commit', '-q', '-m', 'dup');
    const patch = v4a('*** Update File: dup.txt', '@@', '-x', '+y');
    const r = await applyPatch(dir, patch);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM dup.txt\n');
    expect(r.err).toBe('warning: dup.txt: chunk 1 (patch line 3) is ambiguous: its lines match at line 2 and also at line 4; the first match was used\n');
    expect(git(dir, 'show', 'HEAD:dup.txt')).toBe('a\ny\nb\nx\nc\n');
    const plain = tempDir();
    writeFileSync(path.join(plain, 'dup.txt'), 'a\nx\nb\nx\nc\n');
    const p = await applyPatch(plain, patch);
    expect(p.code).toBe(0);
    expect(p.err).toBe(r.err);
  });
});

describe('paths as an agent gives them', () => {
  it('from a subdirectory: ../ paths that stay inside the repository and absolute paths inside it are applied', async () => {
    const dir = makeRepo('basic');
    const r = await applyPatch(
      path.join(dir, 'src'),
      v4a(
        '*** Update File: ../docs/notes.txt',
        '@@',
        '-notes',
        '+notes, edited',
        `*** Update File: ${path.join(dir, 'README.md')}`,
        '@@',
        '-# Sample',
        '+# Sample A',
        `*** Add File: ${path.join(dir, 'src/abs.js')}`,
        '+abs',
        '*** Update File: ./util/../math.js',
        '@@',
        '-  return a + b;',
        '+  return b + a;',
      ),
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nA abs.js\nM ../docs/notes.txt\nM ../README.md\nM math.js\n');
    expect(git(dir, 'show', 'HEAD:docs/notes.txt')).toBe('notes, edited\n');
    expect(git(dir, 'show', 'HEAD:README.md')).toMatch(/^# Sample A\n/);
    expect(git(dir, 'show', 'HEAD:src/abs.js')).toBe('abs\n');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toContain('return b + a;');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // the note holds the paths from the repository root, so it replays from anywhere
    const shown = (await patchtx('show', '--repo', dir, 'HEAD')).out;
    expect(shown).toContain('*** Update File: docs/notes.txt\n');
    expect(shown).toContain('*** Update File: README.md\n');
    expectFsckClean(dir);
  });

  it('what leaves the repository, reaches into .git or passes a symlink is still refused; nothing changes', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const outside = tempDir();
    for (const [p, why] of [
      ['../../escape.txt', /outside the repository/],
      [path.join(outside, 'x.txt'), /outside the repository/],
      ['../.git/hooks/pre-commit', /\.git/],
      ['../docs/src-link/x.js', /symbolic link/],
    ] as const) {
      const r = await applyPatch(path.join(dir, 'src'), v4a(`*** Add File: ${p}`, '+x'));
      expect(r.code, p).toBe(1);
      expect(r.err).toMatch(why);
    }
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
    expectUntouched(dir, before);
  });

  it('outside a repository: ../ and absolute paths inside the current directory, nothing beyond it', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'a.txt'), 'a\n');
    const r = await applyPatch(root, v4a('*** Update File: sub/../sub/a.txt', '@@', '-a', '+b', `*** Add File: ${path.join(root, 'c.txt')}`, '+c'));
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(path.join(root, 'sub/a.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
    const out = await applyPatch(path.join(root, 'sub'), v4a('*** Add File: ../d.txt', '+d'));
    expect(out.code).toBe(1);
    expect(out.err).toMatch(/outside the repository|outside/);
    expect(existsSync(path.join(root, 'd.txt'))).toBe(false);
  });
});
