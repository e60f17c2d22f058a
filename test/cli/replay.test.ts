// `patchtx replay`: the fixtures in test/logs/fixtures (replay-*) are small logs written from the
// formats' descriptions; the repositories are made with git, and every result is read back with
// git (log, trailers, ls-tree, fsck).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, patchtx, patchtxJson, useBuiltCli, runBin } from '../helpers/cli.js';
import { commitCount, git, gitEnv, rev } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { tempDir } from '../helpers/scratch.js';
import { expectFsckClean, snapshot, expectUntouched } from '../helpers/snapshot.js';
import { logFixture, repoWith } from '../helpers/replay.js';

useBuiltCli();

const fixture = logFixture;

/** A repository with one commit holding `files`. */

/** The files of a commit and their text, as git reads them. */
function treeOf(dir: string, commit = 'HEAD'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of git(dir, 'ls-tree', '-r', '--name-only', '-z', commit).split('\0')) if (p !== '') out[p] = git(dir, 'show', `${commit}:${p}`);
  return out;
}

/** The trailers git reads from a commit's message. */
const trailersOf = (dir: string, commit: string): string => git(dir, 'log', '-1', '--format=%(trailers:key=Replayed-From,key=Call-Id)', commit).trim();

describe('patchtx replay of a Codex session file', () => {
  it('applies each successful call as one commit with trailers naming its source, and leaves the failed call out', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    const base = rev(dir);
    const r = await patchtx('replay', '--repo', dir, fixture('replay-rollout.jsonl'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(commitCount(dir)).toBe(3);
    const [second, first] = git(dir, 'rev-list', '--first-parent', `${base}..HEAD`).trim().split('\n');
    expect(trailersOf(dir, first!)).toBe('Replayed-From: sess-replay\nCall-Id: call-notes');
    expect(trailersOf(dir, second!)).toBe('Replayed-From: sess-replay\nCall-Id: call-app');
    // the heredoc's `cd src` put its path below src/
    expect(git(dir, 'diff', '--name-status', first!, second!)).toBe('M\tsrc/app.txt\n');
    expect(treeOf(dir)).toEqual({ 'notes.txt': 'first note\n', 'src/app.txt': 'version 2\n' });
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(r.out).toMatch(/skipped .* entry 2 \(call-miss\) \(not successful\)/);
    expectFsckClean(dir);
  });

  it('writes nothing the second time: every call id is already on the branch', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    await patchtx('replay', '--repo', dir, fixture('replay-rollout.jsonl'));
    const head = rev(dir);
    const again = await patchtxJson('replay', '--repo', dir, fixture('replay-rollout.jsonl'));
    expect(again.code).toBe(0);
    expect(rev(dir)).toBe(head);
    expect(again.lines.slice(0, -1).map((l) => [l.callId, l.status, l.reason])).toEqual([
      ['call-notes', 'skipped', 'already_replayed'],
      ['call-miss', 'skipped', 'not_successful'],
      ['call-app', 'skipped', 'already_replayed'],
    ]);
    expect(again.json).toMatchObject({ ok: true, applied: 0, skipped: 3, head });
  });

  it('--include-failed tries the failed call too, and stops with its error naming the entry', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    const r = await patchtx('replay', '--repo', dir, '--include-failed', fixture('replay-rollout.jsonl'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/entry 2 \(call call-miss\)/);
    expect(treeOf(dir)).toEqual({ 'notes.txt': 'first note\n', 'src/app.txt': 'version 1\n' });
  });

  it('stops at a failing entry; after the fix, --continue finishes without applying anything twice', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const log = fixture('replay-stops.jsonl');
    const stopped = await patchtxJson('replay', '--repo', dir, log);
    expect(stopped.code).toBe(1);
    expect(stopped.json.ok).toBe(false);
    expect(stopped.json.error).toMatchObject({ kind: 'file_not_found', entry: 2, callId: 'call-config' });
    expect(stopped.json.error.message).toMatch(/entry 2 \(call call-config\)/);
    expect(Object.keys(treeOf(dir)).sort()).toEqual(['first.txt', 'readme.txt']);
    // the fix: the file the call expected
    writeFileSync(path.join(dir, 'config.txt'), 'debug = false\n');
    git(dir, 'add', 'config.txt');
    git(dir, 'commit', '-q', '-m', 'add config');
    const resumed = await patchtxJson('replay', '--repo', dir, '--continue', log);
    expect(resumed.code).toBe(0);
    expect(resumed.lines.slice(0, -1).map((l) => [l.callId, l.status])).toEqual([
      ['call-first', 'skipped'],
      ['call-config', 'applied'],
      ['call-third', 'applied'],
    ]);
    // an absolute path inside the session's directory is taken
    expect(treeOf(dir)).toEqual({ 'readme.txt': 'hi\n', 'first.txt': '1\n', 'config.txt': 'debug = true\n', 'third.txt': '3\n' });
    expect(
      git(dir, 'log', '--format=%(trailers:key=Call-Id,valueonly)', '--first-parent')
        .split('\n')
        .filter((l) => l !== ''),
    ).toEqual(['call-third', 'call-config', 'call-first']);
    expectFsckClean(dir);
    // nothing stopped now: there is nothing to continue
    const again = await patchtx('replay', '--repo', dir, '--continue', log);
    expect(again.code).toBe(2);
  });

  it('--skip drops the entry it stopped at, for this and later runs', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const log = fixture('replay-stops.jsonl');
    expect((await patchtx('replay', '--repo', dir, log)).code).toBe(1);
    const skipped = await patchtxJson('replay', '--repo', dir, '--skip', log);
    expect(skipped.code).toBe(0);
    expect(skipped.lines[1]).toMatchObject({ callId: 'call-config', status: 'skipped', reason: 'skipped_after_failure' });
    expect(Object.keys(treeOf(dir)).sort()).toEqual(['first.txt', 'readme.txt', 'third.txt']);
    const head = rev(dir);
    expect((await patchtx('replay', '--repo', dir, log)).code).toBe(0);
    expect(rev(dir)).toBe(head);
  });

  it('refuses an absolute path outside the session directory, naming the entry; --map takes it in', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const before = snapshot(dir);
    const r = await patchtxJson('replay', '--repo', dir, fixture('replay-outside.jsonl'));
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ kind: 'path_rejected', entry: 1, callId: 'call-etc', path: '/etc/agent.conf' });
    expectUntouched(dir, before);
    const mapped = await patchtx('replay', '--repo', dir, '--map', '/etc=etc', '--map', '/srv/agent/work=', fixture('replay-outside.jsonl'));
    expect(mapped.code).toBe(0);
    expect(treeOf(dir)).toEqual({ 'readme.txt': 'hi\n', 'etc/agent.conf': 'x\n' });
  });
});

