// A path no file system can hold (a component over 255 bytes, a whole path over 4,095 bytes with
// the working tree's own directory in front) must be refused before anything is written, by check
// as by apply: once the commit had landed, its file could not be written and the checkout stayed
// to recover for ever. Real repositories, cross-checked with git.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev, treeOf } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const addFile = (p: string): string => v4a(`*** Add File: ${p}`, '+content');

/** check and apply both refuse `patch` with path_rejected (exit 4), and leave the repository as it was. */
async function expectRefused(dir: string, patch: string, message: RegExp): Promise<void> {
  const before = snapshot(dir);
  for (const cmd of ['check', 'apply']) {
    const r = await patchtxJson(cmd, '--repo', dir, patchFile(patch));
    expect(r.code, `${cmd}: ${r.out}`).toBe(4);
    expect(r.json.error.kind).toBe('path_rejected');
    expect(r.json.error.message).toMatch(message);
  }
  expectUntouched(dir, before);
}

describe('a name longer than a file system takes', () => {
  it('a component of 256 bytes is refused; one of 255 bytes is written', async () => {
    const dir = makeRepo('basic');
    await expectRefused(dir, addFile(`src/${'n'.repeat(256)}`), /256 bytes.*at most 255/);
    const name = `src/${'n'.repeat(255)}`;
    const r = await patchtxJson('apply', '--repo', dir, patchFile(addFile(name)));
    expect(r.code, r.out).toBe(0);
    expect(treeOf(dir)[name]).toMatch(/^100644 /);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('bytes count, not characters: 86 three-byte characters are 258 bytes', async () => {
    const dir = makeRepo('basic');
    await expectRefused(dir, addFile(`docs/${'€'.repeat(86)}.md`), /bytes.*at most 255/);
  });

  it('a directory component counts too, and so does a Move to', async () => {
    const dir = makeRepo('basic');
    await expectRefused(dir, addFile(`${'d'.repeat(300)}/a.txt`), /300 bytes/);
    await expectRefused(dir, v4a('*** Update File: src/math.js', `*** Move to: src/${'m'.repeat(260)}.js`), /263 bytes/);
  });
});

describe('a path longer than a file system takes', () => {
  /** A relative path of exactly `bytes` bytes, in components of at most 201 bytes. */
  const longPath = (bytes: number): string => {
    const parts: string[] = [];
    let left = bytes;
    for (; left > 201; left -= 201) parts.push('p'.repeat(200));
    parts.push('q'.repeat(left));
    return parts.join('/');
  };

  it('over 4,095 bytes on its own: refused', async () => {
    const dir = makeRepo('basic');
    await expectRefused(dir, addFile(longPath(4200)), /4,?096 bytes|longer than/);
  });

  it('under 4,095 bytes on its own, over it with the working tree in front: refused in the checkout, taken by a branch with no checkout', async () => {
    const dir = makeRepo('basic');
    const rel = longPath(4095 - 1 - Buffer.byteLength(dir) + 10);
    expect(Buffer.byteLength(rel)).toBeLessThan(4096);
    await expectRefused(dir, addFile(rel), /working tree/);
    // --ref writes no working tree: git holds the path, as it would
    git(dir, 'branch', 'bot');
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', patchFile(addFile(rel)));
    expect(r.code, r.out).toBe(0);
    expect(treeOf(dir, 'bot')[rel]).toMatch(/^100644 /);
    expect(rev(dir, 'bot')).toBe(r.json.commit);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('exactly at the limit with the working tree in front: written', async () => {
    const dir = makeRepo('basic');
    // the absolute path is 4,095 bytes, the most PATH_MAX (4,096 with the final NUL) allows
    const rel = longPath(4095 - 1 - Buffer.byteLength(dir));
    expect(Buffer.byteLength(path.join(dir, rel))).toBe(4095);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(addFile(rel)));
    expect(r.code, r.out).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'ls-files', '-s', '--', rel)).toMatch(/^100644 /);
  });
});
