// A path that is not there: the error names the path the caller probably meant. Run as the built
// program from a subdirectory, as a user or an agent runs it.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, cleanupBuiltCli, requireBuiltCli, runBin } from '../helpers/cli.js';
import { cleanupRepos, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, patchFile, v4a } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => requireBuiltCli());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

describe('a path that is not there', () => {
  it('patchtx apply from a subdirectory with a path relative to it: the paths are from the root, and the one it meant is named', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const file = patchFile(v4a('*** Update File: util/name.js', '@@', '-export const name = "util";', '+export const name = "u";'));
    const r = runBin('patchtx', ['apply', file], { cwd: path.join(dir, 'src') });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'error: Failed to read file to update util/name.js: No such file or directory\npatch paths are taken from the repository root, not from the current directory (src): did you mean src/util/name.js?\n',
    );
    const j = runBin('patchtx', ['apply', '--json', file], { cwd: path.join(dir, 'src') });
    expect(JSON.parse(j.out).error).toMatchObject({ kind: 'file_not_found', path: 'util/name.js', suggestion: 'src/util/name.js' });
    expectUntouched(dir, before);
  });

  it('a typo: the closest existing path; nothing close: no guess', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const typo = runBin('patchtx', ['apply', '--repo', dir, patchFile(v4a('*** Update File: src/maths.js', '@@', '-x', '+y'))]);
    expect(typo.code).toBe(1);
    expect(typo.err).toBe('error: Failed to read file to update src/maths.js: No such file or directory\nthe closest existing path is src/math.js\n');
    const del = runBin('patchtx', ['apply', '--repo', dir, '--json', patchFile(v4a('*** Delete File: docs/note.txt'))]);
    expect(JSON.parse(del.out).error).toMatchObject({ kind: 'file_not_found', suggestion: 'docs/notes.txt' });
    const far = runBin('patchtx', ['apply', '--repo', dir, patchFile(v4a('*** Update File: completely/different.txt', '@@', '-x', '+y'))]);
    expect(far.err).toBe('error: Failed to read file to update completely/different.txt: No such file or directory\n');
    // apply_patch: relative to where it runs
    const a = await applyPatch(path.join(dir, 'src'), v4a('*** Update File: util/nmae.js', '@@', '-x', '+y'));
    expect(a.code).toBe(1);
    expect(a.err).toBe('Failed to read file to update src/util/nmae.js: No such file or directory\nthe closest existing path is util/name.js\n');
    expectUntouched(dir, before);
  });
});
