// One process serving several repositories (the library): each repository's writes follow its own
// core.fsync, whichever repository was opened last.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileHandle } from '../../src/git/fs/fsx.js';
import { updateRef } from '../../src/git/refs/refs.js';
import { openSession } from '../../src/tx/session.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { isolateGitEnv } from '../helpers/scratch.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupRepos());
afterEach(() => vi.restoreAllMocks());

const identity = { name: 'T', email: 't@example.invalid', timestamp: 1767225600, timezoneOffset: 0 };

describe('core.fsync with two repositories open in one process', () => {
  it('a ref written in a repository that asks for fsync is synced after another repository was opened', async () => {
    const durable = makeRepo('basic');
    git(durable, 'config', 'core.fsync', 'reference');
    const plain = makeRepo('basic');
    const a = await openSession({ cwd: durable, noRecover: true });
    const b = await openSession({ cwd: plain, noRecover: true });
    try {
      const sync = vi.spyOn(FileHandle.prototype, 'sync');
      const head = git(durable, 'rev-parse', 'HEAD').trim();
      await updateRef(a.repo, { ref: 'refs/heads/synced', expectedOld: null, newOid: head, message: 'test', identity });
      expect(sync).toHaveBeenCalled();
      sync.mockClear();
      // and the other repository keeps git's default: refs are not synced
      await updateRef(b.repo, { ref: 'refs/heads/unsynced', expectedOld: null, newOid: head, message: 'test', identity });
      expect(sync).not.toHaveBeenCalled();
      expect(git(durable, 'rev-parse', 'refs/heads/synced').trim()).toBe(head);
      expect(git(plain, 'rev-parse', 'refs/heads/unsynced').trim()).toBe(head);
    } finally {
      a.store.close();
      b.store.close();
    }
  });
});
