// apply --push --retry finds the repository as every other step of it does: a caller naming it by
// the directory it works in (cwd, as discovery from a subdirectory) has the branch moved back to
// the remote's tip in that repository, not in the process's current directory's.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { pushWithRetry } from '../../src/commands/push-retry.js';
import { patchtxJson } from '../helpers/cli.js';
import { seededRemote, type SharedRemote, useHttpHost } from '../helpers/remote.js';
import { git, gitOk, rev } from '../helpers/repos.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const host = useHttpHost();

let setup: SharedRemote;
beforeEach(async () => {
  setup = await seededRemote(host());
});

// a branch of a name no other repository has, so that a move in the wrong one can only fail
const REF = 'refs/heads/retry-from-cwd';

describe('apply --push --retry', () => {
  it('moves the branch in the repository named by cwd', async () => {
    git(setup.clone, 'branch', 'retry-from-cwd', 'main');
    await gitOk(setup.clone, 'push', '-q', 'origin', 'retry-from-cwd');
    // another clone moves the remote branch on
    const other = path.join(tempDir(), 'other');
    await gitOk(path.dirname(other), 'clone', '-q', '-b', 'retry-from-cwd', setup.url, other);
    git(other, '-c', 'user.name=Other', '-c', 'user.email=o@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'theirs');
    await gitOk(other, 'push', '-q', 'origin', `HEAD:${REF}`);
    const theirs = rev(other);
    const patchText = v4a('*** Update File: a.txt', '@@', ' one', '+two');
    const applied = await patchtxJson('apply', '--repo', setup.clone, '--ref', REF, patchFile(patchText));
    expect(applied.code, applied.out + applied.err).toBe(0);
    const sub = path.join(setup.clone, 'sub');
    mkdirSync(sub);
    const r = await pushWithRetry({
      cwd: sub,
      ref: REF,
      builtOn: applied.json.parent,
      committed: [applied.json.commit],
      patches: [{ cwd: sub, ref: REF, patchText }],
      retries: 1,
    });
    expect(r.retries).toBe(1);
    expect(rev(setup.bare, REF)).toBe(r.commit);
    expect(rev(setup.bare, `${REF}~1`)).toBe(theirs);
    expect(rev(setup.clone, REF)).toBe(r.commit);
    expectFsckClean(setup.clone);
  });
});
