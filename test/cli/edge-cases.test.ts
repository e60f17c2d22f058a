// Edge cases of the transaction around the commit point.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

describe('a patch whose result equals the base commit', () => {
  it('with --dirty=include still writes the result over the uncommitted edit (no commit)', async () => {
    const repo = makeRepo('basic');
    const head = rev(repo);
    const file = path.join(repo, 'src/util/name.js');
    writeFileSync(file, 'export const name = "edited";\n');
    const r = await patchtxJson(
      'apply',
      '--repo',
      repo,
      '--dirty=include',
      patchFile(v4a('*** Update File: src/util/name.js', '@@', '-export const name = "edited";', '+export const name = "util";')),
    );
    expect(r.code, r.out).toBe(0);
    expect(r.json.noop).toBe(true);
    expect(rev(repo)).toBe(head);
    expect(readFileSync(file, 'utf8')).toBe('export const name = "util";\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expectFsckClean(repo);
  });
});

describe('--base onto a branch with no commits that is checked out here', () => {
  it('is refused before anything is written', async () => {
    const repo = makeRepo('basic');
    git(repo, 'checkout', '-q', '--orphan', 'fresh');
    const status = git(repo, 'status', '--porcelain');
    const r = await patchtxJson('apply', '--repo', repo, '--base', 'main', patchFile(v4a('*** Add File: new.txt', '+x')));
    expect(r.code).toBe(2);
    expect(r.json.error.kind).toBe('usage');
    expect(git(repo, 'status', '--porcelain')).toBe(status);
    expect(gitTry(repo, 'rev-parse', '--verify', '-q', 'refs/heads/fresh').status).not.toBe(0);
  });
});

describe("paths written with './'", () => {
  it('name the same files from the repository root, and the stored patch applies again after undo', async () => {
    const repo = makeRepo('basic');
    const base = rev(repo);
    const file = patchFile(v4a('*** Add File: ./docs/./new.txt', '+hello', '*** Update File: ./src/util/name.js', '*** Move to: ./src/util/renamed.js'));
    const r = await patchtxJson('apply', '--repo', repo, file);
    expect(r.code).toBe(0);
    expect(git(repo, 'diff-tree', '-r', '--name-status', '-M', base, 'HEAD').trim().split('\n').sort()).toEqual([
      'A\tdocs/new.txt',
      expect.stringMatching(/^R100\tsrc\/util\/name\.js\tsrc\/util\/renamed\.js$/),
    ]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    const shown = git(repo, 'notes', '--ref', 'patchtx', 'show', 'HEAD');
    expect((await patchtxJson('undo', '--repo', repo)).code).toBe(0);
    expect(rev(repo)).toBe(base);
    expect((await patchtxJson('apply', '--repo', repo, patchFile(shown))).code).toBe(0);
    expect(readFileSync(path.join(repo, 'docs/new.txt'), 'utf8')).toBe('hello\n');
    expectFsckClean(repo);
  });
});
