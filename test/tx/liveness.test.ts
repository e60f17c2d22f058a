// Telling a live transaction from a dead one whose pid another process has now.
//
// The live cases hold a real `patchtx apply` right after its ref moved (PATCHTX_TEST_PAUSE_AT) and
// run `patchtx recover` beside it: it must back off, also in a pid namespace whose /proc is the
// host's. The dead cases kill a real apply at the same point (PATCHTX_TEST_CRASH_AT) and rewrite
// what it left so that its pid is a live `sleep` process: with the dead run's mark (the pid came
// round again) recovery must go ahead; with the sleep process's own mark it must back off.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, uptime } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';
import { parseMark, processAlive, type ProcessMark } from '../../src/tx/liveness.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const p of children.splice(0)) p.kill('SIGKILL');
});

/** A live process that is not patchtx (started through `command`, a path to sleep by default). */
function liveStranger(command = 'sleep'): number {
  const child = spawn(command, ['60'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

const onLinux = existsSync('/proc/self/stat') && existsSync('/proc/sys/kernel/random/boot_id');
const link = (p: string): string => {
  try {
    return readlinkSync(p);
  } catch {
    return '';
  }
};
/** boot id and namespaces of this process, read here (not through the code under test) */
const here = (): Pick<ProcessMark, 'boot' | 'ns'> => ({
  boot: readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim(),
  ns: `${link('/proc/self/ns/pid')},${link('/proc/self/ns/time')}`,
});
/** a process's start time in ticks, found after its command name, which the caller knows */
function ticksOf(pid: number, comm: string): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const prefix = `${pid} (${comm}) `;
  expect(stat.startsWith(prefix)).toBe(true);
  return stat.slice(prefix.length).split(' ')[19]!;
}
const markTextOf = (m: ProcessMark): string => `boot=${m.boot} ns=${m.ns} ticks=${m.ticks} uptime=${m.uptime}`;

const PATCH = '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n';

function writePatch(dir: string): string {
  const patch = path.join(dir, '..', `${path.basename(dir)}.patch`);
  writeFileSync(patch, PATCH);
  return patch;
}

/** A checkout whose apply was killed right after its ref moved. */
async function crashedRun(): Promise<{ dir: string; journalFile: string; landed: string; journal: Record<string, unknown> }> {
  const dir = makeRepo('basic');
  const upBefore = uptime();
  const killed = await runCli(['apply', '--repo', dir, writePatch(dir)], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
  const upAfter = uptime();
  expect(killed.signal).toBe('SIGKILL');
  const journalFile = path.join(dir, '.git', 'patchtx', 'journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  // the dead run recorded who it was: on Linux its start time, which is when it was spawned
  const mark = parseMark(journal.mark)!;
  expect(mark.uptime).toBeGreaterThanOrEqual(Math.floor(upBefore));
  if (onLinux) {
    expect(mark).toMatchObject(here());
    const startedAt = Number(mark.ticks) / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout);
    expect(startedAt).toBeGreaterThanOrEqual(upBefore - 1);
    expect(startedAt).toBeLessThanOrEqual(upAfter + 1);
  }
  return { dir, journalFile, journal, landed: git(dir, 'rev-parse', 'HEAD').trim() };
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

describe('a live transaction', () => {
  it('is left to its process: recover backs off while it runs, and it then lands', async () => {
    const dir = makeRepo('basic');
    const release = path.join(dir, '..', `${path.basename(dir)}.go`);
    const journalFile = path.join(dir, '.git', 'patchtx', 'journal.json');
    const writer = runCli(['apply', '--repo', dir, writePatch(dir)], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-ref', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    await waitFor(() => existsSync(journalFile) && JSON.parse(readFileSync(journalFile, 'utf8')).state === 'published', 'the writer published');
    const pid = JSON.parse(readFileSync(journalFile, 'utf8')).pid;
    await expectStale(dir, pid, /in the middle of a transaction/);
    writeFileSync(release, '');
    const done = await writer;
    expect(done.status, done.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  // unshare -Urpf without --mount-proc: new pid namespace (our pid is 1 there), the host's /proc
  const unshareWorks = onLinux && spawnSync('unshare', ['-Urpf', 'true']).status === 0;
  it.runIf(unshareWorks)('is left to its process in a pid namespace whose /proc is not its own', () => {
    const dir = makeRepo('basic');
    const release = path.join(dir, '..', `${path.basename(dir)}.go`);
    const out = path.join(dir, '..', `${path.basename(dir)}.out`);
    const journalFile = path.join(dir, '.git', 'patchtx', 'journal.json');
    const script = [
      'PATCHTX_TEST_PAUSE_AT=after-ref PATCHTX_TEST_PAUSE_UNTIL="$RELEASE" "$NODE" "$BIN" apply --repo "$DIR" "$PATCH" >/dev/null 2>&1 &',
      'writer=$!',
      'i=0; while ! grep -q published "$JOURNAL" 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done',
      'cp "$JOURNAL" "$OUT.journal"',
      '"$NODE" "$BIN" recover --repo "$DIR" --json > "$OUT.recover"; echo $? > "$OUT.recover-status"',
      ': > "$RELEASE"; wait $writer; echo $? > "$OUT.writer-status"',
    ].join('\n');
    const r = spawnSync('unshare', ['-Urpf', 'sh', '-c', script], {
      env: { ...gitEnv, NODE: process.execPath, BIN: binPath(), DIR: dir, PATCH: writePatch(dir), RELEASE: release, OUT: out, JOURNAL: journalFile },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    // /proc there answers for the host's pids: the writer records no start time read from it
    expect(JSON.parse(readFileSync(`${out}.journal`, 'utf8')).mark).toMatch(/^uptime=[\d.]+$/);
    expect(readFileSync(`${out}.recover-status`, 'utf8').trim(), readFileSync(`${out}.recover`, 'utf8')).toBe('5');
    expect(JSON.parse(readFileSync(`${out}.recover`, 'utf8')).error.message).toMatch(/in the middle of a transaction/);
    expect(readFileSync(`${out}.writer-status`, 'utf8').trim()).toBe('0');
    expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

describe('a dead run whose pid another process has now', () => {
  it.runIf(onLinux)('journal: recovered when the live pid is another process (its start differs), refused while it is the run', async () => {
    const { dir, journalFile, landed, journal } = await crashedRun();
    const stranger = liveStranger();
    const theirs = markTextOf({ ...here(), ticks: ticksOf(stranger, 'sleep'), uptime: uptime() });
    // the live process's own mark: it is the run as far as anyone can tell, so patchtx waits
    rewriteJournal(journalFile, (j) => {
      j.pid = stranger;
      j.mark = theirs;
    });
    await expectStale(dir, stranger, /in the middle of a transaction/);
    // the dead run's mark with the stranger's pid: the pid was reused. A temporary file the run
    // left in the working tree goes too, though its name carries a live pid; one of a live
    // recovery (another pid) stays.
    rewriteJournal(journalFile, (j) => {
      j.mark = journal.mark;
    });
    writeFileSync(path.join(dir, `.landed.txt.patchtx-${stranger}-0123abcd`), 'land');
    const otherLive = liveStranger();
    writeFileSync(path.join(dir, `.landed.txt.patchtx-${otherLive}-4567cdef`), 'land');
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, `.landed.txt.patchtx-${stranger}-0123abcd`))).toBe(false);
    expect(existsSync(path.join(dir, `.landed.txt.patchtx-${otherLive}-4567cdef`))).toBe(true);
    rmSync(path.join(dir, `.landed.txt.patchtx-${otherLive}-4567cdef`));
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished', commit: landed });
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('journal with an uptime-only mark: a restart since (uptime far lower now) means dead; a lower one within the margin does not', async () => {
    const { dir, journalFile, landed } = await crashedRun();
    const stranger = liveStranger();
    rewriteJournal(journalFile, (j) => {
      j.pid = stranger;
      j.mark = `uptime=${Math.floor(uptime()) + 60}`;
    });
    await expectStale(dir, stranger, /in the middle of a transaction/);
    rewriteJournal(journalFile, (j) => {
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

  it.runIf(onLinux)(
    'recovery claims: passed over (and removed once the journal is gone) when the pid is another process, respected while it is the recoverer',
    async () => {
      const { dir, journalFile, landed } = await crashedRun();
      const stranger = liveStranger();
      const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
      const patchtxDir = path.join(dir, '.git', 'patchtx');
      const claim = path.join(patchtxDir, `recovering-${journal.id}.0`);
      const strangers = { ...here(), ticks: ticksOf(stranger, 'sleep'), uptime: uptime() };
      writeFileSync(claim, `${stranger} ${markTextOf(strangers)}\n`);
      await expectStale(dir, stranger, /is recovering an interrupted transaction/);
      // a recovery that died after its pid came round again: the start recorded is another's
      writeFileSync(claim, `${stranger} ${markTextOf({ ...strangers, ticks: '1' })}\n`);
      await expectRecovered(dir, landed);
      const claims = (): string[] => readdirSync(patchtxDir).filter((n) => n.startsWith('recovering-'));
      expect(claims()).toEqual([]);
      // claims on journals that are gone: a dead recoverer's goes at the next command, a live one's stays
      writeFileSync(path.join(patchtxDir, 'recovering-0123456789abcdef.0'), `${stranger} ${markTextOf({ ...strangers, ticks: '1' })}\n`);
      writeFileSync(path.join(patchtxDir, 'recovering-fedcba9876543210.0'), `${stranger} ${markTextOf(strangers)}\n`);
      expect((await runCli(['recover', '--repo', dir, '--json'])).status).toBe(0);
      expect(claims()).toEqual(['recovering-fedcba9876543210.0']);
    },
  );
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

  it.runIf(onLinux)('a Linux mark must fit the process that has the pid now, whatever its command name holds', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-comm-'));
    try {
      // a command name with a space and a closing parenthesis, as /proc/<pid>/stat shows it
      const sleepPath = spawnSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(sleepPath, path.join(dir, 'a) b'));
      const stranger = liveStranger(path.join(dir, 'a) b'));
      const own: ProcessMark = { ...here(), ticks: ticksOf(stranger, 'a) b'), uptime: uptime() };
      expect(processAlive(stranger, own)).toBe(true);
      expect(processAlive(stranger, { ...own, ticks: String(Number(own.ticks) + 1) })).toBe(false);
      expect(processAlive(stranger, { ...own, boot: '00000000-0000-0000-0000-000000000000' })).toBe(false);
      // another namespace: start times are not comparable, so nothing proves it dead
      expect(processAlive(stranger, { ...own, ns: 'pid:[1],', ticks: '1' })).toBe(true);
      // with a Linux mark on the same boot, the uptime says nothing more
      expect(processAlive(stranger, { ...own, uptime: uptime() + 86_400 })).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parseMark keeps what it knows and drops malformed parts', () => {
    expect(parseMark('boot=ab-12 ns=pid:[4026531836],time:[4026531834] ticks=42 uptime=10.5')).toEqual({
      boot: 'ab-12',
      ns: 'pid:[4026531836],time:[4026531834]',
      ticks: '42',
      uptime: 10.5,
    });
    expect(parseMark('ticks=4x2 uptime= ns=a;b other=1 uptime')).toEqual({});
    expect(parseMark(undefined)).toBeUndefined();
  });
});
