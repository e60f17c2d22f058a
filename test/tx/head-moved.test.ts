// A `git checkout` between a run reading HEAD and locking the index: the run must not commit onto
// the branch the checkout left, nor write its patch into the index of the branch it switched to.
// A real apply is held right after its journal is created (before the index lock) while git
// switches branches; once released, the run must stop with `stale` and leave both branches and
// the checkout as git left them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

describe('HEAD moves before the index is locked', () => {
  it('git checkout of another branch meanwhile: stale, nothing committed on either branch, nothing staged', async () => {
    const dir = makeRepo('basic');
    git(dir, 'branch', 'other');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'main moves on');
    const main = git(dir, 'rev-parse', 'main').trim();
    const other = git(dir, 'rev-parse', 'other').trim();
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n');
    const release = path.join(dir, '..', 'go');
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    const run = runCli(['apply', '--repo', dir, patch, '--json'], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-journal', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    await waitFor(() => existsSync(journal), 'the run created its journal');
    git(dir, 'checkout', '-q', 'other');
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stderr + r.stdout).toBe(5);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('stale');
    expect(error.message).toMatch(/HEAD moved/);
    expect(git(dir, 'rev-parse', 'main').trim()).toBe(main);
    expect(git(dir, 'rev-parse', 'other').trim()).toBe(other);
    expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/other');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(existsSync(path.join(dir, 'landed.txt'))).toBe(false);
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    // and a run started now commits onto the branch checked out now
    const again = await runCli(['apply', '--repo', dir, patch]);
    expect(again.status, again.stderr).toBe(0);
    expect(git(dir, 'rev-parse', 'other~1').trim()).toBe(other);
    expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});
