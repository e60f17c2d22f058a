// Which checkout of a repository has a branch checked out (src/git/repo/worktrees.ts), from the main
// working tree and from a linked one, against what `git worktree list` says.
import { realpathSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/git/repo/discover.js';
import { checkedOutElsewhere } from '../../../src/git/repo/worktrees.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

/** branch -> working tree, as `git worktree list --porcelain` reports them */
function gitWorktrees(cwd: string): Map<string, string> {
  const byBranch = new Map<string, string>();
  for (const block of git(cwd, 'worktree', 'list', '--porcelain').trim().split('\n\n')) {
    const where = /^worktree (.*)$/m.exec(block)![1]!;
    const branch = /^branch (.*)$/m.exec(block)?.[1];
    if (branch) byBranch.set(branch, realpathSync(where));
  }
  return byBranch;
}

describe('checkedOutElsewhere', () => {
  it('finds the other checkout of each branch, and none for this checkout or an idle branch', async () => {
    const dir = makeRepo('worktree');
    const wt = `${dir}-wt`;
    git(dir, 'branch', 'idle');
    const listed = gitWorktrees(dir);
    expect(listed.size).toBe(2);
    for (const here of [dir, wt]) {
      const repo = await openRepository({ cwd: here, env: {} });
      for (const [branch, where] of listed) {
        const found = await checkedOutElsewhere(repo, branch, true);
        expect(found === null ? null : realpathSync(found)).toBe(where === realpathSync(here) ? null : where);
      }
      expect(await checkedOutElsewhere(repo, 'refs/heads/idle', true)).toBeNull();
    }
  });

  it('does not count the main repository when it has no working tree', async () => {
    const dir = makeRepo('worktree');
    const wt = `${dir}-wt`;
    const repo = await openRepository({ cwd: wt, env: {} });
    const mainBranch = git(dir, 'symbolic-ref', 'HEAD').trim();
    expect(await checkedOutElsewhere(repo, mainBranch, true)).not.toBeNull();
    expect(await checkedOutElsewhere(repo, mainBranch, false)).toBeNull();
  });
});
