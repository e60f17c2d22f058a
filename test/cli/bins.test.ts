// The built programs (dist/patchtx.cjs, dist/apply_patch.cjs) as a user runs them: a separate node
// process, the patch as an argument, a file, or on standard input, exit codes from the process.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, gitEnv, makeRepo } from '../helpers/repos.js';
import {
  BASIC_PATCH,
  BASIC_SUMMARY,
  buildDist,
  cleanupScratch,
  commitCount,
  expectFsckClean,
  expectUntouched,
  g,
  patchFile,
  rev,
  runBin,
  snapshot,
  tempDir,
  v4a,
  worktreeFiles,
} from './support.js';

beforeAll(() => buildDist());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

describe('dist/patchtx.cjs', () => {
  it('apply with the patch on standard input (no argument, and -)', async () => {
    const dir = makeRepo('basic');
    const r = runBin('patchtx', ['apply', '--repo', dir], { input: BASIC_PATCH });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${BASIC_SUMMARY}[main ${rev(dir).slice(0, 7)}] committed\n`);
    expect(commitCount(dir)).toBe(3);
    expect(g(dir, 'status', '--porcelain')).toBe('');
    const r2 = runBin('patchtx', ['apply', '--repo', dir, '--json', '-'], { input: v4a('*** Add File: from-stdin.txt', '+x') });
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.out)).toMatchObject({ ok: true, commit: rev(dir), files: [{ path: 'from-stdin.txt', op: 'A', from: null }] });
    expectFsckClean(dir);
  });

  it('run from inside the checkout without --repo, with a patch file', async () => {
    const dir = makeRepo('basic');
    const r = runBin('patchtx', ['apply', patchFile(BASIC_PATCH)], { cwd: path.join(dir, 'src/util') });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'src/new.js'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('check from standard input: exit 0 and nothing written; exit 1 when it does not apply', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const ok = runBin('patchtx', ['check', '--repo', dir], { input: BASIC_PATCH });
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/Check passed: would commit [0-9a-f]{7} on main\.\n$/);
    const bad = runBin('patchtx', ['check', '--repo', dir], { input: v4a('*** Update File: README.md', '@@', '-nope', '+x') });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^error: Failed to find expected lines in README\.md:\nnope\n/);
    expectUntouched(dir, before);
  });

  it('exit codes reach the shell: 3 malformed, 4 path rejected, 5 stale, 6 dirty, 7 undo refused, 2 usage', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    expect(runBin('patchtx', ['apply', '--repo', dir], { input: v4a('*** Nonsense') }).code).toBe(3);
    expect(runBin('patchtx', ['apply', '--repo', dir], { input: v4a('*** Add File: ../x', '+x') }).code).toBe(4);
    expect(runBin('patchtx', ['apply', '--repo', dir, '--expect-head', '0000000'], { input: BASIC_PATCH }).code).toBe(5);
    expect(runBin('patchtx', ['undo', '--repo', dir]).code).toBe(7);
    expect(runBin('patchtx', ['apply', '--repo', dir, '--nope'], { input: BASIC_PATCH }).code).toBe(2);
    expect(runBin('patchtx', ['apply', '--repo', dir, '-', '-'], { input: BASIC_PATCH }).code).toBe(2);
    expectUntouched(dir, before);
    writeFileSync(path.join(dir, 'README.md'), 'dirty\n');
    expect(runBin('patchtx', ['apply', '--repo', dir], { input: v4a('*** Update File: README.md', '@@', '-dirty', '+x') }).code).toBe(6);
    expect(runBin('patchtx', ['--version']).code).toBe(0);
  });

  it('missing identity: exit 2 and how to fix it', async () => {
    const dir = path.join(tempDir(), 'repo');
    g(tempDir(), 'init', '-q', '-b', 'main', dir);
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    g(dir, 'add', 'a.txt');
    g(dir, 'commit', '-q', '-m', 'base');
    const before = snapshot(dir);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: tempDir(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', NO_COLOR: '1' };
    const r = runBin('patchtx', ['apply', '--repo', dir], { input: v4a('*** Update File: a.txt', '@@', '-a', '+b'), env });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: Author identity unknown \(no name or email\)\. Pass --author "Name <email>", or run git config user\.name "Your Name" and git config user\.email "you@example\.com"/);
    expectUntouched(dir, before);
    // apply_patch in the same repository fails (exit 1, Codex has no other code for it) and writes nothing
    const a = runBin('apply_patch', [v4a('*** Update File: a.txt', '@@', '-a', '+b')], { cwd: dir, env });
    expect(a.code).toBe(1);
    expect(a.err).toMatch(/identity unknown/);
    expectUntouched(dir, before);
  });

  it('colour with FORCE_COLOR, never with NO_COLOR', async () => {
    const dir = makeRepo('basic');
    const patch = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A');
    const env = { ...gitEnv };
    delete env.NO_COLOR;
    const coloured = runBin('patchtx', ['check', '--repo', dir, '--diff'], { input: patch, env: { ...env, FORCE_COLOR: '1' } });
    expect(coloured.out).toContain('\x1b[32m+# Sample A\x1b[39m');
    const plain = runBin('patchtx', ['check', '--repo', dir, '--diff'], { input: patch, env: { ...env, FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.out).not.toContain('\x1b[');
    expect(plain.out).toContain('\n+# Sample A\n');
    const piped = runBin('patchtx', ['check', '--repo', dir, '--diff'], { input: patch, env });
    expect(piped.out).not.toContain('\x1b[');
  });
});

describe('dist/apply_patch.cjs', () => {
  it('inside a repository: the patch as the argument, one commit, Codex text, exit 0', async () => {
    const dir = makeRepo('basic');
    const r = runBin('apply_patch', [BASIC_PATCH], { cwd: dir });
    expect(r).toEqual({ code: 0, out: BASIC_SUMMARY, err: '' });
    expect(commitCount(dir)).toBe(3);
    expect(g(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('inside a repository: the patch on standard input', async () => {
    const dir = makeRepo('basic');
    const r = runBin('apply_patch', [], { cwd: dir, input: v4a('*** Delete File: docs/notes.txt') });
    expect(r).toEqual({ code: 0, out: 'Success. Updated the following files:\nD docs/notes.txt\n', err: '' });
    expect(existsSync(path.join(dir, 'docs/notes.txt'))).toBe(false);
    expect(g(dir, 'log', '-1', '--format=%s').trim()).toBe('Apply patch: delete docs/notes.txt');
  });

  it('context mismatch: Codex error text on stderr, exit 1, nothing changed', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = runBin('apply_patch', [v4a('*** Update File: README.md', '@@', '-# Nope', '+# X')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.startsWith('Failed to find expected lines in README.md:\n# Nope\n')).toBe(true);
    expectUntouched(dir, before);
  });

  it('outside a repository: files written; nothing at all when a later hunk fails', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'd'));
    writeFileSync(path.join(dir, 'd/f.txt'), 'a\nb\n');
    const ok = runBin('apply_patch', [], { cwd: dir, input: v4a('*** Update File: d/f.txt', '@@', ' a', '-b', '+B', '*** Add File: n.txt', '+n') });
    expect(ok).toEqual({ code: 0, out: 'Success. Updated the following files:\nA n.txt\nM d/f.txt\n', err: '' });
    expect(readFileSync(path.join(dir, 'd/f.txt'), 'utf8')).toBe('a\nB\n');
    const before = worktreeFiles(dir);
    const bad = runBin('apply_patch', [v4a('*** Add File: m.txt', '+m', '*** Delete File: n.txt', '*** Update File: d/f.txt', '@@', '-zzz', '+y')], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.err.startsWith('Failed to find expected lines in d/f.txt:\nzzz\n')).toBe(true);
    expect(worktreeFiles(dir)).toEqual(before);
  });

  it('usage: no patch at all (empty standard input) is exit 2 with the Codex usage text', async () => {
    const dir = tempDir();
    const r = runBin('apply_patch', [], { cwd: dir, input: '' });
    expect(r).toEqual({
      code: 2,
      out: '',
      err: "Usage: apply_patch [--preserve-crlf] 'PATCH'\n       echo 'PATCH' | apply_patch [--preserve-crlf]\n",
    });
    const two = runBin('apply_patch', ['a', 'b'], { cwd: dir });
    expect(two).toEqual({ code: 2, out: '', err: 'Error: apply_patch accepts exactly one PATCH argument.\n' });
    expect(worktreeFiles(dir)).toEqual({});
  });

  it('a malformed patch: exit 1 with the Codex parse message', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = runBin('apply_patch', ['*** Begin Patch\n*** Bogus\n*** End Patch'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^Invalid patch hunk on line 2: '\*\*\* Bogus' is not a valid hunk header/);
    expectUntouched(dir, before);
  });
});
