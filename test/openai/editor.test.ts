// createEditor (patchtx/openai) called as the Agents SDK calls an Editor, without a runner: a
// turn's operations wait in one transaction until flush(); a failed operation is a `failed` result
// that leaves the others; commit: 'call' commits each operation; a flush that cannot land (the
// branch moved) throws and writes nothing. Checked on real repositories with git.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { createEditor } from '../../src/openai/index.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const ADD = { type: 'create_file', path: 'notes/todo.md', diff: '+one\n+two\n' } as const;
const EDIT_ADDED = { type: 'update_file', path: 'notes/todo.md', diff: '@@\n one\n-two\n+two, done\n' } as const;
const WRONG = { type: 'update_file', path: 'README.md', diff: '@@\n-# Not the heading\n+# X\n' } as const;

describe('createEditor', () => {
  it('buffers a turn: nothing is written before flush(), which lands the kept operations as one commit', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const repo = await openRepository({ dir });
    const editor = createEditor(repo);
    expect(await editor.createFile(ADD)).toEqual({ status: 'completed', output: 'Created notes/todo.md' });
    const failed = await editor.updateFile(WRONG);
    expect(failed.status).toBe('failed');
    expect(failed.output).toMatch(/^Failed to find expected lines in README\.md:\n# Not the heading\n/);
    expect(await editor.updateFile(EDIT_ADDED)).toEqual({ status: 'completed', output: 'Updated notes/todo.md' });
    expect(await editor.deleteFile({ type: 'delete_file', path: 'docs/notes.txt' })).toEqual({ status: 'completed', output: 'Deleted docs/notes.txt' });
    // nothing written yet
    expect(rev(dir)).toBe(before);
    expect(existsSync(path.join(dir, 'notes/todo.md'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const done = await editor.flush();
    expect(done?.commit).toBe(rev(dir));
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('D\tdocs/notes.txt\nA\tnotes/todo.md\n');
    // the SDK's rules: the created file's last line has no newline
    expect(readFileSync(path.join(dir, 'notes/todo.md'), 'utf8')).toBe('one\ntwo, done');
    // no runner was watched: no call ids to name
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Call-Id,valueonly)').trim()).toBe('');
    expect(await editor.flush()).toBeNull();
    expectFsckClean(dir);
  });

  it('abort() drops the turn; the next operations start a new one', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const repo = await openRepository({ dir });
    const editor = createEditor(repo);
    await editor.createFile(ADD);
    editor.abort();
    expect(await editor.flush()).toBeNull();
    expect(rev(dir)).toBe(before);
    expect((await editor.updateFile(EDIT_ADDED)).status).toBe('failed'); // the file was never written
    expect((await editor.createFile({ type: 'create_file', path: 'b.txt', diff: '+b' })).status).toBe('completed');
    await editor.flush();
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('A\tb.txt\n');
  });

  it('a flush after the branch moved is stale: it throws, writes nothing and drops the turn', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const editor = createEditor(repo);
    await editor.createFile(ADD);
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'someone else');
    const moved = rev(dir);
    const e = await rejection(editor.flush());
    expect(e.kind).toBe('stale');
    expect(rev(dir)).toBe(moved);
    expect(existsSync(path.join(dir, 'notes/todo.md'))).toBe(false);
    expect(await editor.flush()).toBeNull();
  });

  it("commit: 'call' commits each operation at once; a failed one commits nothing", async () => {
    const dir = makeRepo('basic');
    const count = commitCount(dir);
    const repo = await openRepository({ dir });
    const editor = createEditor(repo, { commit: 'call', message: 'Agent edit' });
    const created = await editor.createFile(ADD);
    expect(created).toEqual({ status: 'completed', output: `Created notes/todo.md (commit ${rev(dir).slice(0, 12)})` });
    expect((await editor.updateFile(WRONG)).status).toBe('failed');
    const edited = await editor.updateFile(EDIT_ADDED);
    expect(edited).toEqual({ status: 'completed', output: `Updated notes/todo.md (commit ${rev(dir).slice(0, 12)})` });
    expect(commitCount(dir)).toBe(count + 2);
    expect(git(dir, 'log', '-2', '--format=%s')).toBe('Agent edit\nAgent edit\n');
    expect(await editor.flush()).toBeNull();
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a wrong option is thrown as usage when the editor is made', async () => {
    const repo = await openRepository({ dir: makeRepo('basic') });
    expect(() => createEditor(repo, { commit: 'response' as never })).toThrow(/options\.commit must be 'turn' or 'call', got 'response'/);
    expect(() => createEditor(repo, { dialect: 'unix' as never })).toThrow(/options\.dialect must be 'agents-sdk' or 'codex'/);
  });
});
