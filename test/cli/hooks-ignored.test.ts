// A hook that is there but not executable is skipped, as git skips it, and with git's hint on
// stderr saying so (advice.ignoredHook=false silences it): a commit-msg hook someone installed
// without its executable bit would otherwise be left out without a word. The hint is git's own,
// compared with what git commit prints in the same repository.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBuiltCli, runCli } from '../helpers/cli.js';
import { git, gitTry } from '../helpers/repos.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';

useBuiltCli();

/** A repository with a.txt committed, and commit-msg and post-commit hooks without their executable bit. */
function repoWithIgnoredHooks(hooksPath?: string): string {
  const dir = path.join(tempDir(), 'repo');
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'seed');
  const hooks = hooksPath === undefined ? path.join(dir, '.git', 'hooks') : path.join(dir, hooksPath);
  if (hooksPath !== undefined) git(dir, 'config', 'core.hooksPath', hooksPath);
  mkdirSync(hooks, { recursive: true });
  for (const name of ['commit-msg', 'post-commit']) {
    writeFileSync(path.join(hooks, name), '#!/bin/sh\nexit 1\n');
    chmodSync(path.join(hooks, name), 0o644);
  }
  return dir;
}

const hints = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('hint: '));
const addLine = (line: string): string => patchFile(v4a('*** Update File: a.txt', '@@', ' one', `+${line}`));

describe('a hook that is not executable', () => {
  it.each([[undefined], ['ci-hooks']])('is skipped with the hint git commit gives (core.hooksPath %s)', async (hooksPath) => {
    const dir = repoWithIgnoredHooks(hooksPath);
    const r = await runCli(['apply', addLine('two')], { cwd: dir });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const ours = hints(r.stderr);
    expect(ours.length).toBe(4);
    const theirs = hints(gitTry(dir, 'commit', '-q', '--allow-empty', '-m', 'by git').stderr);
    expect(ours).toEqual(theirs);
  });

  it('is skipped without a word with advice.ignoredHook=false, and commit-msg is not looked for with --no-verify', async () => {
    const dir = repoWithIgnoredHooks();
    const quiet = await runCli(['apply', addLine('two')], { cwd: dir, env: { GIT_CONFIG_PARAMETERS: "'advice.ignoredHook'='false'" } });
    expect(quiet.status, quiet.stdout + quiet.stderr).toBe(0);
    expect(hints(quiet.stderr)).toEqual([]);
    const noVerify = await runCli(['apply', '--no-verify', addLine('three')], { cwd: dir });
    expect(noVerify.status, noVerify.stdout + noVerify.stderr).toBe(0);
    expect(hints(noVerify.stderr)).toEqual(hints(gitTry(dir, 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'by git').stderr));
    expect(hints(noVerify.stderr).join('\n')).not.toContain('commit-msg');
  });
});
