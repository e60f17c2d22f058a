// A replay compared with the changes a Codex session records (patch_apply_end `changes`): the
// fixture test/logs/fixtures/replay-recorded.jsonl, written from the format, has a move whose
// recorded diff matches the replay, then an add whose recorded content does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';
import { logFixture, repoWith } from '../helpers/replay.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const fixture = logFixture;

describe('replay against the changes the log records', () => {
  it('applies the entry that does what the log records and stops, before its commit, at the one that does not', async () => {
    const dir = repoWith({ 'src/old.txt': 'one\ntwo\nthree\n' });
    const base = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, fixture('replay-recorded.jsonl'));
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ kind: 'replay_mismatch', reason: 'recorded_changes', paths: ['notes.txt'], entry: 2, callId: 'call-add' });
    expect(r.json.error.message).toMatch(/notes\.txt: the replay adds it with other content than the log records/);
    expect(git(dir, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('1');
    expect(git(dir, 'show', 'HEAD:src/new.txt')).toBe('one\nTWO\nthree\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // --skip drops the entry that differs; the next one is compared and applied
    const skipped = await patchtxJson('replay', '--repo', dir, '--skip', fixture('replay-recorded.jsonl'));
    expect(skipped.code).toBe(0);
    expect(skipped.json).toMatchObject({ applied: 1, skipped: 2 });
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('');
    expectFsckClean(dir);
  });

  it('--dry-run finds the same difference and writes nothing', async () => {
    const dir = repoWith({ 'src/old.txt': 'one\ntwo\nthree\n' });
    const before = snapshot(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--dry-run', fixture('replay-recorded.jsonl'));
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ kind: 'replay_mismatch', entry: 2 });
    expectUntouched(dir, before);
  });

  it('an update the patch makes on other lines than the session had is a difference, and nothing is committed', async () => {
    // the patch still applies, but the recorded diff says "three" followed "TWO"
    const dir = repoWith({ 'src/old.txt': 'one\ntwo\nfour\n' });
    const base = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, fixture('replay-recorded.jsonl'));
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ kind: 'replay_mismatch', paths: ['src/new.txt'], entry: 1, callId: 'call-move' });
    expect(rev(dir)).toBe(base);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
