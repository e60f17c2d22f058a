// A library transaction of several steps (repo.begin()): each step sees the steps before it, a
// failing step is dropped and leaves the transaction as it was, commit() lands every step as one
// commit with the guarantees of a single apply (stale, dirty, undo, a note that re-applies), and
// abort() writes nothing. Checked on real repositories with git.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository, PatchtxError } from '../../src/index.js';
import { cleanupRepos, commitCount, git, makeRepo, repoRoot, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const ADD_TODO = v4a('*** Add File: docs/todo.txt', '+first', '+second');
const EDIT_TODO = v4a('*** Update File: docs/todo.txt', '@@', ' first', '-second', '+second, edited', '+third');
const EDIT_README = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample, edited');
const NO_SUCH_CONTEXT = v4a('*** Update File: src/math.js', '@@', '-this line is not there', '+nor this one');

describe('repo.begin(): several steps, one commit', () => {
  it('two steps where the second updates the file the first added land as one commit, as preview() showed', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const count = commitCount(dir);
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    expect(tx.head).toBe(before);
    const first = await tx.apply(ADD_TODO);
    expect(first.files).toEqual([{ path: 'docs/todo.txt', op: 'A', from: null }]);
    const second = await tx.apply(EDIT_TODO);
    expect(second.files).toEqual([{ path: 'docs/todo.txt', op: 'A', from: null }]);
    await tx.apply(EDIT_README);
    expect(tx.steps).toBe(3);
    const preview = await tx.preview();
    // nothing written by the steps or the preview
    expect(rev(dir)).toBe(before);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const done = await tx.commit({ message: 'Three steps', trailers: ['Step-Count=3'] });
    expect(done.commit).toBe(rev(dir));
    expect(commitCount(dir)).toBe(count + 1);
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(git(dir, 'log', '-1', '--format=%s%n%(trailers:key=Step-Count,valueonly)').trim()).toBe('Three steps\n3');
    expect(git(dir, 'show', 'HEAD:docs/todo.txt')).toBe('first\nsecond, edited\nthird\n');
    expect(readFileSync(path.join(dir, 'docs/todo.txt'), 'utf8')).toBe('first\nsecond, edited\nthird\n');
    expect(git(dir, 'show', 'HEAD:README.md')).toContain('# Sample, edited\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('M\tREADME.md\nA\tdocs/todo.txt\n');
    // the preview's changes and diff are the commit's
    expect(preview.files).toEqual(done.files);
    expect(preview.tree).toBe(done.tree);
    expect(preview.diff).toBe(
      gitDiff(
        dir,
        preview.files.map((f) => f.path),
      ),
    );
    expectFsckClean(dir);
    expectNoLeftovers(dir);

    // the stored patch is one patch that re-applies to the same tree on the parent
    const stored = await repo.show('HEAD');
    const replay = path.join(path.dirname(dir), 'replay');
    cpSync(dir, replay, { recursive: true, verbatimSymlinks: true });
    git(replay, 'reset', '-q', '--hard', 'HEAD~1');
    const again = await (await openRepository({ dir: replay })).apply(stored, { message: 'Three steps', trailers: ['Step-Count=3'] });
    expect(again.tree).toBe(rev(dir, 'HEAD^{tree}'));
  });

  it('a failing step throws and is dropped: the commit holds the steps before and after it', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.apply(ADD_TODO);
    const e = await rejection(tx.apply(NO_SUCH_CONTEXT));
    expect(e.kind).toBe('context_not_found');
    expect(tx.steps).toBe(1);
    await tx.apply(EDIT_README);
    await tx.commit();
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('M\tREADME.md\nA\tdocs/todo.txt\n');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe(readFileSync(path.join(dir, 'src/math.js'), 'utf8'));
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('abort() writes nothing, and the ended transaction takes no further call', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const before = snapshot(dir);
    const tx = await repo.begin();
    await tx.apply(ADD_TODO);
    await tx.apply(EDIT_README);
    await tx.preview();
    tx.abort();
    expectUntouched(dir, before);
    for (const call of [() => tx.apply(EDIT_TODO), () => tx.preview(), () => tx.commit()]) {
      const e = await rejection(call());
      expect(e.kind).toBe('usage');
      expect(e.message).toContain('aborted');
    }
    expectUntouched(dir, before);
  });

  it('after commit(), further steps are a usage error', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_README);
    await tx.commit();
    const tip = rev(dir);
    const e = await rejection(tx.apply(ADD_TODO));
    expect(e.kind).toBe('usage');
    expect(e.message).toContain('committed');
    expect(rev(dir)).toBe(tip);
  });

  it('a ref that moved between begin() and commit() is stale, and nothing is written', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(ADD_TODO);
    writeFileSync(path.join(dir, 'other.txt'), 'other\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'meanwhile');
    const before = snapshot(dir);
    const e = await rejection(tx.commit());
    expect(e.kind).toBe('stale');
    expectUntouched(dir, before);
  });

  it('a touched file edited in the working tree meanwhile is refused as dirty, and kept', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_README);
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nedited by hand\n');
    const before = snapshot(dir);
    const e = await rejection(tx.commit());
    expect(e.kind).toBe('dirty');
    expectUntouched(dir, before);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# Sample\n\nedited by hand\n');
  });

  it('undo() undoes the whole commit of the steps', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.apply(ADD_TODO);
    await tx.apply(EDIT_TODO);
    await tx.apply(EDIT_README);
    await tx.commit();
    await repo.undo();
    expect(rev(dir)).toBe(before);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(git(dir, 'show', 'HEAD:README.md'));
    expectFsckClean(dir);
  });
});

