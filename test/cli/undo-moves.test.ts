// A move taken back: undo, redo and the log say R (from the destination back to the source), as
// apply said R for the move, rather than a delete and an add of two unrelated files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const MOVE = v4a('*** Update File: src/util/name.js', '*** Move to: src/util/renamed.js', '*** Add File: docs/added.txt', '+new');

describe('undo of a move', () => {
  it('undo (reset) and redo report the move, reversed and again', async () => {
    const dir = makeRepo('basic');
    const applied = await patchtxJson('apply', '--repo', dir, patchFile(MOVE));
    expect(applied.code).toBe(0);
    expect(applied.json.files).toContainEqual({ op: 'R', path: 'src/util/renamed.js', from: 'src/util/name.js' });
    const undone = await patchtxJson('undo', '--repo', dir);
    expect(undone.json.action).toBe('reset');
    expect(undone.json.files).toEqual([
      { op: 'D', path: 'docs/added.txt' },
      { op: 'R', path: 'src/util/name.js', from: 'src/util/renamed.js' },
    ]);
    const redone = await patchtxJson('redo', '--repo', dir);
    expect(redone.json.action).toBe('fast-forward');
    expect(redone.json.files).toEqual([
      { op: 'A', path: 'docs/added.txt' },
      { op: 'R', path: 'src/util/renamed.js', from: 'src/util/name.js' },
    ]);
  });

  it('a revert commit reports it, and the log lists the revert with it', async () => {
    const dir = makeRepo('basic');
    expect((await patchtxJson('apply', '--repo', dir, patchFile(MOVE))).code).toBe(0);
    const moved = rev(dir);
    expect((await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: later.txt', '+x')))).code).toBe(0);
    const undone = await patchtxJson('undo', '--repo', dir, moved);
    expect(undone.json.action).toBe('revert');
    expect(undone.json.files).toContainEqual({ op: 'R', path: 'src/util/name.js', from: 'src/util/renamed.js' });
    expect(git(dir, 'show', 'HEAD:src/util/name.js')).toBe(git(dir, 'show', `${moved}~1:src/util/name.js`));
    const log = await patchtxJson('log', '--repo', dir);
    const entry = log.json.find((e: { commit: string }) => e.commit === rev(dir));
    expect(entry.files).toContainEqual({ op: 'R', path: 'src/util/name.js', from: 'src/util/renamed.js' });
    expect(entry.files).not.toContainEqual({ op: 'A', path: 'src/util/name.js' });
  });
});
