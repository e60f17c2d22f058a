// PATCHTX_OBJECT_READER=isomorphic-git switches a run to isomorphic-git's object reader (the
// second reader, kept for cross-checks; see src/git/objects/store.ts). The programs load it from
// its own file of the build on first use, so the switch is tried through the built program: the
// in-process tests of the reader cannot see how the program loads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

describe("the built program with isomorphic-git's object reader", () => {
  for (const kind of ['basic', 'packed'] as const) {
    it(`applies a patch in a ${kind} repository as with its own reader`, async () => {
      const dir = makeRepo(kind);
      const patch = '*** Begin Patch\n*** Update File: README.md\n@@\n-# Sample\n+# Sample, read by isomorphic-git\n*** End Patch\n';
      const r = await runCli(['apply', '--repo', dir, '--json'], { input: patch, env: { PATCHTX_OBJECT_READER: 'isomorphic-git' } });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
      expect(git(dir, 'show', 'HEAD:README.md')).toMatch(/^# Sample, read by isomorphic-git\n/);
      git(dir, 'fsck', '--no-progress');
    });
  }
});
