// A file or directory the transaction cannot write (immutable, on a read-only file system) must be
// found before the ref moves, by check as by apply, undo and redo: once the commit had landed, the
// write failed and left the checkout to recover, with staged reverts. The tests run as root, where
// chmod stops nothing, so they make paths immutable (chattr +i), which stops root too; where that
// is not available they are skipped with a note (test/helpers/immutable.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { immutableSupported, makeImmutable, makeMutable, releaseImmutable } from '../helpers/immutable.js';
import { patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  releaseImmutable();
  cleanupRepos();
  cleanupScratch();
});

const UPDATE_MATH = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a - b;');

/** check, then apply: both refuse with io_error (exit 74) naming `where`, and nothing changes. */
async function expectRefused(dir: string, patch: string, where: string, cause: RegExp): Promise<void> {
  const before = snapshot(dir);
  for (const cmd of ['check', 'apply']) {
    const r = await patchtxJson(cmd, '--repo', dir, patchFile(patch));
    expect(r.code, `${cmd}: ${r.out}`).toBe(74);
    expect(r.json.error).toMatchObject({ kind: 'io_error', path: where, errno: 'EPERM' });
    expect(r.json.error.message).toMatch(cause);
  }
  expectUntouched(dir, before);
}

describe.skipIf(!immutableSupported)('paths the transaction cannot write', () => {
  it('an immutable file to be replaced', async () => {
    const dir = makeRepo('basic');
    makeImmutable(path.join(dir, 'src/math.js'));
    await expectRefused(dir, UPDATE_MATH, 'src/math.js', /^cannot replace src\/math\.js: .*EPERM/);
    makeMutable(path.join(dir, 'src/math.js'));
    expect((await patchtxJson('apply', '--repo', dir, patchFile(UPDATE_MATH))).code).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('an immutable index: refused before the commit point, nothing committed', async () => {
    const dir = makeRepo('basic');
    const index = path.join(dir, '.git', 'index');
    makeImmutable(index);
    const before = snapshot(dir);
    for (const cmd of ['check', 'apply']) {
      const r = await patchtxJson(cmd, '--repo', dir, patchFile(UPDATE_MATH));
      expect(r.code, `${cmd}: ${r.out}`).toBe(74);
      expect(r.json.error).toMatchObject({ kind: 'io_error', path: index, errno: 'EPERM' });
      expect(r.json.error.message).not.toMatch(/landed/);
    }
    expectUntouched(dir, before);
    makeMutable(index);
    expect((await patchtxJson('apply', '--repo', dir, patchFile(UPDATE_MATH))).code).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('an immutable file to be removed, and one moved away', async () => {
    const dir = makeRepo('basic');
    makeImmutable(path.join(dir, 'docs/notes.txt'));
    await expectRefused(dir, v4a('*** Delete File: docs/notes.txt'), 'docs/notes.txt', /^cannot remove docs\/notes\.txt: .*EPERM/);
    await expectRefused(dir, v4a('*** Update File: docs/notes.txt', '*** Move to: notes.txt'), 'docs/notes.txt', /^cannot remove docs\/notes\.txt/);
  });

  it('a directory to be written into: an update, an add, a delete in it', async () => {
    const dir = makeRepo('basic');
    makeImmutable(path.join(dir, 'src'));
    await expectRefused(dir, UPDATE_MATH, 'src/math.js', /^cannot replace src\/math\.js: the directory src cannot be written to \(EPERM/);
    await expectRefused(dir, v4a('*** Add File: src/b.js', '+b'), 'src/b.js', /directory src cannot be written to/);
    await expectRefused(dir, v4a('*** Add File: src/lib/x.js', '+x'), 'src/lib/x.js', /^cannot create src\/lib\/x\.js: the directory src cannot be written to/);
    // a directory below it can: removing its only file leaves it (src keeps it), so the add goes in
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Delete File: src/util/name.js', '*** Add File: src/util/x.js', '+x')));
    expect(r.code, r.out).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a directory to be created in: the nearest one that exists is checked', async () => {
    const dir = makeRepo('basic');
    makeImmutable(path.join(dir, 'docs'));
    await expectRefused(
      dir,
      v4a('*** Add File: docs/new/deeper/a.md', '+a'),
      'docs/new/deeper/a.md',
      /^cannot create docs\/new\/deeper\/a\.md: the directory docs cannot be written to \(EPERM/,
    );
  });

  it('the working tree root itself', async () => {
    const dir = makeRepo('basic');
    makeImmutable(dir);
    await expectRefused(dir, v4a('*** Add File: top.txt', '+top'), 'top.txt', /the working tree's top directory cannot be written to/);
  });

  it('undo and redo are refused before the ref moves too', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const applied = await patchtxJson('apply', '--repo', dir, patchFile(UPDATE_MATH));
    expect(applied.code).toBe(0);
    makeImmutable(path.join(dir, 'src/math.js'));
    let before = snapshot(dir);
    const undo = await patchtxJson('undo', '--repo', dir);
    expect(undo.code, undo.out).toBe(74);
    expect(undo.json.error).toMatchObject({ kind: 'io_error', path: 'src/math.js' });
    expectUntouched(dir, before);
    expect(rev(dir)).toBe(applied.json.commit);

    makeMutable(path.join(dir, 'src/math.js'));
    expect((await patchtxJson('undo', '--repo', dir)).code).toBe(0);
    expect(rev(dir)).toBe(base);
    makeImmutable(path.join(dir, 'src'));
    before = snapshot(dir);
    const redo = await patchtxJson('redo', '--repo', dir);
    expect(redo.code, redo.out).toBe(74);
    expect(redo.json.error).toMatchObject({ kind: 'io_error', path: 'src/math.js' });
    expectUntouched(dir, before);
  });
});
