// Ctrl-C (SIGINT), a CI timeout (SIGTERM) and a closed terminal (SIGHUP) during a transaction.
// Before the commit point the run rolls back: no index.lock, no journal, the repository at the old
// state, git free to run at once. After it the run finishes. Either way the process exits with
// 128 + the signal's number. Recovery of an interrupted run is held the same way: stopped before it
// has changed anything, finished once it has begun. A real command is held at a named point,
// signalled, and let go.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

interface Ended {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Applies a patch, holds the run at `point`, sends it `signal` there, then lets it go on. */
async function signalledAt(dir: string, point: string, signal: NodeJS.Signals, ready: () => boolean, extra: string[] = []): Promise<Ended> {
  const patch = path.join(dir, '..', 'change.patch');
  writeFileSync(patch, '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n');
  const release = path.join(dir, '..', 'go');
  const child = spawn(process.execPath, [binPath(), 'apply', '--repo', dir, patch, ...extra], {
    env: { ...gitEnv, PATCHTX_TEST_PAUSE_AT: point, PATCHTX_TEST_PAUSE_UNTIL: release },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ended = new Promise<Ended>((resolve) => child.on('close', (status, sig) => resolve({ status, signal: sig, stdout, stderr })));
  await waitFor(ready, `the run reached ${point}`);
  child.kill(signal);
  // the signal is delivered before the run goes on (it is pending while the run is held)
  await new Promise((r) => setTimeout(r, 100));
  writeFileSync(release, '');
  return ended;
}

const journalOf = (dir: string): string => path.join(dir, '.git', 'patchtx', 'journal.json');

describe('a signal before the commit point', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} while the index is locked: rolled back, locks and journal removed, exit ${128 + constants.signals[signal]}`, async () => {
      const dir = makeRepo('basic');
      const before = git(dir, 'rev-parse', 'HEAD').trim();
      const r = await signalledAt(dir, 'after-index-lock', signal, () => existsSync(path.join(dir, '.git', 'index.lock')));
      expect(r.signal, r.stderr).toBe(null);
      expect(r.status, r.stderr).toBe(128 + constants.signals[signal]);
      expect(r.stderr).toMatch(new RegExp(`interrupted by ${signal}`));
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
      expect(existsSync(path.join(dir, 'landed.txt'))).toBe(false);
      expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
      expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    });
  }

  it('SIGINT with --wait: the run ends at once, it does not wait the signal out as if it were a lock', async () => {
    const dir = makeRepo('basic');
    const r = await signalledAt(dir, 'after-index-lock', 'SIGINT', () => existsSync(path.join(dir, '.git', 'index.lock')), ['--wait', '20']);
    expect(r.status, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted by SIGINT/);
    expect(r.stderr).not.toMatch(/still so after waiting/);
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it('SIGTERM with --json: one result object naming the signal', async () => {
    const dir = makeRepo('basic');
    const r = await signalledAt(
      dir,
      'after-publish-journal',
      'SIGTERM',
      () => existsSync(journalOf(dir)) && readFileSync(journalOf(dir), 'utf8').includes('"published"'),
      ['--json'],
    );
    expect(r.status, r.stderr).toBe(143);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale', signal: 'SIGTERM' });
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

describe('a signal after the commit point', () => {
  it('SIGTERM once the ref moved: the run finishes (working tree, index, note), then exits 143', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await signalledAt(dir, 'after-ref', 'SIGTERM', () => existsSync(journalOf(dir)) && git(dir, 'rev-parse', 'HEAD').trim() !== before);
    expect(r.status, r.stderr).toBe(143);
    expect(r.stdout).toMatch(/committed/);
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'notes', '--ref=patchtx', 'list', 'HEAD').trim()).not.toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });
});

/** Starts `args`, holds it at `point` until signalled there with `signal`, then lets it go on. */
async function commandSignalledAt(args: string[], point: string, signal: NodeJS.Signals, release: string): Promise<Ended> {
  const child = spawn(process.execPath, [binPath(), ...args], {
    env: { ...gitEnv, PATCHTX_TEST_PAUSE_AT: point, PATCHTX_TEST_PAUSE_UNTIL: release },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ended = new Promise<Ended>((resolve) => child.on('close', (status, sig) => resolve({ status, signal: sig, stdout, stderr })));
  await waitFor(() => existsSync(`${release}.held`), `the command reached ${point}`);
  child.kill(signal);
  // the signal is delivered before the command goes on (it is pending while the command is held)
  await new Promise((r) => setTimeout(r, 100));
  writeFileSync(release, '');
  return ended;
}

/** A repository whose last apply (adding landed.txt) was killed just after its ref moved. */
async function killedAfterRef(): Promise<{ dir: string; before: string; landed: string }> {
  const dir = makeRepo('basic');
  const before = git(dir, 'rev-parse', 'HEAD').trim();
  const patch = path.join(dir, '..', 'killed.patch');
  writeFileSync(patch, '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n');
  const r = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
  expect(r.signal, r.stderr).toBe('SIGKILL');
  const landed = git(dir, 'rev-parse', 'HEAD').trim();
  expect(landed).not.toBe(before);
  expect(existsSync(journalOf(dir))).toBe(true);
  return { dir, before, landed };
}

/** The interrupted apply of killedAfterRef was finished: working tree, index, note, nothing left. */
function expectFinished(dir: string, landed: string, opts: { note?: boolean } = {}): void {
  expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(landed);
  expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
  expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  if (opts.note !== false) expect(git(dir, 'notes', '--ref=patchtx', 'list', landed).trim()).not.toBe('');
  expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  git(dir, 'fsck', '--strict', '--no-progress');
}

describe('a signal while an interrupted transaction is recovered', () => {
  // git notes holding the notes ref's lock meanwhile makes the recovery wait for it (event-loop
  // turns in which a signal is handled) before it gives up on the note and goes on
  const notesLock = (dir: string): string => {
    mkdirSync(path.join(dir, '.git', 'refs', 'notes'), { recursive: true });
    return path.join(dir, '.git', 'refs', 'notes', 'patchtx.lock');
  };

  it('SIGTERM once patchtx recover has begun finishing it: the recovery finishes, then exits 143', async () => {
    const { dir, landed } = await killedAfterRef();
    writeFileSync(notesLock(dir), '');
    const r = await commandSignalledAt(['recover', '--repo', dir, '--json'], 'recovery-under-way', 'SIGTERM', path.join(dir, '..', 'go'));
    expect(r.signal, r.stderr).toBe(null);
    expect(r.status, r.stderr).toBe(143);
    const report = JSON.parse(r.stdout).recovered;
    expect(report).toMatchObject({ outcome: 'finished', commit: landed });
    expect(report.warnings).toContainEqual({ kind: 'note', path: '', message: expect.stringMatching(/could not be stored as a note/) });
    rmSync(notesLock(dir));
    expectFinished(dir, landed, { note: false });
  });

  it('SIGINT during the recovery at the start of another apply: the recovery finishes, the new patch is not applied, exit 130', async () => {
    const { dir, landed } = await killedAfterRef();
    writeFileSync(notesLock(dir), '');
    const patch = path.join(dir, '..', 'next.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: next.txt\n+next\n*** End Patch\n');
    const r = await commandSignalledAt(['apply', '--repo', dir, '--json', patch], 'recovery-under-way', 'SIGINT', path.join(dir, '..', 'go'));
    expect(r.signal, r.stderr).toBe(null);
    expect(r.status, r.stderr).toBe(130);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale', signal: 'SIGINT', recovered: { outcome: 'finished', commit: landed } });
    expect(existsSync(path.join(dir, 'next.txt'))).toBe(false);
    rmSync(notesLock(dir));
    expectFinished(dir, landed, { note: false });
  });

  it('SIGINT during the recovery at the start of another apply that yields nowhere: the same, not a silent exit', async () => {
    // no lock to wait on: the recovery's I/O is synchronous, so the signal reaches its handler
    // only at the check after the recovery
    const { dir, landed } = await killedAfterRef();
    const patch = path.join(dir, '..', 'next.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: next.txt\n+next\n*** End Patch\n');
    const r = await commandSignalledAt(['apply', '--repo', dir, '--json', patch], 'recovery-under-way', 'SIGINT', path.join(dir, '..', 'go'));
    expect(r.signal, r.stderr).toBe(null);
    expect(r.status, r.stderr).toBe(130);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale', signal: 'SIGINT', recovered: { outcome: 'finished', commit: landed } });
    expect(existsSync(path.join(dir, 'next.txt'))).toBe(false);
    expectFinished(dir, landed);
  });

  it('SIGTERM before the recovery changed anything: it stops, leaving the interrupted run as it was for the next command', async () => {
    const { dir, landed } = await killedAfterRef();
    const left = leftoverFiles(path.join(dir, '.git'));
    expect(left).toContain('patchtx/journal.json');
    const r = await commandSignalledAt(['recover', '--repo', dir, '--json'], 'recovery-claimed', 'SIGTERM', path.join(dir, '..', 'go'));
    expect(r.signal, r.stderr).toBe(null);
    expect(r.status, r.stderr).toBe(143);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: 'stale', signal: 'SIGTERM' });
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // exactly what the killed run left (no claim of the stopped recovery among it)
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual(left);
    expect(existsSync(path.join(dir, 'landed.txt'))).toBe(false);
    const again = await runCli(['recover', '--repo', dir, '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).recovered).toMatchObject({ outcome: 'finished', commit: landed });
    expectFinished(dir, landed);
  });
});
