import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/repo/discover.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

/** What git itself finds from `cwd`. */
function gitView(cwd: string): { gitdir: string; commonDir: string; workdir: string | null } {
  const [gitdir, commonDir, bare] = git(cwd, 'rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir', '--is-bare-repository').trim().split('\n');
  const workdir = bare === 'true' ? null : git(cwd, 'rev-parse', '--show-toplevel').trim();
  return { gitdir: realpathSync(gitdir!), commonDir: realpathSync(commonDir!), workdir };
}

describe('openRepository', () => {
  it.each([
    ['basic', '.', 'src/util'],
    ['packed', '.', 'docs'],
    ['bare', '.', 'refs/heads'],
  ] as const)('finds the %s repository from its top and from a subdirectory, as git does', async (kind, top, sub) => {
    const dir = makeRepo(kind);
    for (const start of [path.join(dir, top), path.join(dir, sub)]) {
      const repo = await openRepository({ cwd: start, env: {} });
      expect(repo).toEqual(gitView(start));
    }
  });

  it('finds a linked worktree through its .git file and commondir', async () => {
    const dir = makeRepo('worktree');
    const wt = `${dir}-wt`;
    const repo = await openRepository({ cwd: path.join(wt, 'src'), env: {} });
    expect(repo).toEqual(gitView(path.join(wt, 'src')));
    expect(repo.gitdir).toBe(path.join(realpathSync(dir), '.git', 'worktrees', 'repo-wt'));
    expect(repo.commonDir).toBe(path.join(realpathSync(dir), '.git'));
    expect(repo.workdir).toBe(realpathSync(wt));
  });

  it('starts at repoDir (relative to cwd) when given', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ cwd: path.dirname(dir), repoDir: 'repo/src', env: {} });
    expect(repo.workdir).toBe(realpathSync(dir));
  });

  it('follows a relative gitfile, as submodules have', async () => {
    const dir = makeRepo('basic');
    const holder = path.join(path.dirname(dir), 'sub-checkout');
    mkdirSync(path.join(holder, 'deep'), { recursive: true });
    writeFileSync(path.join(holder, '.git'), 'gitdir: ../repo/.git\n');
    const repo = await openRepository({ cwd: path.join(holder, 'deep'), env: {} });
    expect(repo).toEqual({ gitdir: path.join(realpathSync(dir), '.git'), commonDir: path.join(realpathSync(dir), '.git'), workdir: realpathSync(holder) });
  });

  it('honours GIT_DIR and GIT_WORK_TREE', async () => {
    const dir = makeRepo('basic');
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'patchtx-elsewhere-'));
    const gitdir = path.join(realpathSync(dir), '.git');
    expect(await openRepository({ cwd: elsewhere, env: { GIT_DIR: gitdir } })).toEqual({
      gitdir,
      commonDir: gitdir,
      workdir: realpathSync(elsewhere),
    });
    expect(await openRepository({ cwd: elsewhere, env: { GIT_DIR: gitdir, GIT_WORK_TREE: dir } })).toMatchObject({ workdir: realpathSync(dir) });
  });

  it('treats a checkout entered through its .git directory as that checkout', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ cwd: path.join(dir, '.git', 'refs'), env: {} });
    expect(repo.workdir).toBe(realpathSync(dir));
  });

  it('fails with not_a_repository naming the start directory', async () => {
    const lonely = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchtx-norepo-')));
    await expect(openRepository({ cwd: lonely, env: {} })).rejects.toMatchObject({
      kind: 'not_a_repository',
      message: expect.stringContaining(lonely),
      data: { dir: lonely },
    });
    await expect(openRepository({ cwd: lonely, repoDir: 'missing', env: {} })).rejects.toMatchObject({ kind: 'not_a_repository' });
  });
});
