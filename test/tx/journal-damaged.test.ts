// A journal patchtx cannot use: valid JSON of the wrong shape (a hand edit, a disk error, a bug
// of an older version), or a journal a newer version of patchtx wrote. Every command recovers
// journals first, so a journal it chokes on would wedge the repository until the user found and
// deleted the file. A damaged one is dropped with a warning naming it; one of another version is
// left alone, and the error says which file and what to do.
import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { expectFsckClean, leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

function leaveJournal(dir: string, journal: unknown): string {
  const file = path.join(dir, '.git', 'patchtx', 'journal.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(journal));
  const hourAgo = Date.now() / 1000 - 3600;
  utimesSync(file, hourAgo, hourAgo);
  return file;
}

const PATCH = '*** Begin Patch\n*** Add File: after.txt\n+after\n*** End Patch\n';

describe('a journal patchtx cannot use', () => {
  it('of the wrong shape: dropped with a warning naming it, and the command goes on', async () => {
    const dir = makeRepo('basic');
    const file = leaveJournal(dir, {
      version: 1,
      id: 'x',
      pid: 999999,
      mark: 'zz',
      op: 'apply',
      state: 'published',
      ref: 'refs/heads/main',
      oldOid: 'zz',
      newOid: 'yy',
    });
    const r = await runCli(['apply', '--repo', dir, '--json'], { input: PATCH });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(JSON.stringify(out.recovered ?? out)).toMatch(/journal/);
    expect(r.stderr + JSON.stringify(out)).toContain('journal.json');
    expect(existsSync(file)).toBe(false);
    expect(git(dir, 'show', 'HEAD:after.txt')).toBe('after\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expectFsckClean(dir);
  });

  it('of another version: left alone, and every command says which file and what to do', async () => {
    const dir = makeRepo('basic');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const file = leaveJournal(dir, { version: 99, pid: 1, op: 'apply', state: 'published', ref: 'refs/heads/main' });
    for (const args of [
      ['recover', '--repo', dir, '--json'],
      ['apply', '--repo', dir, '--json'],
    ]) {
      const r = await runCli(args, { input: PATCH });
      expect(r.status, r.stdout + r.stderr).toBe(2);
      const error = JSON.parse(r.stdout).error;
      expect(error.kind).toBe('unsupported_repository');
      expect(error.message).toContain(file);
    }
    expect(existsSync(file)).toBe(true);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
  });
});
