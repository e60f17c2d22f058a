// A journal left by a run that died after its ref moved must stay readable by every earlier
// patchtx: they read the whole file as one JSON value, and drop a file that is not one (after the
// grace of a run that is starting) without finishing the run or removing its locks. Its `version`
// cannot keep them away from a file they cannot parse, so the journal stays one JSON value.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const PATCH = '*** Begin Patch\n*** Update File: README.md\n@@\n-# Sample\n+# Sample, patched\n*** End Patch\n';

describe('the journal as the versions before records read it', () => {
  it('a run killed after its ref moved leaves a journal that is one JSON value, or one of a version they refuse', async () => {
    const dir = makeRepo('basic');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, PATCH);
    const killed = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).not.toBe(head);
    const text = readFileSync(path.join(dir, '.git', 'patchtx', 'journal.json'), 'utf8');
    // what an earlier version does first: JSON.parse of the whole file ("not JSON": dropped)
    let whole: { version?: unknown } | undefined;
    try {
      whole = JSON.parse(text);
    } catch {
      whole = undefined;
    }
    expect(whole, 'an earlier patchtx cannot read this journal and drops it, leaving index.lock').toBeDefined();
  });
});
