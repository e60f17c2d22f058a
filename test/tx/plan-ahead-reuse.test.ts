// `patchtx apply` reads the touched paths and plans the patch before it takes the index lock, and
// under the lock uses that load again only when nothing it was read from has changed (base tree,
// index file, each touched path's lstat, the attributes files read from disk). Each case holds a
// real run between the two (PATCHTX_TEST_PAUSE_AT=planned-ahead), changes something the way a user
// or git would, and lets the run go on: what the run reports must be what the repository holds
// under the lock, not what it held before.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const PATCH = `*** Begin Patch
*** Update File: src/math.js
@@
 export function add(a, b) {
-  return a + b;
+  return a + b + 0;
 }
*** End Patch
`;

const read = (dir: string, p: string): string => readFileSync(path.join(dir, p), 'utf8');
const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

/**
 * Starts `patchtx apply PATCH` held between planning ahead and taking the lock; `go()` releases it.
 * `env`: more of the run's environment (a crash point).
 */
async function heldApply(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}, text = PATCH) {
  const patch = path.join(dir, '..', 'change.patch');
  writeFileSync(patch, text);
  const release = path.join(dir, '..', 'go');
  const run = runCli(['apply', '--repo', dir, '--json', ...extra, patch], {
    env: { PATCHTX_TEST_PAUSE_AT: 'planned-ahead', PATCHTX_TEST_PAUSE_UNTIL: release, ...env },
  });
  await waitFor(() => existsSync(`${release}.held`), 'the run planned the patch ahead');
  return {
    go: async () => {
      writeFileSync(release, '');
      return run;
    },
  };
}

describe('the touched paths read before the lock, and under it', () => {
  it('an edit of a touched file in between is refused as uncommitted work, and nothing is written', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const run = await heldApply(dir);
    writeFileSync(path.join(dir, 'src/math.js'), 'export function add(a, b) {\n  return b + a;\n}\n');
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(6);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('dirty');
    // the dirty check under the lock saw the edit (not only the last look before the ref moves)
    expect(error.reasons).toEqual({ 'src/math.js': 'modified in the working tree' });
    expect(rev(dir)).toBe(before);
    expect(read(dir, 'src/math.js')).toBe('export function add(a, b) {\n  return b + a;\n}\n');
    expect(status(dir)).toBe(' M src/math.js\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it('git add of a touched file in between is seen (its work is taken in as staged)', async () => {
    const dir = makeRepo('basic');
    const edited = 'export function add(a, b) {\n  return a + b;\n}\n// kept by the user\n';
    writeFileSync(path.join(dir, 'src/math.js'), edited);
    const run = await heldApply(dir, ['--dirty=include']);
    git(dir, 'add', 'src/math.js');
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const warning = result.warnings.find((w: { kind: string }) => w.kind === 'dirty_included');
    expect(warning.message).toContain('(staged changes)');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return a + b + 0;\n}\n// kept by the user\n');
    expect(status(dir)).toBe('');
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });

  it('an edit of an untouched file in between changes nothing: the load made ahead is used', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    // killed should the run read the touched paths again under the lock
    const run = await heldApply(dir, [], { PATCHTX_TEST_CRASH_AT: 'touched-read-again' });
    writeFileSync(path.join(dir, 'README.md'), 'edited meanwhile\n');
    const r = await run.go();
    expect(r.signal).toBeNull();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return a + b + 0;\n}\n');
    expect(git(dir, 'diff', '--name-only', 'HEAD~1', 'HEAD').trim()).toBe('src/math.js');
    expect(status(dir)).toBe(' M README.md\n');
    expect(read(dir, 'README.md')).toBe('edited meanwhile\n');
  });

  it.each([
    ['as it is', 'false', 'one\ntwo\nthree\n', 'one\nTWO\nthree\n'],
    ['converted (core.autocrlf=true)', 'true', 'one\r\ntwo\r\nthree\r\n', 'one\r\nTWO\r\nthree\r\n'],
  ])(
    'a touched file whose stat data the index does not match, its content the same (%s): patched from the bytes the check read',
    async (_what, autocrlf, before, after) => {
      const dir = makeRepo('empty');
      git(dir, 'config', 'core.autocrlf', 'false');
      writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
      git(dir, 'add', 'a.txt');
      git(dir, 'commit', '-q', '-m', 'base');
      git(dir, 'config', 'core.autocrlf', autocrlf);
      rmSync(path.join(dir, 'a.txt'));
      git(dir, 'checkout', '--', 'a.txt');
      // the same bytes written again: new stat data, so the dirty check compares the content
      writeFileSync(path.join(dir, 'a.txt'), before);
      const patch = path.join(dir, '..', 'stale.patch');
      writeFileSync(patch, '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n');
      const r = await runCli(['apply', '--repo', dir, '--json', patch]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(read(dir, 'a.txt')).toBe(after);
      expect(git(dir, 'show', 'HEAD:a.txt')).toBe('one\nTWO\nthree\n');
      expect(status(dir)).toBe('');
    },
  );

  it('a unified diff is planned again when the conversion it was placed with changed in between (the index entry), the bytes the same', async () => {
    const dir = makeRepo('empty');
    git(dir, 'config', 'core.autocrlf', 'false');
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
    git(dir, 'add', 'a.txt');
    git(dir, 'commit', '-q', '-m', 'base');
    // checked out as core.autocrlf=true does: CRLF in the working tree, LF stored
    git(dir, 'config', 'core.autocrlf', 'true');
    rmSync(path.join(dir, 'a.txt'));
    git(dir, 'checkout', '--', 'a.txt');
    expect(read(dir, 'a.txt')).toBe('one\r\ntwo\r\nthree\r\n');
    const diff = '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n';
    const run = await heldApply(dir, ['--dirty=include'], {}, diff);
    // the CRLF bytes staged as they are: text=auto then leaves them alone, so the LF lines are not there
    git(dir, '-c', 'core.autocrlf=false', 'add', 'a.txt');
    const head = rev(dir);
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(JSON.parse(r.stdout).error.kind).toBe('context_not_found');
    // what a run started now says
    const now = await runCli(['check', '--repo', dir, '--json', '--dirty=include', path.join(dir, '..', 'change.patch')]);
    expect(JSON.parse(now.stdout).error.kind).toBe('context_not_found');
    expect(rev(dir)).toBe(head);
    expect(read(dir, 'a.txt')).toBe('one\r\ntwo\r\nthree\r\n');
  });
});
