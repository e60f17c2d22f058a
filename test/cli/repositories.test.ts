// Repositories as CI systems and sandboxes make them: a git directory the sandbox keeps read-only,
// shallow clones, partial (blobless) clones. Built with the git CLI, run as the built programs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, gitEnv, makeRepo } from '../helpers/repos.js';
import { buildDist, cleanupScratch, distDir, expectFsckClean, g, patchFile, rev, snapshot, v4a, type RunResult } from './support.js';

beforeAll(() => buildDist());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/**
 * Whether a directory can be made read-only for one process here: root ignores permission bits,
 * so the test mounts the git directory read-only in a user and mount namespace of its own.
 */
function readOnlyMountWorks(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-ro-'));
  try {
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && ! touch "$1/x" 2>/dev/null', 'sh', dir]);
    return r.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readOnlyWorks = readOnlyMountWorks();
if (!readOnlyWorks) console.warn('skipped: the read-only git directory tests need unshare -rm and bind mounts');

/** Runs a built program from `cwd` with `readOnly` mounted read-only for it alone. */
function runWithReadOnly(readOnly: string, name: 'patchtx' | 'apply_patch', args: string[], cwd: string): RunResult {
  const script = 'd=$1; shift; mount --bind "$d" "$d" && mount -o remount,ro,bind "$d" "$d" && exec "$@"';
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', readOnly, process.execPath, path.join(distDir, `${name}.cjs`), ...args], {
    cwd,
    env: { ...gitEnv, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe.skipIf(!readOnlyWorks)('a read-only git directory (a sandbox that keeps .git read-only)', () => {
  const patch = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a + b; // sum', '*** Add File: src/new.js', '+x');

  it('apply_patch writes the files without a commit and says on stderr that nothing was committed, and why', () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    const refs = g(dir, 'for-each-ref');
    const objects = g(dir, 'count-objects', '-v');
    const r = runWithReadOnly(path.join(dir, '.git'), 'apply_patch', [patch], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nA src/new.js\nM src/math.js\n');
    expect(r.err).toBe(`apply_patch: nothing was committed: the git directory ${path.join(dir, '.git')} is not writable (the file system is read-only, EROFS); the files were written without a commit\n`);
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b; // sum');
    expect(readFileSync(path.join(dir, 'src/new.js'), 'utf8')).toBe('x\n');
    expect(rev(dir)).toBe(head);
    expect(g(dir, 'for-each-ref')).toBe(refs);
    expect(g(dir, 'count-objects', '-v')).toBe(objects);
    expect(g(dir, 'status', '--porcelain')).toBe(' M src/math.js\n?? src/new.js\n');
  });

  it('apply_patch from a subdirectory: paths relative to it; a patch that does not apply writes nothing', () => {
    const dir = makeRepo('basic');
    const r = runWithReadOnly(path.join(dir, '.git'), 'apply_patch', [v4a('*** Update File: math.js', '@@', '-  return a + b;', '+  return b + a;')], path.join(dir, 'src'));
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM math.js\n');
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return b + a;');
    const before = snapshot(dir);
    const bad = runWithReadOnly(path.join(dir, '.git'), 'apply_patch', [v4a('*** Add File: README2.md', '+x', '*** Update File: README.md', '@@', '-nope', '+x')], dir);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Failed to find expected lines in README\.md/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('patchtx apply refuses with a typed error, exit 2, and changes nothing', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const file = patchFile(patch);
    const r = runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['apply', file], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: cannot commit: the git directory ${path.join(dir, '.git')} is not writable (the file system is read-only, EROFS); nothing was written\n`);
    const j = runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['apply', '--json', file], dir);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out).error).toMatchObject({ kind: 'unsupported_repository', reason: 'read_only', gitdir: path.join(dir, '.git') });
    // check writes nothing, so it still answers
    expect(runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['check', file], dir).code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expectFsckClean(dir);
  });
});