describe('patchtx replay of Responses API items', () => {
  it('with --commit per-call, replays a create and a move, one commit each, and leaves the failed call out', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const base = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--commit', 'per-call', fixture('replay-responses.json'));
    expect(r.code).toBe(0);
    expect(r.lines.slice(0, -1).map((l) => [l.callId, l.status])).toEqual([
      ['r-create', 'applied'],
      ['r-move', 'applied'],
      ['r-failed', 'skipped'],
    ]);
    expect(commitCount(dir) - commitCount(dir, base)).toBe(2);
    expect(git(dir, 'diff', '--name-status', '-M10%', 'HEAD~1', 'HEAD')).toMatch(/^R\d+\tdocs\/guide.md\tdocs\/manual.md\n$/);
    expect(treeOf(dir)).toEqual({ 'readme.txt': 'hi\n', 'docs/manual.md': '# Guide\nstep one, then two\n' });
    expect(trailersOf(dir, 'HEAD')).toBe('Replayed-From: replay-responses.json\nCall-Id: r-move');
    expectFsckClean(dir);
  });
});

describe('patchtx replay --dry-run and --progress=jsonl', () => {
  it('--dry-run checks every entry, each on the ones before it, and writes nothing', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const before = snapshot(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--dry-run', fixture('replay-responses.json'));
    expect(r.code).toBe(0);
    expect(r.lines.slice(0, -1).map((l) => l.status)).toEqual(['checked', 'checked', 'skipped']);
    expect(r.json).toMatchObject({ dryRun: true, checked: 2, applied: 0 });
    expectUntouched(dir, before);
    expect(existsSync(path.join(dir, '.git', 'patchtx', 'replay.json'))).toBe(false);
  });

  it('--dry-run reports the entry that would fail, still writing nothing', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const before = snapshot(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--dry-run', fixture('replay-stops.jsonl'));
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ kind: 'file_not_found', entry: 2 });
    expectUntouched(dir, before);
  });

  it('--progress=jsonl writes one event per entry and a summary to stderr', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    const r = await patchtx('replay', '--repo', dir, '--progress=jsonl', fixture('replay-rollout.jsonl'));
    expect(r.code).toBe(0);
    const events = r.err
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.event, e.entry, e.callId, e.done, e.total])).toEqual([
      ['applied', 1, 'call-notes', 1, 3],
      ['skipped', 2, 'call-miss', 2, 3],
      ['applied', 3, 'call-app', 3, 3],
      ['summary', undefined, undefined, undefined, 3],
    ]);
    expect(events[0].commit).toBe(rev(dir, 'HEAD~1'));
    expect(events[2].commit).toBe(rev(dir));
    expect(events[3]).toMatchObject({ ok: true, applied: 2, skipped: 1 });
  });
});