describe('repo.begin(): refusals and other refs', () => {
  it('wrong options and arguments are usage errors naming them, and write nothing', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    expect((await rejection(repo.begin({ dirty: 'keep' as 'refuse' }))).message).toContain('options.dirty');
    expect((await rejection(repo.begin({ wait: 1 } as object))).message).toContain('options.wait is not an option');
    const tx = await repo.begin();
    expect((await rejection(tx.preview())).message).toContain('no steps');
    expect((await rejection(tx.commit())).message).toContain('no steps');
    expect((await rejection(tx.apply(5 as unknown as string))).kind).toBe('usage');
    await tx.apply(EDIT_README);
    expect((await rejection(tx.commit({ message: 7 as unknown as string }))).message).toContain('options.message');
    expect((await rejection(tx.commit({ diff: true } as object))).kind).toBe('usage');
    expect(tx.steps).toBe(1);
    expectUntouched(dir, before);
    // the transaction is still open after its refused calls
    await tx.commit();
    expect(git(dir, 'show', 'HEAD:README.md')).toContain('# Sample, edited\n');
  });

  it('a commit() that fails leaves the transaction open: it commits once the cause is gone', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_README);
    const committed = git(dir, 'show', 'HEAD:README.md');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nedited by hand\n');
    expect((await rejection(tx.commit())).kind).toBe('dirty');
    writeFileSync(path.join(dir, 'README.md'), committed);
    await tx.commit();
    expect(git(dir, 'show', 'HEAD:README.md')).toContain('# Sample, edited\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('abort() while commit() runs is refused: the commit lands', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_README);
    const landing = tx.commit();
    // the commit has started once the calls queued before this turn of the event loop have run
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => tx.abort()).toThrow(PatchtxError);
    expect(() => tx.abort()).toThrow(/committed/);
    const done = await landing;
    expect(rev(dir)).toBe(done.commit);
    expect(rev(dir, 'HEAD~1')).toBe(before);
  });

  it('abort() right after a commit() call that has not started yet refuses that commit: nothing is written', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin();
    await tx.apply(EDIT_README);
    const before = snapshot(dir);
    const landing = tx.commit();
    tx.abort();
    const e = await rejection(landing);
    expect(e.kind).toBe('usage');
    expect(e.message).toContain('aborted');
    expectUntouched(dir, before);
  });

  it('a new branch from a base: the steps land on it, the checkout is left alone', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const tx = await (await openRepository({ dir })).begin({ ref: 'side', base: 'HEAD' });
    expect(tx.head).toBeNull();
    await tx.apply(ADD_TODO);
    await tx.apply(EDIT_TODO);
    const done = await tx.commit();
    expect(done.ref).toBe('refs/heads/side');
    expect(rev(dir, 'side')).toBe(done.commit);
    expect(rev(dir, 'side~1')).toBe(before.head);
    expect(git(dir, 'show', 'side:docs/todo.txt')).toBe('first\nsecond, edited\nthird\n');
    expect(snapshot(dir).status).toBe(before.status);
    expect(snapshot(dir).files).toEqual(before.files);
    expectFsckClean(dir);
  });

  it('a branch created meanwhile at another commit is stale', async () => {
    const dir = makeRepo('basic');
    const tx = await (await openRepository({ dir })).begin({ ref: 'side', base: 'HEAD' });
    await tx.apply(ADD_TODO);
    git(dir, 'branch', 'side', 'HEAD~1');
    const before = snapshot(dir);
    expect((await rejection(tx.commit())).kind).toBe('stale');
    expectUntouched(dir, before);
  });

  it('with dirty: include, the uncommitted work of a touched file goes into the commit and is saved', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nedited by hand\n');
    const repo = await openRepository({ dir });
    const refused = await repo.begin();
    expect((await rejection(refused.apply(EDIT_README))).kind).toBe('dirty');
    const tx = await repo.begin({ dirty: 'include' });
    await tx.apply(EDIT_README);
    const done = await tx.commit();
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Sample, edited\n\nedited by hand\n');
    expect(done.warnings.map((w) => w.kind)).toContain('dirty_included');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});

