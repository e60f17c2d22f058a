// The transaction layer's errors speak to whoever called it, not to one program's command line:
// they name no flag, and say in their data which option was wrong (`option`) or which setting
// would get past them (`remedy`). patchtx's command line then names its flags for them
// (src/cli/flag-hints.ts); the CLI tests check the text a CLI user sees.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyTransaction, type ApplyOptions } from '../../src/commands/apply.js';
import { PatchtxError } from '../../src/errors.js';
import { withFlagHints } from '../../src/cli/flag-hints.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';

afterAll(cleanupRepos);

const ADD = '*** Begin Patch\n*** Add File: new.txt\n+new\n*** End Patch\n';
const UPDATE_README = '*** Begin Patch\n*** Update File: README.md\n@@\n-# Sample\n+# Changed\n*** End Patch\n';

async function refusal(opts: Omit<ApplyOptions, 'env'>): Promise<PatchtxError> {
  const e = await applyTransaction({ env: gitEnv, ...opts }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PatchtxError);
  const error = e as PatchtxError;
  // no `--flag` of any program (git commands a remedy names, like `git merge --abort`, are not at stake here)
  expect(error.message).not.toMatch(/(^|[\s(])--[a-z]/);
  return error;
}

describe('transaction errors name no command-line flag', () => {
  it('uncommitted changes on a touched path: the remedy is the dirty option', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample, edited\n');
    const e = await refusal({ repoDir: dir, patchText: UPDATE_README });
    expect(e.kind).toBe('dirty');
    expect(e.message).toMatch(/commit or stash them first, or take the working-tree content into this commit$/);
    expect(e.data.remedy).toEqual({ option: 'dirty', value: 'include' });
    expect(git(dir, 'status', '--porcelain')).toBe(' M README.md\n');
  });

  it('a ref that is not a branch, and a branch that does not exist yet', async () => {
    const dir = makeRepo('basic');
    git(dir, 'tag', 'v1');
    const tag = await refusal({ repoDir: dir, patchText: ADD, ref: 'refs/tags/v1' });
    expect(tag).toMatchObject({ kind: 'usage', message: 'refs/tags/v1 is not a branch: patchtx commits onto branches (refs/heads/NAME) only' });
    expect(tag.data.option).toBe('ref');
    const fresh = await refusal({ repoDir: dir, patchText: ADD, ref: 'refs/heads/feature' });
    expect(fresh.message).toBe('refs/heads/feature does not exist yet; start it from a base revision, HEAD for the current commit');
    expect(fresh.data.remedy).toEqual({ option: 'base', value: 'HEAD' });
  });

  it('malformed option values say which option', async () => {
    const dir = makeRepo('basic');
    const head = git(dir, 'rev-parse', 'HEAD');
    const cases: Array<[Partial<ApplyOptions>, string]> = [
      [{ expectHead: 'not-hex' }, 'expectHead'],
      [{ trailers: ['no separator'] }, 'trailers'],
      [{ trailers: ['Patch-Id=x'] }, 'trailers'],
      [{ author: 'nobody' }, 'author'],
      [{ committer: 'nobody' }, 'committer'],
      [{ message: '  ' }, 'message'],
      [{ message: 'Subject\n\nPatch-Id: forged' }, 'message'],
    ];
    for (const [opts, option] of cases) {
      const e = await refusal({ repoDir: dir, patchText: ADD, ...opts });
      expect(e.kind, option).toBe('usage');
      expect(e.data.option, JSON.stringify(opts)).toBe(option);
    }
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe("patchtx's flags for them", () => {
  it('the wrong option in front, the remedy after; the option names leave the data', () => {
    const wrong = withFlagHints(
      new PatchtxError('usage', "the expected head must be a commit id, got 'x'", { option: 'expectHead', value: 'x' }),
    ) as PatchtxError;
    expect(wrong.message).toBe("--expect-head: the expected head must be a commit id, got 'x'");
    expect(wrong.data).toEqual({ value: 'x' });
    const fix = withFlagHints(
      new PatchtxError('dirty', 'commit them first, or take them in', { paths: ['a'], remedy: { option: 'dirty', value: 'include' } }),
    ) as PatchtxError;
    expect(fix.message).toBe('commit them first, or take them in (--dirty=include)');
    expect(fix.data).toEqual({ paths: ['a'] });
    expect((withFlagHints(fix) as PatchtxError).message).toBe(fix.message);
    const repo = withFlagHints(new PatchtxError('usage', 'apply in that worktree', { remedy: { option: 'repoDir', value: '/w' } })) as PatchtxError;
    expect(repo.message).toBe('apply in that worktree (--repo /w)');
  });
});
