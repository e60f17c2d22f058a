// A transaction that turns a directory back into a file (undo or revert of `Delete a` + `Add a/b`)
// must not find out after the ref moved that the directory also holds untracked or ignored files:
// it refuses before the commit point, as git checkout does ("untracked working tree files would be
// removed"), and leaves the repository exactly as it was. Real repositories, cross-checked with git.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, expectFsckClean, expectUntouched, g, isolateGitEnv, patchFile, patchtxJson, rev, snapshot, v4a } from './support.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
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
    g(dir, 'clean', '-q', '-f', '--', 'docs');
    const ok = await patchtxJson('undo', '--repo', dir);
    expect(ok.code, ok.out).toBe(0);
    expect(rev(dir)).toBe(base);
    expect(g(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expectFsckClean(dir);
  });

  it('an ignored file and an empty directory count too', async () => {
    const { dir } = await fileTurnedDir();
    writeFileSync(path.join(dir, '.git/info/exclude'), '*.log\n');
    writeFileSync(path.join(dir, 'docs/notes.txt/build.log'), 'log\n');
    mkdirSync(path.join(dir, 'docs/notes.txt/empty'));
    expect(g(dir, 'status', '--porcelain', '--ignored')).toBe('!! docs/notes.txt/build.log\n');
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
