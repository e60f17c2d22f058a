// A remote that --push cannot push to (not configured, not a URL) is a usage error found before
// anything is written: apply --push and undo --push leave the branch, the working tree and the
// notes as they were, as the other usage errors do.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { git } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { addLine, seededRepo } from '../helpers/seeded.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  requireBuiltCli();
  isolateGitEnv();
});
afterAll(cleanupScratch);

const repo = (): string => seededRepo({ name: 'T', email: 't@example.invalid' });

describe('--push to a remote that is not there', () => {
  it('apply --push refuses before committing anything', async () => {
    const dir = repo();
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--push', 'nosuch', addLine('two'));
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.lines.at(-1).error.kind).toBe('usage');
    expect(r.lines.at(-1).error.message).toContain("no remote named 'nosuch'");
    expect(r.lines.filter((l) => l.ok === true)).toEqual([]);
    expectUntouched(dir, before);
  });

  it('apply --push FILE, where the option took the patch file for its remote, says so', async () => {
    const dir = repo();
    const before = snapshot(dir);
    const file = addLine('two');
    const r = await patchtxJson('apply', '--repo', dir, '--push', file);
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.lines.at(-1).error.message).toContain(`${file} is a file: --push took it for the remote`);
    expectUntouched(dir, before);
  });

  it('apply --push on a detached HEAD refuses before committing anything: there is no branch to push', async () => {
    const dir = repo();
    git(dir, 'checkout', '-q', '--detach');
    git(dir, 'remote', 'add', 'origin', path.join(tempDir(), 'nowhere.git'));
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.lines.at(-1).error.message).toContain('HEAD is detached');
    expect(r.lines.filter((l) => l.ok === true)).toEqual([]);
    expectUntouched(dir, before);
  });

  it('undo --push refuses before undoing anything', async () => {
    const dir = repo();
    const applied = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(applied.code, applied.err).toBe(0);
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, '--push', 'nosuch');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.lines.at(-1).error.kind).toBe('usage');
    expectUntouched(dir, before);
  });
});
