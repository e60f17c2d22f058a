// A dead run's journal (or recovery claim) whose pid now belongs to another live process must not
// block the checkout: after a reboot or a long uptime, pids come round again. Each case kills a
// real `patchtx apply` right after the ref moved, then rewrites what it left so that its pid is a
// live `sleep` process, with the dead run's mark (the pid reused) or with the sleep process's own
// (a live holder). The live holder must still make patchtx back off.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { uptime } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, leftoverFiles, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { parseMark, processAlive } from '../../src/tx/liveness.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const sleepers: ChildProcess[] = [];
afterEach(() => {
  for (const p of sleepers.splice(0)) p.kill('SIGKILL');
});

/** A live process that is not patchtx. */
function liveStranger(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  sleepers.push(child);
  return child.pid!;
}

const onLinux = existsSync('/proc/self/stat') && existsSync('/proc/sys/kernel/random/boot_id');

/** The mark a process would have written, read here straight from /proc (Linux). */
function markOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
  return `boot=${boot} ticks=${ticks} uptime=${uptime()}`;
}

const PATCH = '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n';

/** A checkout whose apply was killed right after its ref moved; returns the journal's file. */
async function crashedRun(): Promise<{ dir: string; journalFile: string; landed: string }> {
  const dir = makeRepo('basic');
  const patch = path.join(dir, '..', `${path.basename(dir)}.patch`);
  writeFileSync(patch, PATCH);
  const killed = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
  expect(killed.signal).toBe('SIGKILL');
  const journalFile = path.join(dir, '.git', 'patchtx', 'journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  // the dead run recorded who it was
  expect(journal.mark).toMatch(onLinux ? /^boot=[0-9a-f-]+ ticks=\d+ uptime=[\d.]+$/ : /^uptime=[\d.]+$/);
  return { dir, journalFile, landed: git(dir, 'rev-parse', 'HEAD').trim() };
}

function rewriteJournal(file: string, change: (j: Record<string, unknown>) => void): void {
  const journal = JSON.parse(readFileSync(file, 'utf8'));
  change(journal);
  writeFileSync(file, JSON.stringify(journal, null, 2) + '\n');
}

async function expectRecovered(dir: string, landed: string): Promise<void> {
  const r = await runCli(['recover', '--repo', dir, '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished', commit: landed });
  expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
  expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
}

async function expectStale(dir: string, pid: number, what: RegExp): Promise<void> {
  const r = await runCli(['recover', '--repo', dir, '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(5);
  const error = JSON.parse(r.stdout).error;
  expect(error.kind).toBe('stale');
  expect(error.message).toMatch(what);
  expect(error.message).toContain(`pid ${pid}`);
  // nothing was finished meanwhile
  expect(existsSync(path.join(dir, 'landed.txt'))).toBe(false);
}

describe('a dead run whose pid another process has now', () => {
  it.runIf(onLinux)('journal: recovered when the live pid is another process (its start differs), refused while it is the run', async () => {
    const { dir, journalFile, landed } = await crashedRun();
    const stranger = liveStranger();
    // the live process's own mark: it is the run as far as anyone can tell, so patchtx waits
    rewriteJournal(journalFile, (j) => {
      j.pid = stranger;
      j.markSaved = j.mark;
      j.mark = markOf(stranger);
    });
    await expectStale(dir, stranger, /in the middle of a transaction/);
    // the dead run's mark with the stranger's pid: the pid was reused. A temporary file the run
    // left in the working tree goes too, though its name carries a live pid.
    rewriteJournal(journalFile, (j) => {
      j.mark = j.markSaved;
      delete j.markSaved;
    });
    writeFileSync(path.join(dir, `.landed.txt.patchtx-${stranger}-0123abcd`), 'land');
    await expectRecovered(dir, landed);
  });

  it('journal: a mark made with a higher uptime than the machine has now means a reboot since', async () => {
    const { dir, journalFile, landed } = await crashedRun();
    const stranger = liveStranger();
    rewriteJournal(journalFile, (j) => {
      j.pid = stranger;
      j.mark = `uptime=${Math.ceil(uptime()) + 86_400}`;
    });
    await expectRecovered(dir, landed);
  });

  it('journal without a mark (written before marks existed): a live pid still counts as the run', async () => {
    const { dir, journalFile } = await crashedRun();
    const stranger = liveStranger();
    rewriteJournal(journalFile, (j) => {
      j.pid = stranger;
      delete j.mark;
    });
    await expectStale(dir, stranger, /in the middle of a transaction/);
  });

  it.runIf(onLinux)('recovery claim: passed over when its pid is another process, respected while it is the recoverer', async () => {
    const { dir, journalFile, landed } = await crashedRun();
    const stranger = liveStranger();
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    const claim = path.join(dir, '.git', 'patchtx', `recovering-${journal.id}.0`);
    writeFileSync(claim, `${stranger} ${markOf(stranger)}\n`);
    await expectStale(dir, stranger, /is recovering an interrupted transaction/);
    // a recovery that died after its pid came round again: the start recorded is another's
    writeFileSync(claim, `${stranger} ${markOf(stranger).replace(/ticks=\d+/, 'ticks=1')}\n`);
    await expectRecovered(dir, landed);
    expect(readdirSync(path.join(dir, '.git', 'patchtx')).filter((n) => n.startsWith('recovering-'))).toEqual([]);
  });
});

describe('processAlive', () => {
  it('this process and a live child are alive; an exited child is not', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const stranger = liveStranger();
    expect(processAlive(stranger)).toBe(true);
    const done = spawn('true');
    await new Promise((resolve) => done.on('exit', resolve));
    expect(processAlive(done.pid!)).toBe(false);
  });

  it.runIf(onLinux)('a mark must fit the process that has the pid now', () => {
    const stranger = liveStranger();
    const own = parseMark(markOf(stranger))!;
    expect(processAlive(stranger, own)).toBe(true);
    expect(processAlive(stranger, { ...own, ticks: String(Number(own.ticks) + 1) })).toBe(false);
    expect(processAlive(stranger, { ...own, boot: '00000000-0000-0000-0000-000000000000' })).toBe(false);
    expect(processAlive(stranger, { ...own, uptime: uptime() + 3600 })).toBe(false);
  });

  it('parseMark keeps what it knows and drops malformed parts', () => {
    expect(parseMark('boot=ab-12 ticks=42 uptime=10.5')).toEqual({ boot: 'ab-12', ticks: '42', uptime: 10.5 });
    expect(parseMark('ticks=4x2 uptime= other=1 uptime')).toEqual({});
    expect(parseMark(undefined)).toBeUndefined();
  });
});