describe('repo.begin(): a commit() killed mid-run is recovered as a single apply is', () => {
  /** A process running begin, three steps and commit() at `dir`, killed at `point`. */
  function killedAt(dir: string, point: string): void {
    const lib = path.join(repoRoot, 'dist/index.js');
    if (!existsSync(lib)) throw new Error("dist/index.js is missing: run 'node scripts/build.mjs' first");
    const program = [
      `import { openRepository } from ${JSON.stringify(lib)};`,
      `const tx = await (await openRepository({ dir: ${JSON.stringify(dir)} })).begin();`,
      ...[ADD_TODO, EDIT_TODO, EDIT_README].map((p) => `await tx.apply(${JSON.stringify(p)});`),
      `await tx.commit({ message: 'Three steps' });`,
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { env: { ...process.env, PATCHTX_TEST_CRASH_AT: point }, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.signal).toBe('SIGKILL');
  }

  it('killed past its commit point: recovery finishes the run, one commit of every step', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    killedAt(dir, 'after-ref');
    const repo = await openRepository({ dir });
    const report = await repo.recover();
    expect(report.recovered).toMatchObject({ outcome: 'finished', op: 'apply', commit: rev(dir) });
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('M\tREADME.md\nA\tdocs/todo.txt\n');
    expect(readFileSync(path.join(dir, 'docs/todo.txt'), 'utf8')).toBe('first\nsecond, edited\nthird\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('killed before its commit point: recovery drops the run, nothing changed', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    killedAt(dir, 'after-journal');
    const report = await (await openRepository({ dir })).recover();
    expect(report.recovered).toMatchObject({ outcome: 'dropped' });
    const after = snapshot(dir);
    expect({ ...after, objects: '' }).toEqual({ ...before, objects: '' });
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });
});

/**
 * The diff of the last commit as git prints it, path by path in `paths`' order, from each file's
 * `---` line on (the library's diff has no `diff --git`, mode or index lines).
 */
function gitDiff(dir: string, paths: string[]): string {
  return paths.map((p) => git(dir, 'diff', '--no-color', 'HEAD~1', 'HEAD', '--', p).replace(/^[\s\S]*?(?=^--- )/m, '')).join('');
}
