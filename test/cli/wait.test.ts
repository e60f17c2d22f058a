// --wait SECONDS: a transaction waits for another one's lock instead of failing on it. The lock
// is held by a lock file, as a running git or patchtx holds it, and let go while the command waits.
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

const patch = () => patchFile(v4a('*** Add File: waited.txt', '+w'));

describe('--wait', () => {
  it('without it, a held lock is stale (exit 5); with it, the command goes ahead once the lock is let go', async () => {
    const dir = makeRepo('basic');
    const lock = path.join(dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    const before = snapshot(dir);
    const now = await runCli(['apply', '--repo', dir, patch()]);
    expect(now.status).toBe(5);
    expect(now.stderr).toMatch(/index\.lock/);
    const waiting = runCli(['apply', '--repo', dir, '--wait', '60', patch()]);
    // let go once the waiting run has had time to find the lock (it succeeds either way)
    await new Promise((r) => setTimeout(r, 300));
    rmSync(lock);
    const r = await waiting;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(commitCount(dir)).toBe(3);
    expect(git(dir, 'show', 'HEAD:waited.txt')).toBe('w\n');
    expect(before.head).not.toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expectFsckClean(dir);
  });

  it('a lock that stays: stale after the wait, saying how long it waited; nothing changes', async () => {
    const dir = makeRepo('bare');
    const lock = path.join(dir, 'refs', 'heads', 'bot.lock');
    writeFileSync(lock, '');
    const before = snapshot(dir);
    const r = await runCli(['apply', '--repo', dir, '--ref', 'bot', '--base', 'main', '--wait', '0.5', '--json', patch()]);
    expect(r.status).toBe(5);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale', waited: 0.5, lockFile: lock });
    expect(JSON.parse(r.stdout).error.message).toMatch(/\(still so after waiting 0\.5 s\)$/);
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
    // the ref lock is met at the commit point: the objects written for it stay unreachable, as
    // after any stale there; the refs are as they were
    expect(snapshot(dir).refs).toEqual(before.refs);
    expectFsckClean(dir);
  });

  it('a branch that moved is not waited out, and a bad value is a usage error', async () => {
    const dir = makeRepo('basic');
    const r = await runCli(['apply', '--repo', dir, '--expect-head', '0000000', '--wait', '30', patch()]);
    expect(r.status).toBe(5);
    expect(r.stderr).not.toMatch(/waiting/);
    const bad = await runCli(['undo', '--repo', dir, '--wait', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("error: --wait wants a number of seconds, got 'soon'\n");
  });
});

describe('apply_patch waits for locks by itself', () => {
  const applyPatchBin = (): string => path.join(path.dirname(binPath()), 'apply_patch.cjs');
  const run = (dir: string, text: string, env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [applyPatchBin(), text], { cwd: dir, env: { ...gitEnv, ...env } });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (status) => resolve({ status, stderr }));
    });

  it('ten calls at once on different files all land, one commit each', async () => {
    const dir = makeRepo('basic');
    const before = commitCount(dir);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => run(dir, v4a(`*** Add File: agent-${i}.txt`, `+${i}`))));
    for (const r of results) expect(r.status, r.stderr).toBe(0);
    expect(commitCount(dir)).toBe(before + 10);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('PATCHTX_WAIT=0: a held lock fails at once, as before', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, '.git', 'index.lock'), '');
    const r = await run(dir, v4a('*** Add File: x.txt', '+x'), { PATCHTX_WAIT: '0' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/index\.lock/);
  });
});
