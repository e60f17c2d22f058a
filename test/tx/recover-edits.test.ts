// Recovery of a run that died after its commit point must not overwrite work done since: a file
// that holds neither what the run found nor what it wrote (nor the start of it, from a write cut
// short) is left as it is, its index entry set to the commit so that git status shows the change.
// Each case kills a real `patchtx apply` right after the ref moved (PATCHTX_TEST_CRASH_AT), changes
// the working tree the way a person or another tool would, then runs `patchtx recover`.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, cliOk, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
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
const NEW_MATH = 'export function add(a, b) {\n  return a + b + 0;\n}\n';

/** A checkout where PATCH landed (the ref moved) and the process died before touching the files. */
async function crashedAfterRef(dir: string, args: string[] = []): Promise<string> {
  const patch = path.join(dir, '..', `${path.basename(dir)}.patch`);
  writeFileSync(patch, PATCH);
  const before = git(dir, 'rev-parse', 'HEAD').trim();
  const killed = await runCli(['apply', '--repo', dir, ...args, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
  expect(killed.signal).toBe('SIGKILL');
  const landed = git(dir, 'rev-parse', 'HEAD').trim();
  expect(git(dir, 'rev-parse', 'HEAD^').trim()).toBe(before);
  // nothing synced yet: the working tree still holds the old files
  expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b;\n');
  return landed;
}

const read = (dir: string, p: string): string => readFileSync(path.join(dir, p), 'utf8');
const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

describe('recovery after the commit point', () => {
  it('leaves files changed after the crash as they are, with git status showing the change', async () => {
    const dir = makeRepo('basic');
    const landed = await crashedAfterRef(dir);
    writeFileSync(path.join(dir, 'src/math.js'), 'my own edit\n');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'keep these notes\n');

    // dated otherwise than the run: a notes commit written anew would differ from the run's
    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'], { env: { GIT_COMMITTER_DATE: '@2000000000 +0000' } })).recovered;
    expect(report).toMatchObject({ outcome: 'finished', commit: landed });
    expect(report.warnings).toEqual(
      ['src/math.js', 'docs/notes.txt'].map((p) => ({
        kind: 'note',
        path: p,
        message: `left ${p} as it is: it changed after the interrupted run; git status shows how it differs from the commit on refs/heads/main`,
      })),
    );
    expect(read(dir, 'src/math.js')).toBe('my own edit\n');
    expect(read(dir, 'docs/notes.txt')).toBe('keep these notes\n');
    expect(read(dir, 'src/new.txt')).toBe('new\n');
    // the index holds the commit: the edit is an unstaged change, the deleted file an untracked one
    expect(git(dir, 'rev-parse', ':src/math.js').trim()).toBe(git(dir, 'rev-parse', `${landed}:src/math.js`).trim());
    expect(status(dir)).toBe(' M src/math.js\n?? docs/notes.txt\n');
    // the note is attached with the notes commit the dead run wrote: nothing is left dangling
    expect(git(dir, 'fsck', '--full', '--no-progress')).toBe('');
    expect(git(dir, 'notes', '--ref', 'patchtx', 'show', landed)).toBe(PATCH);
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it('a kept file also keeps the paths below it (a file turned into a directory): recovery finishes', async () => {
    const dir = makeRepo('basic');
    const patch = path.join(dir, '..', `${path.basename(dir)}-swap.patch`);
    writeFileSync(
      patch,
      '*** Begin Patch\n*** Delete File: docs/notes.txt\n*** Add File: docs/notes.txt/part.txt\n+part\n*** Update File: src/math.js\n@@\n-  return a + b;\n+  return a + b + 0;\n*** End Patch\n',
    );
    const killed = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'edited after the crash\n');

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report.outcome).toBe('finished');
    expect(report.warnings.map((w: { kind: string; path: string }) => `${w.kind} ${w.path}`).sort()).toEqual([
      'note docs/notes.txt',
      'note docs/notes.txt/part.txt',
    ]);
    expect(read(dir, 'docs/notes.txt')).toBe('edited after the crash\n');
    expect(read(dir, 'src/math.js')).toBe(NEW_MATH);
    // the commit's entry is in the index; the working tree still has the file in its place
    expect(status(dir)).toBe(' D docs/notes.txt/part.txt\n?? docs/notes.txt\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    cliOk(['log', '--repo', dir]);
  });

  it('finishes files the run left as it found them, as it wrote them, or cut short', async () => {
    const dir = makeRepo('basic');
    await crashedAfterRef(dir);
    // a write cut short: the start of the new content (here: up to the changed line)
    writeFileSync(path.join(dir, 'src/math.js'), NEW_MATH.slice(0, 31));
    // a file the run had already written in full
    writeFileSync(path.join(dir, 'src/new.txt'), 'new\n');

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', warnings: [] });
    expect(read(dir, 'src/math.js')).toBe(NEW_MATH);
    expect(read(dir, 'src/new.txt')).toBe('new\n');
    expect(() => read(dir, 'docs/notes.txt')).toThrow(/ENOENT/);
    expect(status(dir)).toBe('');
  });

  it('when the ref has moved on, the start of its content (a recovery killed in turn) is finished too', async () => {
    const dir = makeRepo('basic');
    const landed = await crashedAfterRef(dir);
    // another process commits on top before anyone recovers
    const later = 'export const later = true;\n';
    const scratch = (args: string[], input?: string): string =>
      execFileSync('git', args, { cwd: dir, env: { ...gitEnv, GIT_INDEX_FILE: path.join(dir, '.git', 'scratch-index') }, encoding: 'utf8', input });
    const blob = scratch(['hash-object', '-w', '--stdin'], later).trim();
    scratch(['read-tree', landed]);
    scratch(['update-index', '--cacheinfo', `100644,${blob},src/math.js`]);
    const tree = scratch(['write-tree']).trim();
    const next = git(dir, 'commit-tree', tree, '-p', landed, '-m', 'later').trim();
    git(dir, 'update-ref', 'refs/heads/main', next, landed);
    rmSync(path.join(dir, '.git', 'scratch-index'));
    writeFileSync(path.join(dir, 'src/math.js'), later.slice(0, 10));

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report.warnings).toEqual([
      {
        kind: 'ref_moved_on',
        path: '',
        ref: 'refs/heads/main',
        commit: landed,
        tip: next,
        message: `refs/heads/main had moved on from ${landed} to ${next} before the interrupted run was finished`,
      },
    ]);
    expect(read(dir, 'src/math.js')).toBe(later);
    expect(status(dir)).toBe('');
  });

  it('with --dirty=include, the uncommitted content the run started from counts as found', async () => {
    const dir = makeRepo('basic');
    const dirty = 'export function add(a, b) {\n  return a + b;\n}\n// uncommitted\n';
    writeFileSync(path.join(dir, 'src/math.js'), dirty);
    const landed = await crashedAfterRef(dir, ['--dirty=include']);
    expect(read(dir, 'src/math.js')).toBe(dirty);

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', warnings: [] });
    expect(read(dir, 'src/math.js')).toBe(`${NEW_MATH}// uncommitted\n`);
    expect(git(dir, 'show', `${landed}:src/math.js`)).toBe(`${NEW_MATH}// uncommitted\n`);
    expect(status(dir)).toBe('');
  });
});

describe('what recovery says', () => {
  it('recover prints what it did and its warnings; a command that recovered first says so too', async () => {
    const dir = makeRepo('basic');
    const landed = await crashedAfterRef(dir);
    writeFileSync(path.join(dir, 'src/math.js'), 'my own edit\n');
    const r = await runCli(['recover', '--repo', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Recovered an interrupted apply on refs/heads/main: finished ${landed}.\n`);
    expect(r.stderr).toBe(
      'warning: left src/math.js as it is: it changed after the interrupted run; git status shows how it differs from the commit on refs/heads/main\n',
    );

    const again = makeRepo('basic');
    const landedAgain = await crashedAfterRef(again);
    const patch = path.join(again, '..', `${path.basename(again)}-next.patch`);
    writeFileSync(patch, '*** Begin Patch\n*** Add File: next.txt\n+next\n*** End Patch\n');
    const next = await runCli(['apply', '--repo', again, patch]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toBe(`note: recovered an interrupted apply on refs/heads/main: finished ${landedAgain}\n`);
    expect(status(again)).toBe('');

    // a command that recovers and then fails: the note comes before its error (and in its JSON)
    const third = makeRepo('basic');
    const landedThird = await crashedAfterRef(third);
    const bad = path.join(third, '..', `${path.basename(third)}-bad.patch`);
    writeFileSync(bad, '*** Begin Patch\n*** Update File: nowhere.txt\n@@\n-a\n+b\n*** End Patch\n');
    const failed = await runCli(['apply', '--repo', third, bad]);
    expect(failed.status).toBe(1);
    expect(failed.stderr.split('\n')[0]).toBe(`note: recovered an interrupted apply on refs/heads/main: finished ${landedThird}`);
    expect(failed.stderr.split('\n')[1]).toMatch(/^error: /);
  });
});
