// A transaction that turns a directory back into a file (undo or revert of `Delete a` + `Add a/b`)
// must not find out after the ref moved that the directory also holds untracked or ignored files:
// it refuses before the commit point, as git checkout does ("untracked working tree files would be
// removed"), and leaves the repository exactly as it was. A special file (a named pipe, a socket)
// where the patch writes or removes a file is never replaced, not even with uncommitted work taken
// in: its content cannot be saved, and opening a named pipe would block. Real repositories,
// cross-checked with git.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
  cleanupScratch();
});

/** `docs/notes.txt` becomes a directory holding `part.txt`. */
const FILE_TO_DIR = v4a('*** Delete File: docs/notes.txt', '*** Add File: docs/notes.txt/part.txt', '+part');

async function fileTurnedDir(): Promise<{ dir: string; base: string; commit: string }> {
  const dir = makeRepo('basic');
  const base = rev(dir);
  const r = await patchtxJson('apply', '--repo', dir, patchFile(FILE_TO_DIR));
  expect(r.code, r.out).toBe(0);
  return { dir, base, commit: r.json.commit };
}

describe('undo of a file turned into a directory', () => {
  it('refused before the ref moves when the directory gained an untracked file', async () => {
    const { dir, base, commit } = await fileTurnedDir();
    writeFileSync(path.join(dir, 'docs/notes.txt/mine.txt'), 'my own file\n');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code, r.out).toBe(7);
    expect(r.json.error).toMatchObject({ kind: 'undo_refused', paths: ['docs/notes.txt/mine.txt'] });
    expect(r.json.error.message).toMatch(/untracked working tree files would be removed:\n {2}docs\/notes\.txt\/mine\.txt\n/);
    expectUntouched(dir, before);
    expect(rev(dir)).toBe(commit);
    // nothing to recover: the next command does not say the paths changed after a run
    const again = await patchtxJson('recover', '--repo', dir);
    expect(again.json).toEqual({ ok: true, recovered: null });

    // once the file is gone, the undo goes through
    git(dir, 'clean', '-q', '-f', '--', 'docs');
    const ok = await patchtxJson('undo', '--repo', dir);
    expect(ok.code, ok.out).toBe(0);
    expect(rev(dir)).toBe(base);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expectFsckClean(dir);
  });

  it('an ignored file and an empty directory count too', async () => {
    const { dir } = await fileTurnedDir();
    writeFileSync(path.join(dir, '.git/info/exclude'), '*.log\n');
    writeFileSync(path.join(dir, 'docs/notes.txt/build.log'), 'log\n');
    mkdirSync(path.join(dir, 'docs/notes.txt/empty'));
    expect(git(dir, 'status', '--porcelain', '--ignored')).toBe('!! docs/notes.txt/build.log\n');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code, r.out).toBe(7);
    expect(r.json.error.paths).toEqual(['docs/notes.txt/build.log', 'docs/notes.txt/empty/']);
    expectUntouched(dir, before);
  });

  it('a revert (the commit is no longer the tip) is refused the same way', async () => {
    const { dir, commit } = await fileTurnedDir();
    const later = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: later.txt', '+later')));
    expect(later.code).toBe(0);
    writeFileSync(path.join(dir, 'docs/notes.txt/mine.txt'), 'my own file\n');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, commit);
    expect(r.code, r.out).toBe(7);
    expect(r.json.error).toMatchObject({ kind: 'undo_refused', paths: ['docs/notes.txt/mine.txt'] });
    expectUntouched(dir, before);
    expect(rev(dir)).toBe(later.json.commit);
  });
});

/** A named pipe at `p` of the checkout. */
function mkfifo(dir: string, p: string): void {
  execFileSync('mkfifo', [path.join(dir, p)]);
}

/** The built CLI in `dir`; killed if it blocks (opening a FIFO nobody writes to never returns). */
async function cli(dir: string, args: string[]): Promise<{ status: number | null; json: any; out: string }> {
  const r = await runCli([...args, '--json'], { cwd: dir, killAfterMs: 30_000 });
  const out = r.stdout + r.stderr;
  return { status: r.status, json: r.stdout.trim() === '' ? null : JSON.parse(r.stdout.trim().split('\n').pop()!), out };
}

describe('a hook that changes a touched path while the run is under way', () => {
  it('a commit-msg hook turning the updated file into a directory of untracked files: refused before the ref moves, as such', async () => {
    const dir = makeRepo('basic');
    const first = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: x.txt', '+one')));
    expect(first.code, first.out).toBe(0);
    const tip = rev(dir);
    // the run looked at x.txt before the hook ran: what it saw then no longer holds
    const hook = path.join(dir, '.git/hooks/commit-msg');
    mkdirSync(path.dirname(hook), { recursive: true });
    writeFileSync(hook, `#!/bin/sh\nrm "${dir}/x.txt" && mkdir "${dir}/x.txt" && echo mine > "${dir}/x.txt/mine.txt"\n`);
    chmodSync(hook, 0o755);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Update File: x.txt', '@@', '-one', '+two')));
    expect(r.json.error).toMatchObject({ kind: 'dirty', paths: ['x.txt/mine.txt'] });
    expect(r.json.error.message).toMatch(/untracked working tree files would be removed:\n {2}x\.txt\/mine\.txt\n/);
    expect(rev(dir)).toBe(tip);
    expect(lstatSync(path.join(dir, 'x.txt/mine.txt')).isFile()).toBe(true);
    expectFsckClean(dir);
  });
});

