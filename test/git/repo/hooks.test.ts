// Running a hook as git does, on real repositories: found through core.hooksPath or the hooks
// directory, run in the working tree's root (a bare repository's git directory), its output on
// both streams kept together and bounded, its input given when the hook takes one, and a hook
// that cannot be started failing with the status a shell gives (126, 127).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/repo/discover.js';
import { loadConfig } from '../../../src/git/repo/config.js';
import { findHook, runHook } from '../../../src/git/repo/hooks.js';
import { OUTPUT_LIMIT } from '../../../src/git/repo/run-program.js';
import { git, gitDirOf } from '../../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../../helpers/scratch.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

function repo(bare = false): string {
  const dir = path.join(tempDir(), bare ? 'repo.git' : 'repo');
  git(tempDir(), 'init', '-q', ...(bare ? ['--bare'] : []), '-b', 'main', dir);
  return dir;
}

function hook(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

async function found(dir: string, name: string) {
  const repository = await openRepository({ cwd: dir });
  const file = findHook(repository, await loadConfig(repository, process.env), process.env, name);
  return { repository, file };
}

describe('runHook', () => {
  it('runs in the working tree root with the env given; what it prints on both streams is the output', async () => {
    const dir = repo();
    hook(path.join(gitDirOf(dir), 'hooks'), 'commit-msg', '#!/bin/sh\necho "out $(pwd) $PROBE"\necho "err $1" >&2\nexit 3\n');
    const { repository, file } = await found(dir, 'commit-msg');
    expect(file).toBe(path.join(gitDirOf(dir), 'hooks', 'commit-msg'));
    const run = await runHook(repository, file!, ['MSG'], { ...process.env, PROBE: 'probe' });
    expect(run.status).toBe(3);
    // two pipes: the order between them is the scheduler's, the lines are the hook's
    expect(run.output.split('\n').sort()).toEqual(['', 'err MSG', `out ${dir} probe`]);
  });

  it('a bare repository: core.hooksPath relative to the git directory, where the hook runs', async () => {
    const dir = repo(true);
    git(dir, 'config', 'core.hooksPath', 'ci-hooks');
    hook(path.join(dir, 'ci-hooks'), 'post-commit', '#!/bin/sh\npwd\n');
    const { repository, file } = await found(dir, 'post-commit');
    expect(file).toBe(path.join(dir, 'ci-hooks', 'post-commit'));
    const run = await runHook(repository, file!, [], process.env);
    expect(run).toEqual({ status: 0, output: `${dir}\n` });
  });

  it('gives the hook its input on stdin when there is one, and none otherwise', async () => {
    const dir = repo();
    const file = hook(path.join(gitDirOf(dir), 'hooks'), 'post-rewrite', '#!/bin/sh\necho "read: $(cat)"\n');
    const repository = await openRepository({ cwd: dir });
    expect(await runHook(repository, file, ['amend'], process.env, 'old new\n')).toEqual({ status: 0, output: 'read: old new\n' });
    expect(await runHook(repository, file, ['amend'], process.env)).toEqual({ status: 0, output: 'read: \n' });
  });

  it('keeps at most OUTPUT_LIMIT characters of what the hook prints', async () => {
    const dir = repo();
    // twice the bound, in lines of 16 characters
    const lines = (2 * OUTPUT_LIMIT) / 16;
    const file = hook(
      path.join(gitDirOf(dir), 'hooks'),
      'commit-msg',
      `#!/bin/sh\nawk 'BEGIN { for (i = 0; i < ${lines}; i++) print "0123456789abcde" }'\nexit 1\n`,
    );
    const run = await runHook(await openRepository({ cwd: dir }), file, [], process.env);
    expect(run.status).toBe(1);
    expect(run.output).toBe('0123456789abcde\n'.repeat(Math.ceil(OUTPUT_LIMIT / 16)).slice(0, OUTPUT_LIMIT));
  });

  it('a hook that cannot be started (its #! names no program) fails with status 127, naming the file', async () => {
    const dir = repo();
    const file = hook(path.join(gitDirOf(dir), 'hooks'), 'commit-msg', '#!/nonexistent/interpreter\n');
    const run = await runHook(await openRepository({ cwd: dir }), file, [], process.env);
    expect(run.status).toBe(127);
    expect(run.output).toContain(`${file}: `);
  });
});
