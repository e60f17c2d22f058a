// Several commands starting at once next to a journal left by a dead run: each tries to claim its
// recovery (journal.ts), and one that finds a claim there reads whose it is. That claim can go in
// between (its recovery gave up, or finished and removed it): the command must try again, not
// fail on the file it no longer finds.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

const claims = (dir: string): string[] => readdirSync(path.join(dir, '.git', 'patchtx')).filter((n) => n.startsWith('recovering-'));

describe('a recovery claim that goes while another command reads it', () => {
  it('is claimed again, and the interrupted run is recovered', async () => {
    const dir = makeRepo('basic');
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n');
    expect((await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } })).signal).toBe('SIGKILL');
    // a recovery killed once it holds its claim: the claim of a dead process stays
    expect((await runCli(['recover', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'recovery-claimed' } })).signal).toBe('SIGKILL');
    const [left] = claims(dir);
    expect(left).toBeDefined();
    // the next recovery finds that claim taken, and is held before it reads whose it is
    const release = path.join(dir, '..', 'go');
    const run = runCli(['recover', '--repo', dir, '--json'], { env: { PATCHTX_TEST_PAUSE_AT: 'claim-exists', PATCHTX_TEST_PAUSE_UNTIL: release } });
    await waitFor(() => existsSync(`${release}.held`), 'the recovery found the claim taken');
    rmSync(path.join(dir, '.git', 'patchtx', left!));
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished' });
    expect(git(dir, 'show', 'HEAD:landed.txt')).toBe('landed\n');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expectFsckClean(dir);
  });
});
