// The commit hooks, run as `git commit` runs them: prepare-commit-msg and commit-msg see the
// message in a file and what they write there is the commit's message (a Change-Id, a sign-off),
// a failing commit-msg refuses the commit with its output and nothing is written, post-commit runs
// once the ref has moved, core.hooksPath is honoured, and --no-verify skips commit-msg only.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtxJson } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { git, gitDirOf, rev } from '../helpers/repos.js';
import { addLine, seededRepo } from '../helpers/seeded.js';
import { cleanupScratch, isolateGitEnv, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

/** A repository with a.txt committed by git, and an identity configured. */
const repo = (): string => seededRepo({ name: 'Hook Tester', email: 'hooks@example.invalid' });

function hook(dir: string, name: string, body: string): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

const hooksOf = (dir: string): string => path.join(gitDirOf(dir), 'hooks');
const messageOf = (dir: string, what = 'HEAD'): string => git(dir, 'cat-file', 'commit', what).split('\n\n').slice(1).join('\n\n');

describe('prepare-commit-msg and commit-msg', () => {
  it('edit the message the commit gets: a sign-off and a Change-Id, with patchtx trailers kept', async () => {
    const dir = repo();
    const seen = path.join(tempDir(), 'seen');
    hook(
      hooksOf(dir),
      'prepare-commit-msg',
      `echo "prepare $# $2 $(basename "$1") $GIT_INDEX_FILE $GIT_DIR $(pwd) $GIT_AUTHOR_NAME" >> ${seen}\n` +
        `git interpret-trailers --in-place --trailer "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" "$1"`,
    );
    hook(
      hooksOf(dir),
      'commit-msg',
      `echo "commit-msg $# $(basename "$1")" >> ${seen}\ngit interpret-trailers --in-place --trailer "Change-Id: I0123456789abcdef" "$1"`,
    );
    const r = await patchtxJson('apply', '--repo', dir, '-m', 'Add two', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    const message = messageOf(dir);
    expect(rev(dir)).toBe(r.json.commit);
    expect(r.json.message).toBe(message);
    const parsed = git(dir, 'log', '-1', '--format=%(trailers:only,unfold)').trim().split('\n');
    expect(parsed).toEqual([
      `Patchtx-Tree: ${r.json.tree}`,
      `Patch-Id: ${r.json.patchId}`,
      'Signed-off-by: Hook Tester <hooks@example.invalid>',
      'Change-Id: I0123456789abcdef',
    ]);
    expect(message.startsWith('Add two\n\n')).toBe(true);
    const lines = readFileSync(seen, 'utf8').trim().split('\n');
    const gitDir = gitDirOf(dir);
    expect(lines).toEqual([`prepare 2 message COMMIT_EDITMSG ${path.join(gitDir, 'index')} ${gitDir} ${dir} Hook Tester`, 'commit-msg 1 COMMIT_EDITMSG']);
    // the commit is still patchtx's: the same patch again is already applied
    const again = await patchtxJson('apply', '--repo', dir, '-m', 'Add two', addLine('two'));
    expect(again.json.alreadyApplied).toBe(r.json.commit);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('a failing commit-msg refuses the commit with its output, and nothing is written', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'commit-msg', 'echo "no ticket number in the message" >&2\nexit 3');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(r.code).toBe(9);
    expect(r.json).toMatchObject({ ok: false, error: { kind: 'commit_refused', hook: 'commit-msg', status: 3 } });
    expect(r.json.error.message).toContain('no ticket number in the message');
    expectUntouched(dir, before);
  });

  it('a failing prepare-commit-msg refuses it too; --ref mode leaves no message file behind', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'prepare-commit-msg', 'echo "prepare says no"\nexit 1');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'refs/heads/bot', '--base', 'HEAD', addLine('two'));
    expect(r.json.error).toMatchObject({ kind: 'commit_refused', hook: 'prepare-commit-msg', output: 'prepare says no\n' });
    expectUntouched(dir, before);
    // (COMMIT_EDITMSG is the seed commit's, by git)
    expect(readdirSync(gitDirOf(dir)).filter((n) => n.startsWith('COMMIT_EDITMSG-'))).toEqual([]);
  });

  it('core.hooksPath is where the hooks are (relative to the working tree)', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'commit-msg', 'exit 1'); // not run: the configured directory replaces .git/hooks
    hook(path.join(dir, 'ci-hooks'), 'commit-msg', 'echo "Reviewed-on: ci" >> "$1"');
    git(dir, 'config', 'core.hooksPath', 'ci-hooks');
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'refs/heads/bot', '--base', 'HEAD', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Reviewed-on,valueonly)', 'bot').trim()).toBe('ci');
  });

  it('a hook that is not executable is not run, as git does not run it', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'commit-msg', 'exit 1');
    chmodSync(path.join(hooksOf(dir), 'commit-msg'), 0o644);
    const r = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
  });
});

describe('--no-verify', () => {
  it('skips commit-msg but runs prepare-commit-msg, as git commit --no-verify', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'commit-msg', 'exit 1');
    hook(hooksOf(dir), 'prepare-commit-msg', 'echo "Prepared-by: hook" >> "$1"');
    const r = await patchtxJson('apply', '--repo', dir, '--no-verify', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Prepared-by,valueonly)').trim()).toBe('hook');
  });

  it('is the library option noVerify', async () => {
    const dir = repo();
    hook(hooksOf(dir), 'commit-msg', 'echo refused\nexit 1');
    const lib = await openRepository({ dir });
    const patch = v4a('*** Update File: a.txt', '@@', ' one', '+two');
    const e = await rejection(lib.apply(patch));
    expect(e.kind).toBe('commit_refused');
    const got = await lib.apply(patch, { noVerify: true });
    expect(rev(dir)).toBe(got.commit);
  });
});

describe('post-commit', () => {
  it('runs once the ref has moved, and its failure changes nothing', async () => {
    const dir = repo();
    const seen = path.join(tempDir(), 'post');
    hook(hooksOf(dir), 'post-commit', `git rev-parse HEAD > ${seen}\nexit 1`);
    const r = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(readFileSync(seen, 'utf8').trim()).toBe(r.json.commit);
    expectNoLeftovers(dir);
  });

  it('does not run when nothing was committed', async () => {
    const dir = repo();
    const seen = path.join(tempDir(), 'post');
    hook(hooksOf(dir), 'post-commit', `touch ${seen}`);
    const r = await patchtxJson('check', '--repo', dir, addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(existsSync(seen)).toBe(false);
  });
});