describe('a special file where the patch writes or removes a file', () => {
  for (const dirty of ['refuse', 'include'] as const) {
    it(`an untracked named pipe at an Add's path, --dirty=${dirty}: refused (dirty) naming it, nothing written, never opened`, async () => {
      const dir = makeRepo('basic');
      mkfifo(dir, 'docs/pipe.txt');
      const before = snapshot(dir);
      const r = await cli(dir, ['apply', `--dirty=${dirty}`, patchFile(v4a('*** Add File: docs/pipe.txt', '+added'))]);
      expect(r.status, r.out).toBe(6);
      expect(r.json.error).toMatchObject({ kind: 'dirty', paths: ['docs/pipe.txt'] });
      expect(r.json.error.message).toMatch(/docs\/pipe\.txt: .*named pipe/);
      expect(lstatSync(path.join(dir, 'docs/pipe.txt')).isFIFO()).toBe(true);
      expectUntouched(dir, before);
    });
  }

  it('check refuses it the same way; a move onto it and apply_patch too', async () => {
    const dir = makeRepo('basic');
    mkfifo(dir, 'moved.txt');
    const before = snapshot(dir);
    const checked = await cli(dir, ['check', patchFile(v4a('*** Add File: moved.txt', '+added'))]);
    expect(checked.status, checked.out).toBe(6);
    expect(checked.json.error).toMatchObject({ kind: 'dirty', paths: ['moved.txt'] });
    const moved = await cli(dir, ['apply', '--dirty=include', patchFile(v4a('*** Update File: docs/notes.txt', '*** Move to: moved.txt'))]);
    expect(moved.status, moved.out).toBe(6);
    expect(moved.json.error).toMatchObject({ kind: 'dirty', paths: ['moved.txt'] });
    const viaApplyPatch = spawnSync(process.execPath, [path.join(path.dirname(binPath()), 'apply_patch.cjs')], {
      cwd: dir,
      env: gitEnv,
      input: v4a('*** Add File: moved.txt', '+added'),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(viaApplyPatch.status, viaApplyPatch.stderr).toBe(1);
    expect(viaApplyPatch.stderr).toMatch(/moved\.txt: .*named pipe/);
    expect(lstatSync(path.join(dir, 'moved.txt')).isFIFO()).toBe(true);
    expectUntouched(dir, before);
  });

  it("apply_patch outside a repository: a named pipe at an Add's path is refused too, and stays", () => {
    const dir = tempDir();
    mkfifo(dir, 'pipe.txt');
    const r = spawnSync(process.execPath, [path.join(path.dirname(binPath()), 'apply_patch.cjs')], {
      cwd: dir,
      env: { ...gitEnv, GIT_CEILING_DIRECTORIES: path.dirname(dir) },
      input: v4a('*** Add File: pipe.txt', '+added', '*** Add File: other.txt', '+other'),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/pipe\.txt: .*named pipe/);
    expect(lstatSync(path.join(dir, 'pipe.txt')).isFIFO()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['pipe.txt']);
  });

  it("an untracked socket at an Add's path: refused the same way", async () => {
    const dir = makeRepo('basic');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'sock'), resolve));
    try {
      const before = snapshot(dir);
      const r = await cli(dir, ['apply', '--dirty=include', patchFile(v4a('*** Add File: sock', '+added'))]);
      expect(r.status, r.out).toBe(6);
      expect(r.json.error).toMatchObject({ kind: 'dirty', paths: ['sock'] });
      expect(r.json.error.message).toMatch(/sock: .*socket/);
      expect(lstatSync(path.join(dir, 'sock')).isSocket()).toBe(true);
      expectUntouched(dir, before);
    } finally {
      server.close();
    }
  });

  it('a tracked file replaced by a named pipe, added anew with --dirty=include: refused, the pipe stays', async () => {
    const dir = makeRepo('basic');
    rmSync(path.join(dir, 'docs/notes.txt'));
    mkfifo(dir, 'docs/notes.txt');
    const before = snapshot(dir);
    const r = await cli(dir, ['apply', '--dirty=include', patchFile(v4a('*** Add File: docs/notes.txt', '+added'))]);
    expect(r.status, r.out).toBe(6);
    expect(r.json.error).toMatchObject({ kind: 'dirty', paths: ['docs/notes.txt'] });
    expect(lstatSync(path.join(dir, 'docs/notes.txt')).isFIFO()).toBe(true);
    expectUntouched(dir, before);
  });
});
