// Recovery removes a lock the dead run's journal lists only when it can prove the run took it.
//
// A journal lists every lock its run may take, before it takes them. A lock of that name found
// later may be a live process's: here a `git commit -a` waiting for its editor holds index.lock,
// and an empty `<ref>.lock` stands for a git process about to write a ref. Recovery must leave
// them, and the user's commit must land as git would make it. A lock the run did take (killed
// while holding it) must still be removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const p of children.splice(0)) p.kill('SIGKILL');
});

const PATCH = '*** Begin Patch\n*** Add File: landed.txt\n+landed\n*** End Patch\n';

function writePatch(dir: string): string {
  const patch = path.join(dir, '..', 'change.patch');
  writeFileSync(patch, PATCH);
  return patch;
}

/** A run killed at `point`, leaving its journal. */
async function killedAt(dir: string, point: string): Promise<void> {
  const r = await runCli(['apply', '--repo', dir, writePatch(dir)], { env: { PATCHTX_TEST_CRASH_AT: point } });
  expect(r.signal).toBe('SIGKILL');
  expect(existsSync(path.join(dir, '.git', 'patchtx', 'journal.json'))).toBe(true);
}

/** `git commit -a -e -m MSG` whose editor waits for `release`: git holds index.lock meanwhile. */
async function commitWithEditorOpen(dir: string, message: string): Promise<{ release: () => void; done: Promise<number> }> {
  const scratch = path.join(dir, '..');
  const opened = path.join(scratch, 'editor-open');
  const release = path.join(scratch, 'editor-close');
  const editor = path.join(scratch, 'editor.sh');
  writeFileSync(editor, `#!/bin/sh\n: > "${opened}"\nwhile [ ! -e "${release}" ]; do sleep 0.02; done\n`);
  chmodSync(editor, 0o755);
  const child = spawn('git', ['commit', '-q', '-a', '-e', '-m', message], { cwd: dir, env: { ...gitEnv, GIT_EDITOR: editor }, stdio: 'ignore' });
  children.push(child);
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  await waitFor(() => existsSync(opened), 'the editor opened');
  expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(true);
  return { release: () => writeFileSync(release, ''), done };
}

describe('a lock of the same name held by a live process', () => {
  it("index.lock of a git commit waiting for its editor is left alone, and git's commit lands as git makes it", async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    await killedAt(dir, 'after-journal');
    writeFileSync(path.join(dir, 'README.md'), 'the user edit\n');
    const commit = await commitWithEditorOpen(dir, 'user commit');
    const lockBefore = readFileSync(path.join(dir, '.git', 'index.lock'));

    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'dropped' });
    expect(readFileSync(path.join(dir, '.git', 'index.lock')).equals(lockBefore)).toBe(true);

    commit.release();
    expect(await commit.done).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('user commit');
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('the user edit\n');
    // nothing staged or left over: the index is the one git wrote
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });

  it('an empty ref lock another process took is left alone', async () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    await killedAt(dir, 'after-publish-journal');
    const refLock = path.join(dir, '.git', 'refs', 'heads', 'main.lock');
    writeFileSync(refLock, '');
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'dropped' });
    expect(existsSync(refLock)).toBe(true);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(before);
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual(['refs/heads/main.lock']);
  });
});

describe("the dead run's own lock", () => {
  it('index.lock taken by the run is removed, and the checkout works again', async () => {
    const dir = makeRepo('basic');
    await killedAt(dir, 'after-index-lock');
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(true);
    const r = await runCli(['apply', '--repo', dir, writePatch(dir)]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'landed.txt'), 'utf8')).toBe('landed\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });
});
