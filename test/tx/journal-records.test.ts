// The journal's later states are appended to it as records of their own, one JSON line each, and
// recovery acts on the last complete one: a run killed while appending its published record leaves
// that record cut short, and recovery passes over it to the state the run was really in (nothing
// published, the ref not moved). The real git CLI checks the repository afterwards.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { expectFsckClean, leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const PATCH = '*** Begin Patch\n*** Update File: README.md\n@@\n-# Sample\n+# Sample, patched\n*** Add File: added.txt\n+added\n*** End Patch\n';

function writePatch(dir: string): string {
  const file = path.join(dir, '..', 'change.patch');
  writeFileSync(file, PATCH);
  return file;
}

const journalOf = (dir: string): string => path.join(dir, '.git', 'patchtx', 'journal.json');

describe('the journal as records', () => {
  it('keeps the file it was created as and appends the published state to it', async () => {
    const dir = makeRepo('basic');
    const journal = journalOf(dir);
    const release = path.join(dir, '..', 'go');
    const run = runCli(['apply', '--repo', dir, writePatch(dir)], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-publish-journal', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    await waitFor(() => existsSync(`${release}.held`), 'the run published its journal');
    const text = readFileSync(journal, 'utf8');
    const links = statSync(journal).nlink;
    writeFileSync(release, '');
    expect((await run).status).toBe(0);
    expect(text.endsWith('\n')).toBe(true);
    const records = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.state)).toEqual(['prepared', 'published']);
    expect(records[0].id).toBe(records[1].id);
    expect(records[1].paths.sort()).toEqual(['README.md', 'added.txt']);
    // the temporary file it was written into is gone: the journal has one name
    expect(links).toBe(1);
    expect(existsSync(journal)).toBe(false);
    expect(git(dir, 'show', 'HEAD:added.txt')).toBe('added\n');
  });

  it('killed while appending the published record: the cut record is passed over and the run dropped', async () => {
    const dir = makeRepo('basic');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const killed = await runCli(['apply', '--repo', dir, writePatch(dir)], { env: { PATCHTX_TEST_CRASH_AT: 'mid-publish-journal' } });
    expect(killed.signal).toBe('SIGKILL');
    const text = readFileSync(journalOf(dir), 'utf8');
    const [first, cut] = text.split('\n');
    expect(JSON.parse(first!).state).toBe('prepared');
    expect(cut).toContain('"published"');
    expect(() => JSON.parse(cut!)).toThrow();
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(true);
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'dropped', ref: 'refs/heads/main' });
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expectFsckClean(dir);
  });

  it('a line that is not a record before the last makes the journal unusable, not a guess', async () => {
    const dir = makeRepo('basic');
    const killed = await runCli(['apply', '--repo', dir, writePatch(dir)], { env: { PATCHTX_TEST_CRASH_AT: 'after-publish-journal' } });
    expect(killed.signal).toBe('SIGKILL');
    const file = journalOf(dir);
    const [first, second] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, `${first}\nnot a record\n${second}\n`);
    const r = await runCli(['recover', '--repo', dir, '--json']);
    // a file of an unreadable journal is given the grace of a run that is starting
    expect(r.status, r.stderr + r.stdout).toBe(5);
    expect(JSON.parse(r.stdout).error.message).toMatch(/starting/);
  });
});
