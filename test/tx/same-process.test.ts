// Two transactions of one process at once (a library user's server or agent harness): the second
// must meet the first's journal and locks as a live run's, as it would meet another process's, and
// never take them over as if left by a dead run. The first run is held inside its transaction (its
// journal and index.lock taken) by a prepare step that waits for the test.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepository, PatchtxError } from '../../src/index.js';
import { resolveIdentity } from '../../src/git/repo/identity.js';
import { runTransaction } from '../../src/tx/run.js';
import { openSession } from '../../src/tx/session.js';
import { resolveTarget } from '../../src/tx/target.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const UPDATE_README = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample, edited');

describe('a second transaction of the same process while the first is under way', () => {
  it('is refused as busy, and leaves the first run its journal and index.lock', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const lock = path.join(dir, '.git', 'index.lock');
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    const session = await openSession({ repoDir: dir });
    try {
      const target = await resolveTarget(session, { commits: true });
      const identity = resolveIdentity(session.config, 'committer', session.env);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const first = runTransaction(session, target, 'apply', identity, async () => {
        entered();
        await gate;
        throw new PatchtxError('usage', 'stopped by the test');
      });
      await inside;
      expect(existsSync(lock)).toBe(true);
      expect(existsSync(journal)).toBe(true);

      const repo = await openRepository({ dir });
      const e = await rejection(repo.apply(UPDATE_README));
      expect(e.kind).toBe('stale');
      // the first run's journal and lock are still there, as it left them
      expect(existsSync(lock)).toBe(true);
      expect(existsSync(journal)).toBe(true);
      expect(rev(dir)).toBe(base);

      release();
      await expect(first).rejects.toThrow('stopped by the test');
      expect(existsSync(lock)).toBe(false);
      expect(existsSync(journal)).toBe(false);

      const done = await repo.apply(UPDATE_README);
      expect(rev(dir)).toBe(done.commit);
      expect(git(dir, 'status', '--porcelain', '--', 'README.md')).toBe('');
      expectFsckClean(dir);
    } finally {
      session.store.close();
    }
  });
});
