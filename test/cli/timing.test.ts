// Timing marks (src/timing.ts), which the benchmark reads to say where a transaction's time goes:
// with PATCHTX_TIMING naming a file, each apply appends one record of its phases there; set to 1,
// the built program writes the record on standard error; unset, it writes none. The commit made is
// the same either way.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtx, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { BASIC_PATCH, cleanupScratch, isolateGitEnv, patchFile, tempDir, withEnv } from '../helpers/scratch.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

const PHASES = [
  'parse',
  'open',
  'target',
  'plan ahead',
  'journal and lock',
  'load touched',
  'plan',
  'objects: hash',
  'checkout checks',
  'objects: write',
  'ref and journal',
  'note',
  'working tree',
  'index',
  'settle and journal',
  'fold packs',
  'result',
];

describe('timing marks', () => {
  it('PATCHTX_TIMING=<file>: one apply appends one record whose phases add up to its total', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const file = path.join(tempDir(), 'timing.jsonl');
    const r = await withEnv({ PATCHTX_TIMING: file }, () => patchtx('apply', '--repo', dir, '-m', 'timed', patchFile(BASIC_PATCH)));
    expect(r.code).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%P %s').trim()).toBe(`${before} timed`);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(Object.keys(record.phases)).toEqual(PHASES);
    for (const p of PHASES) expect(record.phases[p]).toBeGreaterThanOrEqual(0);
    const sum = PHASES.reduce((a, p) => a + record.phases[p], 0);
    expect(Math.abs(sum - record.total)).toBeLessThan(0.05);
    expect(record.total).toBeGreaterThan(0);
  });

  it('the built program: PATCHTX_TIMING=1 puts the record on standard error, unset nothing', async () => {
    const dir = makeRepo('basic');
    const count = commitCount(dir);
    const patch = patchFile(BASIC_PATCH);
    const off = await runCli(['apply', '--repo', dir, '-m', 'untimed', patch], { env: { PATCHTX_TIMING: undefined } });
    expect(off.status).toBe(0);
    expect(off.stderr).toBe('');
    git(dir, 'reset', '-q', '--hard', 'HEAD~1');
    const on = await runCli(['apply', '--repo', dir, '-m', 'timed', patch], { env: { PATCHTX_TIMING: '1' } });
    expect(on.status).toBe(0);
    const records = on.stderr
      .split('\n')
      .filter((l) => l.startsWith('{"timing":'))
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0].phases)).toEqual(PHASES);
    expect(records[0].at).toBeGreaterThan(0); // the process's start-up, before the transaction
    expect(commitCount(dir)).toBe(count + 1);
  });
});
