// The warnings of undo, redo and recover carry a kind (WARNING_KINDS), a message and the path
// they are about, as apply's do, so a program reading --json can act on them without parsing the
// sentence. Each case brings a warning about in a real repository (a run held at a named point or
// killed after its commit point, a checkout switched meanwhile, a journal left empty) and reads
// the built CLI's --json; git status cross-checks what the warning says was left.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, cliOk, requireBuiltCli, runCli, type CliResult } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const PATCH = '*** Begin Patch\n*** Update File: src/math.js\n@@\n-  return a + b;\n+  return a + b + 0;\n*** End Patch\n';

const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

function patchFile(dir: string): string {
  const file = path.join(dir, '..', `${path.basename(dir)}.patch`);
  writeFileSync(file, PATCH);
  return file;
}

/**
 * Runs `patchtx ARGS` held right after it moved the ref to `to`, saves src/math.js meanwhile (as an
 * editor would), then lets it finish; its exit status must be 0.
 */
async function savedWhileRunning(dir: string, args: string[], to: string): Promise<CliResult> {
  const release = path.join(dir, '..', `${path.basename(dir)}-${args[0]}.go`);
  const run = runCli([...args, '--repo', dir], { env: { PATCHTX_TEST_PAUSE_AT: 'after-ref', PATCHTX_TEST_PAUSE_UNTIL: release } });
  await waitFor(() => rev(dir) === to, `the ${args[0]} moved the ref`);
  writeFileSync(path.join(dir, 'src/math.js'), `saved during the ${args[0]}\n`);
  writeFileSync(release, '');
  const r = await run;
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r;
}

const leftWhileRunning = (p: string) => ({
  kind: 'note',
  path: p,
  message: `left ${p} as it is: it changed while the transaction ran; git status shows how it differs from the commit on refs/heads/main`,
});

describe('undo and redo', () => {
  it('a file saved while an undo, then a redo, ran is left as it is: a note warning naming the path', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    cliOk(['apply', '--repo', dir, patchFile(dir)]);
    const applied = rev(dir);

    const undone = JSON.parse((await savedWhileRunning(dir, ['undo', '--json'], base)).stdout);
    expect(undone).toMatchObject({ action: 'reset', commit: base, warnings: [leftWhileRunning('src/math.js')] });
    expect(status(dir)).toBe(' M src/math.js\n');

    git(dir, 'checkout', '--', 'src/math.js');
    const redone = JSON.parse((await savedWhileRunning(dir, ['redo', '--json'], applied)).stdout);
    expect(redone).toMatchObject({ action: 'fast-forward', commit: applied, warnings: [leftWhileRunning('src/math.js')] });
    expect(status(dir)).toBe(' M src/math.js\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it('in text, the same warning is a warning: line on stderr', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    cliOk(['apply', '--repo', dir, patchFile(dir)]);
    const r = await savedWhileRunning(dir, ['undo'], base);
    expect(r.stderr).toBe(`warning: ${leftWhileRunning('src/math.js').message}\n`);
  });
});

describe('recover', () => {
  it('a checkout switched to another branch since the run died: checkout_switched, naming the ref', async () => {
    const dir = makeRepo('basic');
    const killed = await runCli(['apply', '--repo', dir, patchFile(dir)], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const landed = rev(dir);
    // HEAD names another branch; the index and working tree are not touched (the run holds index.lock)
    git(dir, 'update-ref', 'refs/heads/other', landed);
    git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/other');

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', commit: landed });
    expect(report.warnings).toEqual([
      {
        kind: 'checkout_switched',
        path: '',
        ref: 'refs/heads/main',
        message: 'this checkout no longer has refs/heads/main checked out; its working tree and index were left as they are',
      },
    ]);
    // left as they are: index and working tree still hold the file as it was before the run,
    // which git shows as a staged change against the branch now checked out (at the commit)
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b;\n');
    expect(status(dir)).toBe('M  src/math.js\n');
  });

  it('an empty journal left by a run that died while starting: journal_removed, with the reason', async () => {
    const dir = makeRepo('basic');
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    mkdirSync(path.dirname(journal), { recursive: true });
    writeFileSync(journal, '');
    // older than the grace period a starting run is given
    const old = new Date(Date.now() - 60_000);
    utimesSync(journal, old, old);

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toEqual({
      outcome: 'dropped',
      warnings: [
        {
          kind: 'journal_removed',
          path: '',
          reason: 'empty',
          message: 'removed an empty journal left by a run that died while starting',
        },
      ],
    });
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(status(dir)).toBe('');
  });
});
