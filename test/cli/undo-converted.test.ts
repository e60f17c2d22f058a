// Undo and redo where git converts line endings on checkout: the uncommitted work undo puts back is
// the user's bytes as they were (not run through the conversion again), and a file whose stat data
// alone changed while an undo runs (an editor re-saving the same bytes) is not taken for an edit.
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

/** A checkout whose a.txt git writes with CRLF (eol=crlf), committed with LF. */
function crlfCheckout(): string {
  const dir = makeRepo('empty');
  writeFileSync(path.join(dir, '.gitattributes'), '*.txt eol=crlf\n');
  writeFileSync(path.join(dir, 'a.txt'), 'one\r\ntwo\r\nthree\r\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'a.txt checked out with CRLF');
  return dir;
}

const update = '*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\n';

describe('undo where git converts line endings', () => {
  it('puts back uncommitted LF work byte for byte, and redo then goes ahead', async () => {
    const dir = crlfCheckout();
    const mine = 'one\ntwo\nthree\nmy line\n';
    writeFileSync(path.join(dir, 'a.txt'), mine);
    const applied = await runCli(['apply', '--json', '--dirty=include'], { cwd: dir, input: update });
    expect(applied.status, applied.stdout + applied.stderr).toBe(0);
    const undo = await runCli(['undo', '--json'], { cwd: dir });
    expect(undo.status, undo.stdout + undo.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'a.txt'), 'latin1')).toBe(mine);
    const redo = await runCli(['redo', '--json'], { cwd: dir });
    expect(redo.status, redo.stdout + redo.stderr).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a converted file only touched while the undo runs: the undo lands', async () => {
    const dir = crlfCheckout();
    const applied = await runCli(['apply', '--json'], { cwd: dir, input: update });
    expect(applied.status, applied.stdout + applied.stderr).toBe(0);
    const release = path.join(dir, '..', 'release-undo');
    const run = runCli(['undo', '--json'], { cwd: dir, env: { PATCHTX_TEST_PAUSE_AT: 'after-publish-journal', PATCHTX_TEST_PAUSE_UNTIL: release } });
    // held with everything read and the journal published, just before the files are looked at again
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    await waitFor(() => existsSync(journal) && readFileSync(journal, 'utf8').includes('"published"'), 'the undo reached its commit point');
    utimesSync(path.join(dir, 'a.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'a.txt'), 'latin1')).toBe('one\r\ntwo\r\nthree\r\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
