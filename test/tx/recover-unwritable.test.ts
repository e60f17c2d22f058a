// Recovery of a run that died after its commit point must finish even when the file system refuses
// some of its paths (an immutable directory, a name too long for it): such a path is left as it
// is, with a warning, its index entry set to the commit, and the journal goes. Otherwise every
// later command would stop at the same write for ever. Kills a real `patchtx apply` right after the
// ref moved, makes a directory immutable (what stops root too), then runs `patchtx recover`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, cliOk, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { leftoverFiles } from '../helpers/snapshot.js';
import { immutableSupported, makeImmutable, makeMutable, releaseImmutable } from '../helpers/immutable.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  releaseImmutable();
  cleanupRepos();
  cleanupBuiltCli();
});

const PATCH = `*** Begin Patch
*** Update File: src/math.js
@@
-  return a + b;
+  return a + b + 0;
*** Add File: src/new.txt
+new
*** Delete File: docs/notes.txt
*** End Patch
`;

const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

describe('recovery when the file system refuses a path', () => {
  it.skipIf(!immutableSupported)('finishes, leaves the paths it cannot write with a warning each, and sets their index entries to the commit', async () => {
    const dir = makeRepo('basic');
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, PATCH);
    const killed = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const landed = git(dir, 'rev-parse', 'HEAD').trim();
    makeImmutable(path.join(dir, 'src'));

    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', commit: landed });
    expect(report.warnings).toEqual([
      { kind: 'note', path: 'src/math.js', message: expect.stringMatching(/^could not write src\/math\.js \(.*EPERM.*\); its index entry is the commit's/) },
      { kind: 'note', path: 'src/new.txt', message: expect.stringMatching(/^could not write src\/new\.txt \(.*EPERM.*\); its index entry is the commit's/) },
    ]);
    // nothing is left to recover: the next command goes on
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expect(JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered).toBeNull();
    // the paths it could write are done; the others show in git status against the commit
    expect(() => readFileSync(path.join(dir, 'docs/notes.txt'))).toThrow(/ENOENT/);
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b;\n');
    expect(git(dir, 'ls-files', '-s', 'src/math.js', 'src/new.txt')).toBe(
      git(dir, 'ls-tree', '-r', landed, '--', 'src/math.js', 'src/new.txt').replace(/^(\d+) blob (\w+)\t/gm, '$1 $2 0\t'),
    );
    expect(status(dir)).toBe(' M src/math.js\n D src/new.txt\n');
    expect(git(dir, 'fsck', '--no-progress')).toBe('');

    // once the directory can be written again, git brings the files in line
    makeMutable(path.join(dir, 'src'));
    git(dir, 'checkout', '--', 'src');
    expect(status(dir)).toBe('');
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b + 0;\n');
  });
});