describe('patchtx replay: input', () => {
  it('reads a log on standard input (-), naming it stdin where the log has no session id', () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const r = runBin('patchtx', ['replay', '--commit', 'per-call', '-'], {
      cwd: dir,
      input: readFileSync(fixture('replay-responses.json'), 'utf8'),
      env: { ...gitEnv, NO_COLOR: '1' },
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Replayed 3 entries: 2 applied, 1 skipped\./m);
    expect(trailersOf(dir, 'HEAD')).toBe('Replayed-From: stdin\nCall-Id: r-move');
  });

  it('--format forces the reader: a session file read as Responses items holds no patch', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    const head = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--format', 'responses-items', fixture('replay-rollout.jsonl'));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ total: 0, applied: 0 });
    expect(rev(dir)).toBe(head);
    const bad = await patchtx('replay', '--repo', dir, '--format', 'patches', fixture('replay-rollout.jsonl'));
    expect(bad.code).toBe(2);
  });

  it('a file that is no patch log is a parse_error naming the file, and nothing is written', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const before = snapshot(dir);
    const r = await patchtxJson('replay', '--repo', dir, path.join(dir, 'readme.txt'));
    expect(r.code).toBe(3);
    expect(r.json.error.kind).toBe('parse_error');
    expect(r.json.error.message).toContain('readme.txt');
    expectUntouched(dir, before);
  });
});

describe('patchtx replay of a code-mode call with two patches', () => {
  it('gives the second patch of one call its own Call-Id, so --continue after a stop between them applies it', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const log = fixture('replay-code-mode.jsonl');
    const stopped = await patchtxJson('replay', '--repo', dir, log);
    expect(stopped.code).toBe(1);
    expect(stopped.json.error).toMatchObject({ kind: 'file_not_found', entry: 2, callId: 'call-multi' });
    writeFileSync(path.join(dir, 'needs.txt'), 'before\n');
    git(dir, 'add', 'needs.txt');
    git(dir, 'commit', '-q', '-m', 'add needs.txt');
    const resumed = await patchtxJson('replay', '--repo', dir, '--continue', log);
    expect(resumed.code).toBe(0);
    expect(resumed.lines.slice(0, -1).map((l) => [l.key, l.status])).toEqual([
      ['call-multi', 'skipped'],
      ['call-multi#2', 'applied'],
    ]);
    expect(trailersOf(dir, 'HEAD')).toBe('Replayed-From: sess-code\nCall-Id: call-multi#2');
    expect(treeOf(dir)).toEqual({ 'readme.txt': 'hi\n', 'one.txt': 'one\n', 'needs.txt': 'after\n' });
    expectFsckClean(dir);
  });
});

describe('patchtx replay and a signal', () => {
  it('SIGINT during an entry: that entry finishes, no further one is started, exit 130, and --continue goes on', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const base = rev(dir);
    const release = path.join(tempDir(), 'go');
    const child = spawn(process.execPath, [binPath(), 'replay', '--commit', 'per-call', '--repo', dir, fixture('replay-responses.json')], {
      env: { ...gitEnv, PATCHTX_TEST_PAUSE_AT: 'after-ref', PATCHTX_TEST_PAUSE_UNTIL: release },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ended = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    await waitFor(() => existsSync(`${release}.held`), 'the first entry reached its commit point');
    child.kill('SIGINT');
    // the signal is pending while the run is held; then the run goes on
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(release, '');
    expect(await ended, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted by SIGINT/);
    expect(git(dir, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('1');
    expect(trailersOf(dir, 'HEAD')).toBe('Replayed-From: replay-responses.json\nCall-Id: r-create');
    const resumed = await patchtxJson('replay', '--repo', dir, '--continue', '--commit', 'per-call', fixture('replay-responses.json'));
    expect(resumed.code).toBe(0);
    expect(trailersOf(dir, 'HEAD')).toBe('Replayed-From: replay-responses.json\nCall-Id: r-move');
    expectFsckClean(dir);
  });
});

describe('patchtx replay and a change made while it runs', () => {
  it("a config change made during the first entry (user.name) is the next entry's author: what the run keeps between entries is checked before each", async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const base = rev(dir);
    const release = path.join(tempDir(), 'go');
    // held in the first entry after its identities were read, before its lock
    const child = spawn(process.execPath, [binPath(), 'replay', '--commit', 'per-call', '--repo', dir, fixture('replay-responses.json')], {
      // the identities come from the repository's config (isolateGitEnv left none in the environment)
      env: { ...process.env, PATCHTX_TEST_PAUSE_AT: 'planned-ahead', PATCHTX_TEST_PAUSE_UNTIL: release },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ended = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    await waitFor(() => existsSync(`${release}.held`), 'the first entry was planned');
    git(dir, 'config', 'user.name', 'Someone Else');
    writeFileSync(release, '');
    expect(await ended, stderr).toBe(0);
    expect(git(dir, 'log', '--reverse', '--format=%an %(trailers:key=Call-Id,valueonly,separator=)', `${base}..HEAD`).trim().split('\n')).toEqual([
      'Replay Tester r-create',
      'Someone Else r-move',
    ]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
