// A remote configured as a relative path (`git remote add origin ../server.git`) is taken from the
// repository's working tree root, as git takes it (git runs from there whatever the directory it
// was started in), not from the directory patchtx happens to be run in: a CI job that runs
// `patchtx --repo checkout apply --push` from elsewhere pushes to the same repository git would.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCli } from '../helpers/cli.js';
import { addLine, anotherBotPushes, localHost, seededRemote } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

useBuiltCli();

describe('a remote whose URL is a relative path', () => {
  it('is found from the working tree root, from whatever directory patchtx runs in', async () => {
    const { bare, clone } = await seededRemote(localHost());
    git(clone, 'remote', 'set-url', 'origin', path.relative(clone, bare));
    // git itself finds it from a subdirectory of the checkout
    mkdirSync(path.join(clone, 'sub'));
    expect(git(path.join(clone, 'sub'), 'ls-remote', 'origin', 'refs/heads/main').slice(0, 40)).toBe(rev(bare, 'main'));
    const elsewhere = tempDir();
    const r = await runCli(['apply', '--repo', clone, addLine('two'), '--push', '--json'], { cwd: elsewhere });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(rev(bare, 'main')).toBe(rev(clone));
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+two');
    expectFsckClean(bare);
  });

  it('--retry fetches from it too', async () => {
    const { bare, clone } = await seededRemote(localHost());
    git(clone, 'remote', 'set-url', 'origin', path.relative(clone, bare));
    const theirs = await anotherBotPushes(bare);
    const r = await runCli(['apply', '--repo', clone, addLine('two'), '--push', '--retry', '1', '--json'], { cwd: path.join(clone, '..') });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(rev(bare, 'main~1')).toBe(theirs);
    expect(git(bare, 'show', 'main:a.txt')).toBe('one\ntwo\n');
  });
});
