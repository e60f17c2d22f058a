import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashObject } from '../../../src/git/objects/hash.js';
import { DELETED_REF, readHead, readRef, resolveRevision, updateRef } from '../../../src/git/refs/refs.js';
import { packedRefsTimeout } from '../../../src/git/refs/packed-refs.js';
import { GitConfig } from '../../../src/git/repo/config.js';
import { cleanupRepos, git, gitTry } from '../../helpers/repos.js';
import { FIXTURE_KINDS, openFixture } from '../util.js';

afterAll(cleanupRepos);

const identity = { name: 'Patch Tx', email: 'patchtx@example.com', timestamp: 1700000000, timezoneOffset: -120 };

/** A new commit on top of `parent`, made by git. */
function newCommit(dir: string, parent: string, message = 'next'): string {
  return git(dir, 'commit-tree', `${parent}^{tree}`, '-p', parent, '-m', message).trim();
}

describe.each(FIXTURE_KINDS)('refs in a $kind repository', ({ kind, pick }) => {
  it('reads HEAD and refs (loose, packed, symbolic, missing)', async () => {
    const fx = await openFixture(kind, pick);
    const branch = kind === 'worktree' ? 'feature' : 'main';
    const head = await readHead(fx.repo);
    expect(head).toEqual({ ref: `refs/heads/${branch}`, oid: git(fx.dir, 'rev-parse', 'HEAD').trim() });
    expect(await readRef(fx.repo, 'refs/heads/main')).toBe(git(fx.dir, 'rev-parse', 'refs/heads/main').trim());
    expect(await readRef(fx.repo, 'HEAD')).toBe(head.oid);
    expect(await readRef(fx.repo, 'refs/heads/nope')).toBeNull();
    git(fx.dir, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    expect(await readRef(fx.repo, 'refs/heads/alias')).toBe(git(fx.dir, 'rev-parse', 'main').trim());
  });

  it('resolves revisions as git rev-parse does', async () => {
    const fx = await openFixture(kind, pick);
    const main = git(fx.dir, 'rev-parse', 'main').trim();
    git(fx.dir, 'tag', 'light', 'main~1');
    git(fx.dir, 'tag', '-a', '-m', 'annotated', 'v1.0', 'main');
    git(fx.dir, 'tag', '-a', '-m', 'tag of a tag', 'v1.0-outer', 'v1.0');
    git(fx.dir, 'update-ref', 'refs/remotes/origin/main', 'main~1');
    git(fx.dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    const merge = git(fx.dir, 'commit-tree', 'main^{tree}', '-p', 'main', '-p', 'main~1', '-m', 'merge').trim();
    git(fx.dir, 'update-ref', 'refs/heads/merged', merge);
    const revs = [
      'HEAD',
      '@',
      'main',
      'refs/heads/main',
      'heads/main',
      'HEAD~1',
      'HEAD^',
      'main^1',
      'HEAD^0',
      'main~0',
      'light',
      'v1.0',
      'v1.0-outer',
      'v1.0~1',
      'tags/v1.0',
      'origin/main',
      'origin',
      'merged^2',
      'merged^2~0',
      'merged~1',
      'merged^{commit}',
      main,
      main.slice(0, 7),
      main.slice(0, 4),
    ];
    for (const rev of revs) {
      const expected = git(fx.dir, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`).trim();
      expect(await resolveRevision(fx.store, fx.repo, rev), rev).toBe(expected);
    }
  });

  it('refuses what git refuses, with bad_revision naming the revision', async () => {
    const fx = await openFixture(kind, pick);
    const blob = git(fx.dir, 'rev-parse', 'main:README.md').trim();
    for (const rev of ['nope', 'HEAD~5', 'HEAD^2', 'main:README.md', '@{u}', 'deadbeef', '0'.repeat(40), blob, 'a b']) {
      expect(gitTry(fx.dir, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`).status, rev).not.toBe(0);
      await expect(resolveRevision(fx.store, fx.repo, rev), rev).rejects.toMatchObject({ kind: 'bad_revision', data: { revision: rev } });
    }
    // reflog syntax is valid git but not supported by patchtx: refused the same way
    await expect(resolveRevision(fx.store, fx.repo, 'main@{1}')).rejects.toMatchObject({
      kind: 'bad_revision',
      message: expect.stringContaining('unsupported revision syntax'),
    });
  });

  it('moves a ref with compare-and-swap and writes git-readable reflogs', async () => {
    const fx = await openFixture(kind, pick);
    const branch = kind === 'worktree' ? 'refs/heads/feature' : 'refs/heads/main';
    const old = git(fx.dir, 'rev-parse', branch).trim();
    const next = newCommit(fx.dir, old, 'moved by patchtx');
    // bare repositories log only when asked to (git's default); ask here so every kind logs
    await updateRef(fx.repo, { ref: branch, expectedOld: old, newOid: next, message: 'patchtx: apply\nsecond  line', identity, logAllRefUpdates: 'true' });
    expect(git(fx.dir, 'rev-parse', branch).trim()).toBe(next);
    expect(existsSync(path.join(fx.repo.commonDir, `${branch}.lock`))).toBe(false);
    const line = `${old} ${next} Patch Tx <patchtx@example.com> 1700000000 +0200\tpatchtx: apply second line\n`;
    const refLog = readFileSync(path.join(fx.repo.commonDir, 'logs', branch), 'utf8');
    expect(refLog.endsWith(line)).toBe(true);
    expect(git(fx.dir, 'reflog', 'show', '--format=%H %gs', branch).split('\n')[0]).toBe(`${next} patchtx: apply second line`);
    // HEAD of this checkout points at the branch, so its reflog records the move too
    expect(readFileSync(path.join(fx.repo.gitdir, 'logs', 'HEAD'), 'utf8').endsWith(line)).toBe(true);
    expect(git(fx.dir, 'reflog', 'show', '--format=%H %gs', 'HEAD').split('\n')[0]).toBe(`${next} patchtx: apply second line`);
    if (kind === 'worktree') {
      // the main checkout's HEAD (main) did not move, so its reflog is untouched
      const mainHeadLog = readFileSync(path.join(fx.repo.commonDir, 'logs', 'HEAD'), 'utf8');
      expect(mainHeadLog.includes(next)).toBe(false);
    }
    if (kind === 'packed' || kind === 'bare') {
      // the ref was only in packed-refs: now a loose file overrides it, as git itself would write
      expect(readFileSync(path.join(fx.repo.commonDir, branch), 'utf8')).toBe(`${next}\n`);
      expect(readFileSync(path.join(fx.repo.commonDir, 'packed-refs'), 'utf8')).toContain(`${old} ${branch}`);
    }
    expect(await readRef(fx.repo, branch)).toBe(next);
    expect(git(fx.dir, 'fsck', '--full', '--no-dangling')).toBe('');
  });

  it('deletes a ref as git update-ref -d does: loose or packed, its reflog and empty directories with it', async () => {
    const fx = await openFixture(kind, pick);
    const main = git(fx.dir, 'rev-parse', 'main').trim();
    git(fx.dir, 'branch', 'feat/x', 'main');
    git(fx.dir, 'branch', 'keep', 'main');
    git(fx.dir, 'tag', '-a', '-m', 'annotated', 'v1', 'main');
    // half the time packed (with the tag's peel line after it), as git gc leaves them
    if (kind === 'packed') git(fx.dir, 'pack-refs', '--all');
    const packedBefore = existsSync(path.join(fx.repo.commonDir, 'packed-refs')) ? readFileSync(path.join(fx.repo.commonDir, 'packed-refs'), 'utf8') : '';
    // a value that is not the ref's: stale, nothing deleted
    const wrong = git(fx.dir, 'rev-parse', 'main~1').trim();
    await expect(updateRef(fx.repo, { ref: 'refs/heads/feat/x', expectedOld: wrong, newOid: DELETED_REF, message: 'm', identity })).rejects.toMatchObject({
      kind: 'stale',
    });
    expect(git(fx.dir, 'rev-parse', 'feat/x').trim()).toBe(main);
    await updateRef(fx.repo, { ref: 'refs/heads/feat/x', expectedOld: main, newOid: DELETED_REF, message: 'undo', identity });
    expect(gitTry(fx.dir, 'rev-parse', '--verify', '-q', 'refs/heads/feat/x').status).not.toBe(0);
    expect(await readRef(fx.repo, 'refs/heads/feat/x')).toBeNull();
    expect(existsSync(path.join(fx.repo.commonDir, 'refs', 'heads', 'feat'))).toBe(false);
    expect(existsSync(path.join(fx.repo.commonDir, 'logs', 'refs', 'heads', 'feat'))).toBe(false);
    expect(existsSync(path.join(fx.repo.commonDir, 'packed-refs.lock'))).toBe(false);
    // every other ref is as it was, the tag's peel line included
    expect(git(fx.dir, 'rev-parse', 'keep', 'v1^{}').trim().split('\n')).toEqual([main, main]);
    if (packedBefore.includes('refs/heads/feat/x')) {
      const packed = readFileSync(path.join(fx.repo.commonDir, 'packed-refs'), 'utf8');
      expect(packed).toBe(packedBefore.replace(`${main} refs/heads/feat/x\n`, ''));
      expect(packed).toMatch(/ refs\/tags\/v1\n\^[0-9a-f]{40}\n/);
    }
    // a branch that does not exist cannot be deleted: stale
    await expect(updateRef(fx.repo, { ref: 'refs/heads/feat/x', expectedOld: main, newOid: DELETED_REF, message: 'm', identity })).rejects.toMatchObject({
      kind: 'stale',
    });
    expect(git(fx.dir, 'fsck', '--full', '--no-dangling')).toBe('');
  });

  it('fails with stale when the ref moved, and leaves no lock behind', async () => {
    const fx = await openFixture(kind, pick);
    const ref = 'refs/heads/main';
    const old = git(fx.dir, 'rev-parse', ref).trim();
    const next = newCommit(fx.dir, old);
    const wrong = git(fx.dir, 'rev-parse', 'main~1').trim();
    await expect(updateRef(fx.repo, { ref, expectedOld: wrong, newOid: next, message: 'm', identity })).rejects.toMatchObject({
      kind: 'stale',
      data: { ref, expected: wrong, actual: old },
    });
    await expect(updateRef(fx.repo, { ref, expectedOld: null, newOid: next, message: 'm', identity })).rejects.toMatchObject({
      kind: 'stale',
      data: { ref, expected: null, actual: old },
    });
    expect(git(fx.dir, 'rev-parse', ref).trim()).toBe(old);
    expect(existsSync(path.join(fx.repo.commonDir, `${ref}.lock`))).toBe(false);
  });

  it('fails with stale while another process holds the lock, and leaves that lock alone', async () => {
    const fx = await openFixture(kind, pick);
    const ref = 'refs/heads/main';
    const old = git(fx.dir, 'rev-parse', ref).trim();
    const lock = path.join(fx.repo.commonDir, `${ref}.lock`);
    writeFileSync(lock, '');
    await expect(updateRef(fx.repo, { ref, expectedOld: old, newOid: newCommit(fx.dir, old), message: 'm', identity })).rejects.toMatchObject({
      kind: 'stale',
      message: expect.stringContaining('another process is updating refs/heads/main (lock file exists'),
    });
    expect(existsSync(lock)).toBe(true);
    expect(git(fx.dir, 'rev-parse', ref).trim()).toBe(old);
  });

  it('creates new refs (expectedOld null) in nested namespaces', async () => {
    const fx = await openFixture(kind, pick);
    const oid = git(fx.dir, 'rev-parse', 'main').trim();
    await updateRef(fx.repo, { ref: 'refs/heads/topic/new', expectedOld: null, newOid: oid, message: 'branch: created', identity });
    expect(git(fx.dir, 'rev-parse', 'topic/new').trim()).toBe(oid);
    // git's default: reflogs in a checkout, none in a bare repository
    const log = path.join(fx.repo.commonDir, 'logs', 'refs/heads/topic/new');
    if (kind === 'bare') expect(existsSync(log)).toBe(false);
    else expect(git(fx.dir, 'reflog', 'show', '--format=%gs', 'refs/heads/topic/new').trim()).toBe('branch: created');
  });

  it('appends to a reflog that exists whatever the setting, and starts none git would not', async () => {
    const fx = await openFixture(kind, pick);
    const oid = git(fx.dir, 'rev-parse', 'main').trim();
    const next = newCommit(fx.dir, oid, 'logged anyway');
    git(fx.dir, 'update-ref', '--create-reflog', 'refs/heads/logged', oid);
    await updateRef(fx.repo, { ref: 'refs/heads/logged', expectedOld: oid, newOid: next, message: 'moved', identity, logAllRefUpdates: 'false' });
    expect(git(fx.dir, 'reflog', 'show', '--format=%H %gs', 'refs/heads/logged').split('\n')[0]).toBe(`${next} moved`);
    // a tag without a reflog gets none unless the setting is 'always'; nor does a branch with it off
    await updateRef(fx.repo, { ref: 'refs/tags/quiet', expectedOld: null, newOid: oid, message: 'tag: created', identity, logAllRefUpdates: 'true' });
    await updateRef(fx.repo, { ref: 'refs/heads/quiet/x', expectedOld: null, newOid: oid, message: 'created', identity, logAllRefUpdates: 'false' });
    expect(existsSync(path.join(fx.repo.commonDir, 'logs', 'refs', 'tags', 'quiet'))).toBe(false);
    expect(existsSync(path.join(fx.repo.commonDir, 'logs', 'refs', 'heads', 'quiet'))).toBe(false);
    expect(git(fx.dir, 'rev-parse', 'quiet', 'quiet/x').trim().split('\n')).toEqual([oid, oid]);
  });

  it('logs every ref with core.logAllRefUpdates=always', async () => {
    const fx = await openFixture(kind, pick);
    const oid = git(fx.dir, 'rev-parse', 'main').trim();
    await updateRef(fx.repo, { ref: 'refs/tags/t1', expectedOld: null, newOid: oid, message: 'tag: created', identity, logAllRefUpdates: 'always' });
    expect(git(fx.dir, 'reflog', 'show', '--format=%gs', 'refs/tags/t1').trim()).toBe('tag: created');
  });
});

describe('refs, special cases', () => {
  it('lets exactly one of several concurrent updates from the same old value win', async () => {
    const fx = await openFixture('basic');
    const old = git(fx.dir, 'rev-parse', 'main').trim();
    const candidates = Array.from({ length: 8 }, (_, i) => newCommit(fx.dir, old, `candidate ${i}`));
    const results = await Promise.allSettled(
      candidates.map((c) => updateRef(fx.repo, { ref: 'refs/heads/main', expectedOld: old, newOid: c, message: 'race', identity })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won.length).toBe(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'stale' });
    const now = git(fx.dir, 'rev-parse', 'main').trim();
    expect(candidates).toContain(now);
  });

  it('reads and moves a detached HEAD, and updates a branch through HEAD', async () => {
    const fx = await openFixture('basic');
    const main = git(fx.dir, 'rev-parse', 'main').trim();
    const next = newCommit(fx.dir, main);
    await updateRef(fx.repo, { ref: 'HEAD', expectedOld: main, newOid: next, message: 'through HEAD', identity });
    expect(git(fx.dir, 'rev-parse', 'main').trim()).toBe(next);
    expect(git(fx.dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');

    git(fx.dir, 'checkout', '-q', '--detach', 'main~1');
    const detached = git(fx.dir, 'rev-parse', 'HEAD').trim();
    expect(await readHead(fx.repo)).toEqual({ ref: null, oid: detached });
    const moved = newCommit(fx.dir, detached);
    await updateRef(fx.repo, { ref: 'HEAD', expectedOld: detached, newOid: moved, message: 'detached move', identity });
    expect(git(fx.dir, 'rev-parse', 'HEAD').trim()).toBe(moved);
    expect(gitTry(fx.dir, 'symbolic-ref', '-q', 'HEAD').status).not.toBe(0);
    expect(git(fx.dir, 'reflog', 'show', '--format=%H %gs', 'HEAD').split('\n')[0]).toBe(`${moved} detached move`);
    expect(git(fx.dir, 'rev-parse', 'main').trim()).toBe(next);
  });

  it('reports an unborn branch as a null oid', async () => {
    const fx = await openFixture('empty');
    git(fx.dir, 'checkout', '-q', '--orphan', 'fresh');
    expect(await readHead(fx.repo)).toEqual({ ref: 'refs/heads/fresh', oid: null });
  });

  it('keeps per-worktree refs in the worktree gitdir', async () => {
    const fx = await openFixture('worktree', (d) => `${d}-wt`);
    const oid = git(fx.dir, 'rev-parse', 'HEAD').trim();
    await updateRef(fx.repo, { ref: 'refs/bisect/bad', expectedOld: null, newOid: oid, message: 'bisect', identity });
    expect(readFileSync(path.join(fx.repo.gitdir, 'refs/bisect/bad'), 'utf8')).toBe(`${oid}\n`);
    expect(git(fx.dir, 'rev-parse', 'refs/bisect/bad').trim()).toBe(oid);
    expect(gitTry(path.dirname(fx.dir) + '/repo', 'rev-parse', '--verify', '--quiet', 'refs/bisect/bad').status).not.toBe(0);
    expect(await readRef(fx.repo, 'refs/bisect/bad')).toBe(oid);
  });

  it('reports ambiguous short ids', async () => {
    const fx = await openFixture('basic');
    // find two blobs whose ids share 4 hex digits, then store both
    const seen = new Map<string, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; !pair; i++) {
      const text = `ambiguity probe ${i}\n`;
      const prefix = hashObject('blob', Buffer.from(text)).slice(0, 4);
      const other = seen.get(prefix);
      if (other !== undefined) pair = [other, text];
      else seen.set(prefix, text);
    }
    const a = await fx.store.writeBlob(Buffer.from(pair[0]));
    await fx.store.writeBlob(Buffer.from(pair[1]));
    const prefix = a.slice(0, 4);
    expect(gitTry(fx.dir, 'rev-parse', '--verify', '--quiet', prefix).status).not.toBe(0);
    await expect(resolveRevision(fx.store, fx.repo, prefix)).rejects.toMatchObject({
      kind: 'bad_revision',
      message: expect.stringContaining('ambiguous'),
    });
  });
});

describe('packedRefsTimeout', () => {
  const timeoutOf = (value: string | null): number => packedRefsTimeout(GitConfig.fromText(value === null ? '' : `[core]\n\tpackedRefsTimeout = ${value}\n`));
  it("reads core.packedRefsTimeout as git does: milliseconds with a k/m/g suffix, negative for no limit, else git's default", () => {
    expect(timeoutOf(null)).toBe(1000);
    expect(timeoutOf('0')).toBe(0);
    expect(timeoutOf('2500')).toBe(2500);
    expect(timeoutOf('2k')).toBe(2048);
    expect(timeoutOf('-1')).toBe(-1);
    expect(timeoutOf('soon')).toBe(1000);
  });
});
