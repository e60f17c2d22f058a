// The library's replay: `repo.replay(log, options)` with the log as text or as an array, its
// argument checks, and its result, the objects `patchtx replay --json` prints. The repositories
// are made with git and read back with git. A replay runs its entries through the repository
// object's kept state (tx/warm.ts): what changes between two entries must still be seen.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';
import { logFixture, repoWith as sharedRepoWith } from '../helpers/replay.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const fixture = logFixture;

const repoWith = (files: Record<string, string>): string => sharedRepoWith(files, { name: 'Library Replayer', email: 'library@tests.invalid' });

describe('repo.replay', () => {
  it('replays a list of Responses items given as an array, returning the summary and one object per entry', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const base = rev(dir);
    const items = JSON.parse(readFileSync(fixture('replay-responses.json'), 'utf8')) as unknown[];
    const seen: string[] = [];
    const repo = await openRepository({ dir });
    const r = await repo.replay(items, { name: 'items.json', commit: 'per-call', onEntry: (e, p) => seen.push(`${e.callId} ${p.done}/${p.total}`) });
    expect(r).toMatchObject({ ok: true, dryRun: false, total: 3, applied: 2, skipped: 1, head: rev(dir) });
    expect(r.entries.map((e) => [e.log, e.callId, e.status, e.commit])).toEqual([
      ['items.json', 'r-create', 'applied', rev(dir, 'HEAD~1')],
      ['items.json', 'r-move', 'applied', rev(dir)],
      ['items.json', 'r-failed', 'skipped', null],
    ]);
    expect(seen).toEqual(['r-create 1/3', 'r-move 2/3', 'r-failed 3/3']);
    expect(git(dir, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('2');
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Replayed-From,valueonly)').trim()).toBe('items.json');
    expectFsckClean(dir);
  });

  it('gives the objects the CLI prints with --json', async () => {
    const dir = repoWith({ 'src/app.txt': 'version 1\n' });
    const log = fixture('replay-rollout.jsonl');
    const cli = await patchtxJson('replay', '--repo', dir, '--dry-run', log);
    expect(cli.code).toBe(0);
    const lib = await (await openRepository({ dir })).replay(readFileSync(log, 'utf8'), { name: log, dryRun: true });
    const { entries, ...summary } = lib;
    expect(entries).toEqual(cli.lines.slice(0, -1));
    expect(summary).toEqual(cli.json);
  });

  it('replays export records given as an array, with their metadata, to the same commits', async () => {
    const a = repoWith({ 'a.txt': 'one\n' });
    const base = rev(a);
    for (const text of ['two', 'three']) {
      const r = await patchtx('apply', '--repo', a, patchFile(v4a('*** Update File: a.txt', '@@', `-${text === 'two' ? 'one' : 'two'}`, `+${text}`)));
      expect(r.code, r.err).toBe(0);
    }
    const exported = await patchtx('export', '--repo', a);
    const records = exported.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const b = repoWith({ 'a.txt': 'one\n' });
    git(b, 'fetch', '-q', a, base);
    git(b, 'reset', '-q', '--hard', base);
    const r = await (await openRepository({ dir: b })).replay(records, { keepMetadata: true });
    expect(r.applied).toBe(2);
    expect(rev(b)).toBe(rev(a));
  });

  it('refuses a log that is neither text nor an array, and options it does not know or of the wrong type, writing nothing', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const items = readFileSync(fixture('replay-responses.json'), 'utf8');
    const cases: [unknown, unknown, RegExp][] = [
      [42, {}, /the log must be a string .* got a number/],
      [items, { commitEach: 'call' }, /options\.commitEach is not an option/],
      [items, { commit: 'weekly' }, /options\.commit must be 'per-call' or 'per-turn' or 'single'/],
      [items, { onEntry: 'print' }, /options\.onEntry must be a function/],
      [items, { maps: '/srv=.' }, /options\.maps must be an array of strings/],
      [items, { name: '' }, /options\.name must name the log/],
    ];
    for (const [log, options, message] of cases) {
      const e = await rejection(repo.replay(log as string, options as object));
      expect(e.kind).toBe('usage');
      expect(e.message).toMatch(message);
    }
    const notALog = await rejection(repo.replay('just some text\n'));
    expect(notALog.kind).toBe('parse_error');
    expectUntouched(dir, before);
  });
});

/** A Responses API call updating `file` from `from` to `to`, and its successful output. */
function updateCall(id: string, file: string, from: string, to: string): unknown[] {
  return [
    { type: 'apply_patch_call', call_id: id, status: 'completed', operation: { type: 'update_file', path: file, diff: `@@\n-${from}\n+${to}\n` } },
    { type: 'apply_patch_call_output', call_id: id, status: 'completed', output: 'done' },
  ];
}

describe('repo.replay and changes made between its entries', () => {
  it('sees a config change, a git add and an edit made after an entry (from onEntry) at the next entries, and stops where a run of its own would', async () => {
    const dir = repoWith({ 'a.txt': 'a one\n', 'b.txt': 'b one\n', 'c.txt': 'c one\n' });
    const base = rev(dir);
    const items = [
      ...updateCall('c-a', 'a.txt', 'a one', 'a two'),
      ...updateCall('c-b', 'b.txt', 'b one', 'b two'),
      ...updateCall('c-c', 'c.txt', 'c one', 'c two'),
    ];
    const repo = await openRepository({ dir });
    const between = (e: { callId: string | null }): void => {
      if (e.callId === 'c-a') {
        git(dir, 'config', 'user.name', 'Someone Else');
        // staged work the next entry's index update must keep
        writeFileSync(path.join(dir, 'd.txt'), 'staged by hand\n');
        git(dir, 'add', 'd.txt');
      }
      if (e.callId === 'c-b') writeFileSync(path.join(dir, 'c.txt'), 'c edited by hand\n');
    };
    const e = await rejection(repo.replay(items, { name: 'items.json', commit: 'per-call', onEntry: between }));
    expect(e.kind).toBe('dirty');
    expect(e.message).toMatch(/items\.json, entry 3/);
    expect(git(dir, 'log', '--reverse', '--format=%an %(trailers:key=Call-Id,valueonly,separator=)', `${base}..HEAD`).trim().split('\n')).toEqual([
      'Library Replayer c-a',
      'Someone Else c-b',
    ]);
    expect(readFileSync(path.join(dir, 'c.txt'), 'utf8')).toBe('c edited by hand\n');
    expect(git(dir, 'diff', '--cached', '--name-status')).toBe('A\td.txt\n');
    expectFsckClean(dir);

    git(dir, 'checkout', '--', 'c.txt');
    const resumed = await repo.replay(items, { name: 'items.json', commit: 'per-call', resume: 'continue' });
    expect(resumed.entries.map((r) => [r.callId, r.status, r.reason ?? null])).toEqual([
      ['c-a', 'skipped', 'already_replayed'],
      ['c-b', 'skipped', 'already_replayed'],
      ['c-c', 'applied', null],
    ]);
    expect(git(dir, 'log', '-1', '--format=%an').trim()).toBe('Someone Else');
    expect(git(dir, 'show', 'HEAD:c.txt')).toBe('c two\n');
    expect(git(dir, 'status', '--porcelain')).toBe('A  d.txt\n');
    expectFsckClean(dir);
    repo.close();
  });
});
