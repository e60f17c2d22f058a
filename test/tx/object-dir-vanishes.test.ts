// Next to `git gc` / `git prune-packed`, the fan-out directory a loose object is being written
// into can be removed between patchtx creating it and creating the object's temporary file in it
// (prune-packed removes every fan-out directory it leaves empty). The write must make the
// directory again and go on, as git's own object writes do. A real apply is held right after it
// made the directory while the test removes it, as prune-packed would.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const blobId = (content: string): string => spawnSync('git', ['hash-object', '--stdin'], { input: content, env: gitEnv, encoding: 'utf8' }).stdout.trim();

describe('an object directory removed while an object is written into it', () => {
  it('is made again and the transaction lands', async () => {
    const dir = makeRepo('basic');
    const objects = path.join(dir, '.git', 'objects');
    // a new file whose blob goes into a fan-out directory the repository does not have yet: that
    // directory is empty between patchtx making it and writing into it, so prune-packed removes it
    let content = '';
    for (let i = 0; ; i++) {
      content = `new content ${i}\n`;
      if (!existsSync(path.join(objects, blobId(content).slice(0, 2)))) break;
    }
    const fanout = path.join(objects, blobId(content).slice(0, 2));
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, `*** Begin Patch\n*** Add File: new.txt\n+${content.trimEnd()}\n*** End Patch\n`);
    const release = path.join(dir, '..', 'go');
    const run = runCli(['apply', '--repo', dir, patch, '--json'], { env: { PATCHTX_TEST_PAUSE_AT: 'loose-object-dir', PATCHTX_TEST_PAUSE_UNTIL: release } });
    await waitFor(() => existsSync(fanout), 'the run made the directory');
    expect(readdirSync(fanout)).toEqual([]);
    rmdirSync(fanout);
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(git(dir, 'cat-file', 'blob', `HEAD:new.txt`)).toBe(content);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling').trim()).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });
});
