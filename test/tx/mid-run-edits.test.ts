// A file saved while a transaction runs must not be overwritten. Each case holds a real
// `patchtx apply` at a named point (PATCHTX_TEST_PAUSE_AT), changes a touched file the way an
// editor would, and lets the run go on: before the commit point the run refuses (`dirty`) and
// leaves everything as it was; after it, the run leaves the changed file as it is and says so.
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

const PATCH = `*** Begin Patch
*** Update File: src/math.js
@@
 export function add(a, b) {
-  return a + b;
+  return a + b + 0;
 }
*** Delete File: docs/notes.txt
*** Add File: src/new.txt
+new
*** End Patch
`;

const read = (dir: string, p: string): string => readFileSync(path.join(dir, p), 'utf8');
const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');
const journalOf = (dir: string): { state?: string } | null => {
  const file = path.join(dir, '.git', 'patchtx', 'journal.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};

/** Starts `patchtx apply PATCH` held at `point`; `go()` releases it and returns its result. */
function pausedApply(dir: string, point: string, extra: string[] = []) {
  const patch = path.join(dir, '..', `${path.basename(dir)}.patch`);
  writeFileSync(patch, PATCH);
  const release = path.join(dir, '..', `${path.basename(dir)}.go`);
  const run = runCli(['apply', '--repo', dir, '--json', ...extra, patch], {
    env: { PATCHTX_TEST_PAUSE_AT: point, PATCHTX_TEST_PAUSE_UNTIL: release },
  });
  return {
    go: async () => {
      writeFileSync(release, '');
      return run;
    },
  };
}

describe('a touched file changed while the transaction runs', () => {
  it('before the commit point: the run is refused as dirty and nothing changes', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const run = pausedApply(dir, 'after-publish-journal');
    // held with everything read, validated and written as objects, just before the ref moves
    await waitFor(() => journalOf(dir)?.state === 'published', 'the run reached its commit point');
    writeFileSync(path.join(dir, 'src/math.js'), 'saved meanwhile\n');
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(6);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('dirty');
    expect(error.paths).toEqual(['src/math.js']);
    expect(error.message).toContain('src/math.js');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
    expect(read(dir, 'src/math.js')).toBe('saved meanwhile\n');
    expect(read(dir, 'docs/notes.txt')).toBe('notes\n');
    expect(existsSync(path.join(dir, 'src/new.txt'))).toBe(false);
    expect(status(dir)).toBe(' M src/math.js\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });

  it('before the commit point: a file turned into a symbolic link whose target reads as its old bytes refuses the run', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const file = path.join(dir, 'src/math.js');
    const was = read(dir, 'src/math.js');
    const run = pausedApply(dir, 'after-publish-journal');
    await waitFor(() => journalOf(dir)?.state === 'published', 'the run reached its commit point');
    // the same bytes, as git hashes a link (its target), but a link now
    rmSync(file);
    symlinkSync(was, file);
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(6);
    expect(JSON.parse(r.stdout).error.paths).toEqual(['src/math.js']);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readlinkSync(file)).toBe(was);
  });

  it('before the commit point: an untracked file created where the patch adds one refuses the run', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const run = pausedApply(dir, 'after-publish-journal');
    await waitFor(() => journalOf(dir)?.state === 'published', 'the run reached its commit point');
    writeFileSync(path.join(dir, 'src/new.txt'), 'mine\n');
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(6);
    expect(JSON.parse(r.stdout).error.paths).toEqual(['src/new.txt']);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
    expect(read(dir, 'src/new.txt')).toBe('mine\n');
    expect(status(dir)).toBe('?? src/new.txt\n');
  });

  it('after the commit point: the changed files are left as they are, with git status showing the change', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const run = pausedApply(dir, 'after-ref');
    await waitFor(() => git(dir, 'rev-parse', 'HEAD').trim() !== before, 'the ref moved');
    writeFileSync(path.join(dir, 'src/math.js'), 'saved meanwhile\n');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'keep these notes\n');
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const landed = git(dir, 'rev-parse', 'HEAD').trim();
    expect(result.commit).toBe(landed);
    expect(result.warnings).toEqual(
      ['docs/notes.txt', 'src/math.js'].map((p) => ({
        kind: 'note',
        path: p,
        message: `left ${p} as it is: it changed while the transaction ran; git status shows how it differs from the commit on refs/heads/main`,
      })),
    );
    expect(read(dir, 'src/math.js')).toBe('saved meanwhile\n');
    expect(read(dir, 'docs/notes.txt')).toBe('keep these notes\n');
    expect(read(dir, 'src/new.txt')).toBe('new\n');
    // the index holds the commit: the edit is an unstaged change, the deleted file an untracked one
    expect(git(dir, 'rev-parse', ':src/math.js').trim()).toBe(git(dir, 'rev-parse', `${landed}:src/math.js`).trim());
    expect(status(dir)).toBe(' M src/math.js\n?? docs/notes.txt\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });

  it('after the commit point: a file touched but holding the same bytes is written as usual', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const run = pausedApply(dir, 'after-ref');
    await waitFor(() => git(dir, 'rev-parse', 'HEAD').trim() !== before, 'the ref moved');
    // an editor's save of unchanged content: new stat data, the bytes the run read
    const math = path.join(dir, 'src/math.js');
    writeFileSync(math, readFileSync(math));
    const r = await run.go();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).warnings).toEqual([]);
    expect(read(dir, 'src/math.js')).toBe('export function add(a, b) {\n  return a + b + 0;\n}\n');
    expect(status(dir)).toBe('');
  });
});
