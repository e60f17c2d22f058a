// How patchtx and apply_patch treat the habits of models and the files of real repositories:
// envelope noise (a BOM), lenient matches that must re-indent and warn, already-applied patches.
// Every run is checked against the real git CLI.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, commitCount, expectFsckClean, g, isolateGitEnv, patchFile, patchtx, patchtxJson, rev, tempDir, v4a } from './support.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** A repository whose one commit holds `files` (built with the git CLI). */
function repoWith(files: Record<string, string>): string {
  const source = tempDir();
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(source, p)), { recursive: true });
    writeFileSync(path.join(source, p), text);
  }
  return makeRepo('fromdir', { source });
}

describe('envelope noise', () => {
  it('a UTF-8 BOM before *** Begin Patch is accepted', async () => {
    const dir = repoWith({ 'a.txt': 'one\ntwo\n' });
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(`\ufeff${v4a('*** Update File: a.txt', '@@', '-two', '+TWO')}`));
    expect(r.code, r.out + r.err).toBe(0);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(rev(dir, 'HEAD~1')).toBe(base);
    expect(g(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
