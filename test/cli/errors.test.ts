// Every way `patchtx apply` and `patchtx check` can refuse, with its exit code and --json shape, and
// the proof that a refusal changed nothing: HEAD, refs, index, working tree, status and the object
// store are as before, no lock or journal is left, and git fsck is clean.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { BASIC_PATCH, cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a, withEnv } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const SUCCESS_KEYS = ['author', 'checked', 'commit', 'committer', 'files', 'message', 'noop', 'ok', 'parent', 'patchId', 'ref', 'tree', 'warnings'];
const ERROR_KEYS = ['candidates', 'chunk', 'kind', 'line', 'message', 'path'];

describe('--json result object', () => {
  it('success: ok, commit, parent, ref, noop, files[{path, op, from}], warnings[]', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(Object.keys(r.json).sort()).toEqual(SUCCESS_KEYS);
    expect(r.json).toEqual({
      ok: true,
      commit: rev(dir),
      parent: base,
      ref: 'refs/heads/main',
      noop: false,
      checked: false,
      patchId: expect.stringMatching(/^[0-9a-f]{40}$/),
      message: expect.stringMatching(/^Apply patch: /),
      tree: rev(dir, 'HEAD^{tree}'),
      author: { name: 'Fixture User', email: 'user@fixtures.invalid', timestamp: expect.any(Number), timezone: expect.stringMatching(/^[+-]\d{4}$/) },
      committer: { name: 'Fixture User', email: 'user@fixtures.invalid', timestamp: expect.any(Number), timezone: expect.stringMatching(/^[+-]\d{4}$/) },
      files: [
        { path: 'src/math.js', op: 'M', from: null },
        { path: 'src/new.js', op: 'A', from: null },
        { path: 'bin/run.sh', op: 'M', from: null },
      ],
      warnings: [],
    });
    expect(r.err).toBe('');
  });

  it('warnings carry kind, message, path and, for ambiguity, chunk, line and candidates', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'dup.txt'), 'a\nx\nb\nx\nc\n');
    git(dir, 'add', 'dup.txt');
    git(dir, 'commit', '-q', '-m', 'dup');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: dup.txt', '@@', '-x', '+y')));
    expect(r.code).toBe(0);
    expect(r.json.warnings).toEqual([
      { kind: 'ambiguous_match', message: expect.stringContaining('ambiguous'), path: 'dup.txt', chunk: 1, line: 3, candidates: [4] },
    ]);
    expect(git(dir, 'show', 'HEAD:dup.txt')).toBe('a\ny\nb\nx\nc\n');
  });

  interface Case {
    name: string;
    patch?: string;
    args?: string[];
    setup?: (dir: string) => void;
    exit: number;
    error: Record<string, unknown>;
    /** expected beginning of the human message on stderr */
    message?: RegExp;
  }

  const cases: Case[] = [
    {
      name: 'parse_error (malformed hunk header)',
      patch: v4a('*** Frobnicate File: x'),
      exit: 3,
      error: { kind: 'parse_error', line: 2, path: null },
      message: /^Invalid patch hunk on line 2: '\*\*\* Frobnicate File: x' is not a valid hunk header/,
    },
    {
      name: 'parse_error (no End Patch)',
      patch: '*** Begin Patch\n*** Add File: x\n+x\n',
      exit: 3,
      error: { kind: 'parse_error' },
      message: /^Invalid patch: The last line of the patch must be '\*\*\* End Patch'/,
    },
    {
      name: 'path_rejected (.git/)',
      patch: v4a('*** Add File: .git/hooks/pre-commit', '+#!/bin/sh'),
      exit: 4,
      error: { kind: 'path_rejected', path: '.git/hooks/pre-commit', line: 2 },
    },
    {
      name: 'path_rejected (../)',
      patch: v4a('*** Add File: ../outside.txt', '+x'),
      exit: 4,
      error: { kind: 'path_rejected', path: '../outside.txt', line: 2 },
    },
    {
      name: 'path_rejected (absolute)',
      patch: v4a('*** Delete File: /etc/passwd'),
      exit: 4,
      error: { kind: 'path_rejected', path: '/etc/passwd' },
    },
    {
      name: 'path_rejected (Move to .git)',
      patch: v4a('*** Update File: README.md', '*** Move to: .git/config'),
      exit: 4,
      error: { kind: 'path_rejected', path: '.git/config' },
    },
    {
      name: 'path_rejected (Update of a symlink)',
      patch: v4a('*** Update File: docs/src-link', '@@', '-../src', '+../bin'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'docs/src-link', reason: 'symlink', line: 2 },
      message: /^docs\/src-link is a symbolic link/,
    },
    {
      name: 'path_rejected (Add below a symlink)',
      patch: v4a('*** Add File: docs/src-link/x.js', '+x'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'docs/src-link/x.js', reason: 'symlink_prefix' },
    },
    {
      name: 'path_rejected (Update through a symlink to an existing file)',
      patch: v4a('*** Update File: docs/src-link/math.js', '@@', '-  return a + b;', '+  return 0;'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'docs/src-link/math.js', reason: 'symlink_prefix' },
    },
    {
      name: 'path_rejected (Move onto a symlink)',
      patch: v4a('*** Update File: docs/notes.txt', '*** Move to: docs/src-link'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'docs/src-link', reason: 'symlink' },
    },
    {
      name: 'path_rejected (gitlink)',
      patch: v4a('*** Delete File: vendor/lib'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'vendor/lib', reason: 'gitlink' },
      message: /^vendor\/lib is a submodule \(gitlink\)/,
    },
    {
      name: 'path_rejected (Add inside a gitlink)',
      patch: v4a('*** Add File: vendor/lib/x.c', '+x'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'vendor/lib/x.c', reason: 'gitlink_prefix' },
    },
    {
      name: 'path_rejected (Add below a file)',
      patch: v4a('*** Add File: README.md/x', '+x'),
      exit: 4,
      error: { kind: 'path_rejected', path: 'README.md/x' },
    },
    {
      name: 'context_not_found',
      patch: v4a('*** Update File: src/math.js', '@@ export function add(a, b) {', '-  return a * b;', '+  return 0;'),
      exit: 1,
      error: { kind: 'context_not_found', path: 'src/math.js', chunk: 1, line: 3 },
      message: /^Failed to find expected lines in src\/math\.js:\n {2}return a \* b;\n/,
    },
    {
      name: 'file_not_found (Update)',
      patch: v4a('*** Update File: nope.js', '@@', '-a', '+b'),
      exit: 1,
      error: { kind: 'file_not_found', path: 'nope.js', line: 2 },
      message: /^Failed to read file to update nope\.js: No such file or directory/,
    },
    {
      name: 'file_not_found (Delete)',
      patch: v4a('*** Delete File: nope.js'),
      exit: 1,
      error: { kind: 'file_not_found', path: 'nope.js' },
    },
    {
      name: 'already_exists (--strict Add over a file)',
      patch: v4a('*** Add File: README.md', '+x'),
      args: ['--strict'],
      exit: 1,
      error: { kind: 'already_exists', path: 'README.md' },
    },
    {
      name: 'ambiguous_match (--strict)',
      setup: (dir) => {
        writeFileSync(path.join(dir, 'dup.txt'), 'a\nx\nb\nx\nc\n');
        git(dir, 'add', 'dup.txt');
        git(dir, 'commit', '-q', '-m', 'dup');
      },
      patch: v4a('*** Update File: dup.txt', '@@', '-x', '+y'),
      args: ['--strict'],
      exit: 1,
      error: { kind: 'ambiguous_match', path: 'dup.txt', chunk: 1, line: 3, candidates: [2, 4] },
    },
    {
      name: 'binary_or_encoding',
      patch: v4a('*** Update File: docs/blob.bin', '@@', '-binary', '+text'),
      exit: 1,
      error: { kind: 'binary_or_encoding', path: 'docs/blob.bin' },
    },
    {
      name: 'is_directory',
      patch: v4a('*** Update File: src', '@@', '-a', '+b'),
      exit: 1,
      error: { kind: 'is_directory', path: 'src' },
    },
    {
      name: 'stale (--expect-head)',
      args: ['--expect-head', '1234567'],
      patch: BASIC_PATCH,
      exit: 5,
      error: { kind: 'stale', ref: 'refs/heads/main', expected: '1234567' },
    },
    {
      name: 'stale (--base elsewhere)',
      args: ['--base', 'HEAD~1'],
      patch: BASIC_PATCH,
      exit: 5,
      error: { kind: 'stale', ref: 'refs/heads/main' },
    },
    {
      name: 'dirty',
      setup: (dir) => writeFileSync(path.join(dir, 'src/math.js'), 'edited\n'),
      patch: BASIC_PATCH,
      exit: 6,
      error: { kind: 'dirty', paths: ['src/math.js'] },
    },
    {
      name: 'bad_revision (--base)',
      args: ['--base', 'no-such-rev'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'bad_revision' },
    },
    {
      name: 'usage (bad --ref)',
      args: ['--ref', 'a..b'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage' },
    },
    {
      name: 'usage (bad --trailer)',
      args: ['--trailer', 'no separator'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage' },
    },
    {
      name: 'usage (--trailer with a key patchtx reserves)',
      args: ['--trailer', 'patch-id=0000'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage', trailer: 'patch-id' },
    },
    {
      name: 'usage (-m forging a Patch-Id trailer)',
      args: ['-m', 'Subject\n\nPatch-Id: 0000'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage', trailer: 'Patch-Id' },
    },
    {
      name: 'usage (empty -m)',
      args: ['-m', '  '],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage' },
    },
    {
      name: 'usage (bad --author)',
      args: ['--author', 'nobody'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage' },
    },
    {
      name: 'usage (bad --expect-head)',
      args: ['--expect-head', 'not-hex'],
      patch: BASIC_PATCH,
      exit: 2,
      error: { kind: 'usage' },
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit ${c.exit}, nothing written`, async () => {
      const dir = makeRepo('basic');
      c.setup?.(dir);
      const before = snapshot(dir);
      const file = patchFile(c.patch ?? BASIC_PATCH);
      for (const cmd of ['apply', 'check']) {
        const r = await patchtxJson(cmd, '--repo', dir, ...(c.args ?? []), file);
        expect(r.code, `${cmd}: ${r.out}`).toBe(c.exit);
        expect(r.lines).toHaveLength(1);
        expect(r.json.ok).toBe(false);
        expect(Object.keys(r.json)).toEqual(['ok', 'error']);
        for (const k of ERROR_KEYS) expect(r.json.error).toHaveProperty(k);
        expect(Array.isArray(r.json.error.candidates)).toBe(true);
        expect(r.json.error).toMatchObject(c.error);
        expect(r.err).toBe('');
        // the same refusal for people: one "error:" line block on stderr, nothing on stdout
        const t = await patchtx(cmd, '--repo', dir, ...(c.args ?? []), file);
        expect(t.code).toBe(c.exit);
        expect(t.out).toBe('');
        expect(t.err).toBe(`error: ${r.json.error.message}\n`);
        if (c.message) expect(r.json.error.message).toMatch(c.message);
      }
      expectUntouched(dir, before);
    });
  }

  it('not_a_repository: exit 2', async () => {
    const dir = tempDir();
    const r = await patchtxJson('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(2);
    expect(r.json.error.kind).toBe('not_a_repository');
    const missing = await patchtxJson('apply', '--repo', path.join(dir, 'nope'), patchFile(BASIC_PATCH));
    expect(missing.code).toBe(2);
    expect(missing.json.error.kind).toBe('not_a_repository');
  });

  it('usage errors found by the option parser: exit 2, and a JSON object with --json', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const unknown = await patchtx('apply', '--repo', dir, '--bogus', patchFile(BASIC_PATCH));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown option '--bogus'");
    const json = await patchtxJson('apply', '--repo', dir, '--bogus', patchFile(BASIC_PATCH));
    expect(json.code).toBe(2);
    expect(json.json).toMatchObject({ ok: false, error: { kind: 'usage', message: "unknown option '--bogus'" } });
    const choice = await patchtxJson('apply', '--repo', dir, '--dirty=sometimes', patchFile(BASIC_PATCH));
    expect(choice.code).toBe(2);
    expect(choice.json.error.kind).toBe('usage');
    const cmd = await patchtx('frobnicate');
    expect(cmd.code).toBe(2);
    expect(cmd.err).toContain("unknown command 'frobnicate'");
    const file = await patchtxJson('apply', '--repo', dir, path.join(tempDir(), 'missing.patch'));
    expect(file.code).toBe(2);
    expect(file.json.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('cannot read patch file') });
    const n = await patchtxJson('log', '--repo', dir, '-n', '0');
    expect(n.code).toBe(2);
    expect(n.json.error.kind).toBe('usage');
    expectUntouched(dir, before);
  });

  it('a failure in a linked worktree leaves both checkouts untouched', async () => {
    const main = makeRepo('worktree');
    const wt = `${main}-wt`;
    const beforeMain = snapshot(main);
    const beforeWt = snapshot(wt);
    const r = await patchtxJson('apply', '--repo', wt, patchFile(v4a('*** Update File: docs/src-link', '@@', '-../src', '+x')));
    expect(r.code).toBe(4);
    expectUntouched(main, beforeMain);
    expectUntouched(wt, beforeWt);
  });

  it('a failure in a bare repository changes no ref', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: README.md', '@@', '-nope', '+x')));
    expect(r.code).toBe(1);
    expectUntouched(dir, before);
  });
});

describe('symlinks and gitlinks', () => {
  it('an Update of docs/src-link and an Add under it are refused (exit 4) and nothing is written through the link', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    for (const patch of [
      v4a('*** Update File: docs/src-link', '@@', '-../src', '+../bin'),
      v4a('*** Add File: docs/src-link/evil.js', '+evil'),
      // a valid change earlier in the same patch does not land either
      v4a('*** Update File: README.md', '@@', '-# Sample', '+# Changed', '*** Add File: docs/src-link/evil.js', '+evil'),
    ]) {
      const r = await patchtx('apply', '--repo', dir, patchFile(patch));
      expect(r.code).toBe(4);
      expect(r.err).toMatch(/symbolic link/);
    }
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# Sample\n\nA small repository for patchtx tests.\n');
    expectUntouched(dir, before);
  });

  it('a symlink may be deleted', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Delete File: docs/src-link')));
    expect(r.code).toBe(0);
    expect(r.json.files).toEqual([{ path: 'docs/src-link', op: 'D', from: null }]);
    expect(git(dir, 'ls-tree', 'HEAD', 'docs/src-link')).toBe('');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'ls-files', 'src').trim().split('\n')).toEqual(['src/math.js', 'src/util/name.js']);
  });

  it('a directory that is a symlink only in the working tree is refused too', async () => {
    const dir = makeRepo('basic');
    // untracked symlink `out` -> src; adding out/x.js would write into src/
    symlinkSync('src', path.join(dir, 'out'));
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: out/x.js', '+x')));
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ kind: 'path_rejected', path: 'out/x.js' });
    expectUntouched(dir, before);
  });

  it('vendor/lib (gitlink) is refused whatever the patch does to it', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    for (const patch of [
      v4a('*** Delete File: vendor/lib'),
      v4a('*** Update File: vendor/lib', '@@', '-x', '+y'),
      v4a('*** Add File: vendor/lib', '+x'),
      v4a('*** Add File: vendor/lib/inside.txt', '+x'),
      v4a('*** Update File: README.md', '*** Move to: vendor/lib'),
    ]) {
      const r = await patchtxJson('apply', '--repo', dir, patchFile(patch));
      expect(r.code, patch).toBe(4);
      expect(r.json.error.kind).toBe('path_rejected');
      expect(r.json.error.message).toMatch(/submodule \(gitlink\)/);
    }
    expectUntouched(dir, before);
  });
});

describe('uncommitted changes', () => {
  it('modified, staged and untracked-in-the-way paths: refused (exit 6), all listed, nothing touched', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'src/math.js'), 'modified in the working tree\n');
    writeFileSync(path.join(dir, 'README.md'), '# staged\n');
    git(dir, 'add', 'README.md');
    writeFileSync(path.join(dir, 'src/new.js'), 'untracked, in the way of an Add\n');
    const before = snapshot(dir);
    const patch = patchFile(
      v4a(
        '*** Update File: src/math.js',
        '@@',
        '-  return a + b;',
        '+  return a - b;',
        '*** Update File: README.md',
        '@@',
        '-# Sample',
        '+# Changed',
        '*** Add File: src/new.js',
        '+new',
        '*** Update File: docs/notes.txt',
        '@@',
        '-notes',
        '+clean path',
      ),
    );
    const r = await patchtxJson('apply', '--repo', dir, patch);
    expect(r.code).toBe(6);
    expect(r.json.error).toMatchObject({
      kind: 'dirty',
      paths: ['src/math.js', 'README.md', 'src/new.js'],
      reasons: { 'src/math.js': 'modified in the working tree', 'README.md': 'staged changes', 'src/new.js': 'untracked file in the way' },
    });
    const t = await patchtx('apply', '--repo', dir, patch);
    expect(t.code).toBe(6);
    expect(t.err).toBe(
      'error: the patch touches paths with uncommitted changes:\n' +
        '  src/math.js: modified in the working tree\n' +
        '  README.md: staged changes\n' +
        '  src/new.js: untracked file in the way\n' +
        'commit or stash them first, or take the working-tree content into this commit (--dirty=include)\n',
    );
    const c = await patchtx('check', '--repo', dir, patch);
    expect(c.code).toBe(6);
    expectUntouched(dir, before);
  });

  it('staged for deletion and deleted in the working tree count as dirty', async () => {
    const dir = makeRepo('basic');
    git(dir, 'rm', '-q', '--cached', 'docs/notes.txt');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: docs/notes.txt', '@@', '-notes', '+x')));
    expect(r.code).toBe(6);
    expect(r.json.error.reasons).toEqual({ 'docs/notes.txt': 'staged for deletion' });
    expectUntouched(dir, before);
    const dir2 = makeRepo('basic');
    git(dir2, 'rm', '-q', 'docs/notes.txt');
    git(dir2, 'reset', '-q');
    const before2 = snapshot(dir2);
    const r2 = await patchtxJson('apply', '--repo', dir2, patchFile(v4a('*** Update File: docs/notes.txt', '@@', '-notes', '+x')));
    expect(r2.code).toBe(6);
    expect(r2.json.error.reasons).toEqual({ 'docs/notes.txt': 'deleted in the working tree' });
    expectUntouched(dir2, before2);
  });

  it('dirty paths the patch does not touch do not matter', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'edited\n');
    writeFileSync(path.join(dir, 'untracked.txt'), 'u\n');
    const r = await patchtx('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe(' M docs/notes.txt\n?? untracked.txt\n');
  });

  it('--dirty=include: the patch applies to the working-tree content and the commit takes it', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'src/math.js'), '// local edit\nexport function add(a, b) {\n  return a + b;\n}\n');
    writeFileSync(path.join(dir, 'src/new.js'), 'export const x = 0;\n'); // untracked, replaced by the Add
    const r = await patchtxJson('apply', '--repo', dir, '--dirty=include', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('// local edit\nexport function add(a, b) {\n  return a + b; // sum\n}\n');
    expect(git(dir, 'show', 'HEAD:src/new.js')).toBe('export const x = 1;\n');
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toBe('// local edit\nexport function add(a, b) {\n  return a + b; // sum\n}\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('--dirty=include with a staged change: the working-tree content wins and nothing stays staged for that path', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nstaged text\n');
    git(dir, 'add', 'README.md');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nworking text\n');
    const r = await patchtx('apply', '--repo', dir, '--dirty', 'include', patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Included')));
    expect(r.code).toBe(0);
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Included\n\nworking text\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('check', () => {
  it('runs everything, writes nothing, exits 0 with what it would commit', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('check', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, checked: true, noop: false, parent: before.head, ref: 'refs/heads/main' });
    expect(r.json.commit).toBeNull();
    expect(r.json.wouldCommit).toMatch(/^[0-9a-f]{40}$/);
    // the commit it names does not exist
    expect(gitTry(dir, 'cat-file', '-e', r.json.wouldCommit).status).not.toBe(0);
    const t = await patchtx('check', '--repo', dir, patchFile(BASIC_PATCH));
    expect(t.code).toBe(0);
    expect(t.out).toMatch(
      /^Success\. Updated the following files:\nA src\/new\.js\nM src\/math\.js\nM bin\/run\.sh\nCheck passed: the patch would commit as [0-9a-f]{7} on main \(nothing of it was written\)\.\n$/,
    );
    expectUntouched(dir, before);
  });

  it('the commit check names is the commit apply makes (same clock)', async () => {
    const dir = makeRepo('basic');
    await withEnv({ GIT_AUTHOR_DATE: '2030-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2030-01-01T00:00:00Z' }, async () => {
      const c = await patchtxJson('check', '--repo', dir, patchFile(BASIC_PATCH));
      const a = await patchtxJson('apply', '--repo', dir, patchFile(BASIC_PATCH));
      expect(a.json.commit).toBe(c.json.wouldCommit);
      expect(rev(dir)).toBe(c.json.wouldCommit);
    });
  });

  it('exit 1 when the patch would not apply; noop is exit 0', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const bad = await patchtx('check', '--repo', dir, patchFile(v4a('*** Update File: README.md', '@@', '-nope', '+x')));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^error: Failed to find expected lines in README\.md/);
    const noop = await patchtxJson('check', '--repo', dir, patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample')));
    expect(noop.code).toBe(0);
    expect(noop.json).toMatchObject({ noop: true, commit: null, checked: true });
    expectUntouched(dir, before);
  });

  it('check in a bare repository and with --ref writes nothing either', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    const before = snapshot(dir);
    const r = await patchtxJson('check', '--repo', dir, '--ref', 'refs/heads/new', '--base', 'main', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json.ref).toBe('refs/heads/new');
    expectUntouched(dir, before);
  });

  it('check with an uncommitted change and --dirty=include leaves the change alone', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nlocal\n');
    mkdirSync(path.join(dir, 'extra'));
    const before = snapshot(dir);
    const r = await patchtxJson('check', '--repo', dir, '--dirty=include', patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# S')));
    expect(r.code).toBe(0);
    expectUntouched(dir, before);
  });
});
