// `patchtx replay --commit per-call|per-turn|single`: how a log's calls become commits, the
// trailers naming every call of a commit, and a stop inside a commit of several calls. The logs
// are fixtures in test/logs/fixtures written from the formats; results are read back with git.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';
import { logFixture, repoWith } from '../helpers/replay.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const fixture = logFixture;

/** The replay trailers of a commit, as git reads them, one `Key: value` a line. */
const trailersOf = (dir: string, commit: string): string[] =>
  git(dir, 'log', '-1', '--format=%(trailers:key=Replayed-From,key=Turn-Id,key=Call-Id)', commit).trim().split('\n');

const commitsAfter = (dir: string, base: string): string[] =>
  git(dir, 'rev-list', '--first-parent', '--reverse', `${base}..HEAD`).trim().split('\n').filter(Boolean);

describe('replay --commit', () => {
  it('Responses items: by default one commit per response, naming its calls; a second run writes nothing', async () => {
    const dir = repoWith({ 'readme.txt': 'hi\n' });
    const base = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, fixture('replay-responses.json'));
    expect(r.code, r.err).toBe(0);
    const made = commitsAfter(dir, base);
    expect(made).toHaveLength(1);
    expect(trailersOf(dir, made[0]!)).toEqual(['Replayed-From: replay-responses.json', 'Turn-Id: resp-r1', 'Call-Id: r-create', 'Call-Id: r-move']);
    expect(r.lines.slice(0, -1).map((l) => [l.callId, l.status, l.commit])).toEqual([
      ['r-create', 'applied', made[0]],
      ['r-move', 'applied', made[0]],
      ['r-failed', 'skipped', null],
    ]);
    expect(git(dir, 'show', 'HEAD:docs/manual.md')).toBe('# Guide\nstep one, then two\n');
    expect(git(dir, 'diff', '--name-status', base, 'HEAD')).toBe('A\tdocs/manual.md\n');
    const again = await patchtxJson('replay', '--repo', dir, fixture('replay-responses.json'));
    expect(again.json).toMatchObject({ applied: 0, skipped: 3 });
    expect(rev(dir)).toBe(made[0]);
    expectFsckClean(dir);
  });

  it('a Codex session: one commit per call by default, per turn, or one for the whole replay', async () => {
    const perCall = repoWith({ 'readme.txt': 'hi\n' });
    const base1 = rev(perCall);
    expect((await patchtx('replay', '--repo', perCall, fixture('replay-turns.jsonl'))).code).toBe(0);
    const calls = commitsAfter(perCall, base1);
    expect(calls.map((c) => trailersOf(perCall, c))).toEqual([
      ['Replayed-From: sess-turns', 'Turn-Id: turn-1', 'Call-Id: call-t1a'],
      ['Replayed-From: sess-turns', 'Turn-Id: turn-1', 'Call-Id: call-t1b'],
      ['Replayed-From: sess-turns', 'Turn-Id: turn-2', 'Call-Id: call-t2'],
    ]);

    const perTurn = repoWith({ 'readme.txt': 'hi\n' });
    const base2 = rev(perTurn);
    expect((await patchtx('replay', '--repo', perTurn, '--commit', 'per-turn', fixture('replay-turns.jsonl'))).code).toBe(0);
    const turns = commitsAfter(perTurn, base2);
    expect(turns.map((c) => trailersOf(perTurn, c))).toEqual([
      ['Replayed-From: sess-turns', 'Turn-Id: turn-1', 'Call-Id: call-t1a', 'Call-Id: call-t1b'],
      ['Replayed-From: sess-turns', 'Turn-Id: turn-2', 'Call-Id: call-t2'],
    ]);
    // the turn's second call updated the file its first call added: one commit adds it as it ended
    expect(git(perTurn, 'diff', '--name-status', base2, turns[0]!)).toBe('A\ta.txt\n');
    expect(git(perTurn, 'show', `${turns[0]}:a.txt`)).toBe('alpha two\n');

    const single = repoWith({ 'readme.txt': 'hi\n' });
    const base3 = rev(single);
    expect((await patchtx('replay', '--repo', single, '--commit', 'single', fixture('replay-turns.jsonl'))).code).toBe(0);
    const one = commitsAfter(single, base3);
    expect(one.map((c) => trailersOf(single, c))).toEqual([
      ['Replayed-From: sess-turns', 'Turn-Id: turn-1', 'Turn-Id: turn-2', 'Call-Id: call-t1a', 'Call-Id: call-t1b', 'Call-Id: call-t2'],
    ]);
    // the same files at the end, however they were grouped
    for (const dir of [perCall, perTurn]) expect(rev(dir, 'HEAD^{tree}')).toBe(rev(single, 'HEAD^{tree}'));
    // a run grouped otherwise finds every call already there
    const again = await patchtxJson('replay', '--repo', perTurn, '--commit', 'per-call', fixture('replay-turns.jsonl'));
    expect(again.json).toMatchObject({ applied: 0, skipped: 3 });
    expectFsckClean(single);
  });

  it('a turn with a call that fails makes no commit; --skip drops the whole turn and the next run goes on', async () => {
    // a.txt already holds what the turn's first call adds: that Add is refused in strict mode
    const dir = repoWith({ 'a.txt': 'taken\n' });
    const base = rev(dir);
    const r = await patchtxJson('replay', '--repo', dir, '--strict', '--commit', 'per-turn', fixture('replay-turns.jsonl'));
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ kind: 'already_exists', entry: 1, entries: [1, 2] });
    expect(r.json.error.message).toMatch(/entries 1, 2 \(turn turn-1\), one commit/);
    expect(rev(dir)).toBe(base);
    const skipped = await patchtxJson('replay', '--repo', dir, '--strict', '--skip', '--commit', 'per-turn', fixture('replay-turns.jsonl'));
    expect(skipped.code, skipped.out).toBe(0);
    expect(skipped.lines.slice(0, -1).map((l) => [l.callId, l.status, l.reason])).toEqual([
      ['call-t1a', 'skipped', 'skipped_after_failure'],
      ['call-t1b', 'skipped', 'skipped_after_failure'],
      ['call-t2', 'applied', undefined],
    ]);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('taken\n');
    expectFsckClean(dir);
  });

  it('refuses grouping an export or an unknown grouping', async () => {
    const dir = repoWith({ 'a.txt': 'x\n' });
    const log = path.join(tempDir(), 'log.jsonl');
    writeFileSync(
      log,
      JSON.stringify({
        type: 'patchtx_transaction',
        version: 1,
        commit: 'a'.repeat(40),
        base: null,
        tree: 'b'.repeat(40),
        baseTree: null,
        patchId: 'c'.repeat(40),
        patch: '*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n',
        message: 'm\n',
        subject: 'm',
        trailers: [],
        author: { name: 'A', email: 'a@tests.invalid', date: '2020-01-01T00:00:00+00:00', timestamp: 1577836800, timezone: '+0000' },
        committer: { name: 'A', email: 'a@tests.invalid', date: '2020-01-01T00:00:00+00:00', timestamp: 1577836800, timezone: '+0000' },
        undoOf: null,
        files: [{ op: 'D', path: 'a.txt' }],
      }) + '\n',
    );
    const grouped = await patchtx('replay', '--repo', dir, '--commit', 'single', log);
    expect(grouped.code).toBe(2);
    expect(grouped.err).toMatch(/--commit: .*patchtx export/);
    const unknown = await patchtx('replay', '--repo', dir, '--commit', 'per-day', log);
    expect(unknown.code).toBe(2);
  });
});
