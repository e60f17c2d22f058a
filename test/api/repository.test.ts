// The transaction as a library: openRepository() and its commands, on real repositories, give
// exactly what `patchtx <command> --json` prints for the same operation (run on a copy of the same
// repository at the same clock), land the same commits as git reads them, and refuse bad calls
// with the kinds the CLI maps to exit codes.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository, type Repository } from '../../src/index.js';
import { cleanupRepos, makeRepo } from '../helpers/repos.js';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { BASIC_PATCH, cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

const scratch: string[] = [];

beforeAll(() => {
  isolateGitEnv();
  // one clock for both sides: the library's commit and the CLI's get the same ids
  process.env.GIT_AUTHOR_DATE = '2026-03-01T12:00:00+0100';
  process.env.GIT_COMMITTER_DATE = '2026-03-01T12:00:00+0100';
});
afterAll(() => {
  delete process.env.GIT_AUTHOR_DATE;
  delete process.env.GIT_COMMITTER_DATE;
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Two copies of one basic repository: one for the library, one for the CLI. */
function twins(): { lib: string; cli: string } {
  const lib = makeRepo('basic');
  const cli = path.join(path.dirname(lib), 'cli-copy');
  cpSync(lib, cli, { recursive: true, verbatimSymlinks: true });
  return { lib, cli };
}

const UPDATE_README = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample, edited');

describe('the library gives what the CLI prints with --json', () => {
  it('apply, with a message, an author, trailers and the diff', async () => {
    const { lib, cli } = twins();
    const repo = await openRepository({ dir: lib });
    const got = await repo.apply(BASIC_PATCH, { message: 'Make it so', author: 'Ann Author <ann@example.invalid>', trailers: ['Reviewed-by=Bo'], diff: true });
    const printed = await patchtxJson(
      'apply',
      '--repo',
      cli,
      '-m',
      'Make it so',
      '--author',
      'Ann Author <ann@example.invalid>',
      '--trailer',
      'Reviewed-by=Bo',
      '--diff',
      patchFile(BASIC_PATCH),
    );
    expect(printed.code, printed.out).toBe(0);
    expect(got).toEqual(printed.json);
    // and the commit is the one git finds on the branch
    expect(got.commit).toBe(rev(lib));
    expect(got.tree).toBe(rev(lib, 'HEAD^{tree}'));
    expect(git(lib, 'log', '-1', '--format=%an <%ae>|%s')).toBe('Ann Author <ann@example.invalid>|Make it so\n');
    expect(git(lib, 'status', '--porcelain')).toBe(git(cli, 'status', '--porcelain'));
    expect(git(lib, 'status', '--porcelain', '--', 'src', 'bin')).toBe('');
    expectFsckClean(lib);
  });

  it('check: the same object, and nothing written', async () => {
    const { lib, cli } = twins();
    const before = snapshot(lib);
    const got = await (await openRepository({ dir: lib })).check(BASIC_PATCH);
    const printed = await patchtxJson('check', '--repo', cli, patchFile(BASIC_PATCH));
    expect(printed.code).toBe(0);
    expect(got).toEqual(printed.json);
    expect(got.commit).toBeNull();
    expect(got.wouldCommit).toMatch(/^[0-9a-f]{40}$/);
    expectUntouched(lib, before);
  });

  it('undo, redo, log, show and recover', async () => {
    const { lib, cli } = twins();
    const repo = await openRepository({ dir: lib });
    await repo.apply(BASIC_PATCH);
    await repo.apply(UPDATE_README, { message: 'Edit the readme' });
    expect((await patchtx('apply', '--repo', cli, patchFile(BASIC_PATCH))).code).toBe(0);
    expect((await patchtx('apply', '--repo', cli, '-m', 'Edit the readme', patchFile(UPDATE_README))).code).toBe(0);
    expect(rev(lib)).toBe(rev(cli));

    const log = await repo.log();
    expect(log).toEqual((await patchtxJson('log', '--repo', cli)).json);
    expect(log.map((e) => e.commit)).toEqual(git(lib, 'log', '-2', '--format=%H').trim().split('\n'));
    expect(await repo.log({ maxCount: 1 })).toEqual((await patchtxJson('log', '--repo', cli, '-n', '1')).json);

    const shown = await repo.show('HEAD');
    const printedShow = await patchtx('show', '--repo', cli, 'HEAD');
    expect(printedShow.code).toBe(0);
    expect(shown).toBe(printedShow.out);
    expect(shown).toBe(UPDATE_README);
    expect(await repo.record('HEAD')).toEqual((await patchtxJson('show', '--repo', cli, '--json', 'HEAD')).json);

    const tip = rev(lib);
    const undone = await repo.undo();
    expect(undone).toEqual((await patchtxJson('undo', '--repo', cli)).json);
    expect(undone).toMatchObject({ ok: true, action: 'reset', target: tip, commit: rev(lib) });
    expect(rev(lib)).toBe(rev(lib, `${tip}~1`));

    const redone = await repo.redo();
    expect(redone).toEqual((await patchtxJson('redo', '--repo', cli)).json);
    expect(rev(lib)).toBe(tip);

    // an older commit: a revert commit, at the same clock on both sides
    const older = rev(lib, 'HEAD~1');
    const reverted = await repo.undo({ commit: older });
    expect(reverted).toEqual((await patchtxJson('undo', '--repo', cli, older)).json);
    expect(reverted.action).toBe('revert');
    expect(rev(lib)).toBe(rev(cli));

    const recovered = await repo.recover();
    expect(recovered).toEqual((await patchtxJson('recover', '--repo', cli)).json);
    expect(recovered).toEqual({ ok: true, recovered: null });
    expectFsckClean(lib);
    expect(git(lib, 'status', '--porcelain')).toBe(git(cli, 'status', '--porcelain'));
  });

  it('recover after a run killed past its commit point: the same report, and the run finished', async () => {
    const { lib, cli } = twins();
    requireBuiltCli();
    // the same interrupted state in both copies (a copy of a lock is not the killed run's own, so each is killed)
    for (const d of [lib, cli]) {
      const killed = await runCli(['apply', '--repo', d, patchFile(UPDATE_README)], { env: { ...process.env, PATCHTX_TEST_CRASH_AT: 'after-ref' } });
      expect(killed.signal).toBe('SIGKILL');
    }
    const landed = rev(lib);
    expect(rev(cli)).toBe(landed);
    const got = await (await openRepository({ dir: lib })).recover();
    const printed = await patchtxJson('recover', '--repo', cli);
    expect(printed.code, printed.out).toBe(0);
    // only the killed process's id differs
    expect(got.recovered?.pid).not.toBe(printed.json.recovered.pid);
    expect({ ...got, recovered: { ...got.recovered, pid: 0 } }).toEqual({ ...printed.json, recovered: { ...printed.json.recovered, pid: 0 } });
    expect(got.recovered).toMatchObject({ outcome: 'finished', op: 'apply', ref: 'refs/heads/main', commit: landed });
    expect(git(lib, 'status', '--porcelain', '--', 'README.md')).toBe('');
    expect(git(lib, 'show', 'HEAD:README.md')).toContain('# Sample, edited');
    expectFsckClean(lib);
  });

  it('apply taking uncommitted work in (dirty: include): the same warnings', async () => {
    const { lib, cli } = twins();
    for (const d of [lib, cli]) writeFileSync(path.join(d, 'README.md'), '# Sample\n\nA small repository for patchtx tests, edited by hand.\n');
    const got = await (await openRepository({ dir: lib })).apply(UPDATE_README, { dirty: 'include' });
    const printed = await patchtxJson('apply', '--repo', cli, '--dirty', 'include', patchFile(UPDATE_README));
    expect(printed.code, printed.out).toBe(0);
    expect(got).toEqual(printed.json);
    expect(got.warnings.map((w) => w.kind)).toEqual(['dirty_included']);
    expect(git(lib, 'show', 'HEAD:README.md')).toBe('# Sample, edited\n\nA small repository for patchtx tests, edited by hand.\n');
  });

  it('an already applied patch and a noop, as the CLI reports them', async () => {
    const { lib, cli } = twins();
    const repo = await openRepository({ dir: lib });
    await repo.apply(UPDATE_README);
    expect((await patchtx('apply', '--repo', cli, patchFile(UPDATE_README))).code).toBe(0);
    const again = await repo.apply(UPDATE_README);
    expect(again).toEqual((await patchtxJson('apply', '--repo', cli, patchFile(UPDATE_README))).json);
    expect(again).toMatchObject({ noop: true, alreadyApplied: rev(lib) });
  });
});

describe('finding the repository', () => {
  it('from a subdirectory of a checkout', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir: path.join(dir, 'src', 'util') });
    expect(repo.workdir).toBe(git(dir, 'rev-parse', '--show-toplevel').trim());
    // paths are the repository's, as with the CLI
    const r = await repo.apply(UPDATE_README);
    expect(r.commit).toBe(rev(dir));
    expect(git(dir, 'show', 'HEAD:README.md')).toContain('# Sample, edited');
  });

  it('a bare repository: onto its HEAD branch, no working tree', async () => {
    const dir = makeRepo('bare');
    const repo = await openRepository({ dir });
    expect(repo.workdir).toBeNull();
    // a bare clone has no identity configured: given as options
    const r = await repo.apply(UPDATE_README, { author: 'Ann <ann@example.invalid>', committer: 'Bot <bot@example.invalid>' });
    expect(git(dir, 'log', '-1', '--format=%an|%cn', 'main')).toBe('Ann|Bot\n');
    expect(r.commit).toBe(rev(dir, 'refs/heads/main'));
    expect(git(dir, 'show', 'main:README.md')).toContain('# Sample, edited');
    expectFsckClean(dir);
  });

  it('a linked worktree: its own branch and checkout', async () => {
    const dir = makeRepo('worktree');
    const wt = `${dir}-wt`;
    const main = rev(dir, 'refs/heads/main');
    const repo = await openRepository({ dir: wt });
    const r = await repo.apply(UPDATE_README);
    expect(r.ref).toBe('refs/heads/feature');
    expect(r.commit).toBe(rev(wt, 'refs/heads/feature'));
    expect(rev(dir, 'refs/heads/main')).toBe(main);
    expect(git(wt, 'status', '--porcelain', '--', 'README.md')).toBe('');
    expect(git(dir, 'worktree', 'list', '--porcelain')).toContain(`branch refs/heads/feature`);
  });

  it('a directory outside any repository is not_a_repository, and so is one that does not exist', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'patchtx-norepo-'));
    scratch.push(outside);
    const e = await rejection(openRepository({ dir: outside }));
    expect(e.kind).toBe('not_a_repository');
    expect((await rejection(openRepository({ dir: path.join(outside, 'missing') }))).kind).toBe('not_a_repository');
  });
});

describe('errors', () => {
  let repo: Repository;
  let dir: string;
  beforeAll(async () => {
    dir = makeRepo('basic');
    repo = await openRepository({ dir });
  });

  const bad: Array<[string, () => Promise<unknown>, string]> = [
    ['openRepository()', () => (openRepository as (o?: unknown) => Promise<unknown>)(), 'options.dir'],
    ['openRepository(string)', () => (openRepository as (o: unknown) => Promise<unknown>)('.'), 'options must be an object'],
    ['openRepository({ dir: 5 })', () => (openRepository as (o: unknown) => Promise<unknown>)({ dir: 5 }), 'options.dir'],
    ['openRepository({ path })', () => (openRepository as (o: unknown) => Promise<unknown>)({ path: '.' }), 'options.path is not an option'],
    ['apply(42)', () => (repo.apply as (t: unknown) => Promise<unknown>)(42), 'the patch text must be a string'],
    ['apply(text, null)', () => (repo.apply as (t: string, o: unknown) => Promise<unknown>)(UPDATE_README, null), 'options must be an object'],
    ['apply ref: 1', () => repo.apply(UPDATE_README, { ref: 1 as unknown as string }), 'options.ref must be a string'],
    ['apply expectHead: {}', () => repo.apply(UPDATE_README, { expectHead: {} as unknown as string }), 'options.expectHead'],
    ['apply dirty: maybe', () => repo.apply(UPDATE_README, { dirty: 'maybe' as 'include' }), "options.dirty must be 'refuse' or 'include'"],
    ['apply trailers: string', () => repo.apply(UPDATE_README, { trailers: 'A=b' as unknown as string[] }), 'options.trailers must be an array'],
    ['apply trailers: [1]', () => repo.apply(UPDATE_README, { trailers: [1 as unknown as string] }), 'options.trailers[0]'],
    ['apply strict: yes', () => repo.apply(UPDATE_README, { strict: 'yes' as unknown as boolean }), 'options.strict must be a boolean'],
    ['apply limits.patchBytes: 0', () => repo.apply(UPDATE_README, { limits: { patchBytes: 0 } }), 'options.limits.patchBytes'],
    ['apply limits.bogus', () => repo.apply(UPDATE_README, { limits: { bogus: 1 } as object }), 'options.limits.bogus is not a limit'],
    ['apply wait: -1', () => repo.apply(UPDATE_README, { wait: -1 }), 'options.wait'],
    ['apply expect_head', () => repo.apply(UPDATE_README, { expect_head: 'x' } as object), 'options.expect_head is not an option'],
    ['check(undefined)', () => (repo.check as (t: unknown) => Promise<unknown>)(undefined), 'the patch text must be a string'],
    ['undo commit: 5', () => repo.undo({ commit: 5 as unknown as string }), 'options.commit must be a string'],
    ['redo revert: 1', () => repo.redo({ revert: 1 as unknown as boolean }), 'options.revert must be a boolean'],
    ['log maxCount: 0', () => repo.log({ maxCount: 0 }), 'options.maxCount'],
    ['log maxCount: 1.5', () => repo.log({ maxCount: 1.5 }), 'options.maxCount'],
    ['show()', () => (repo.show as (c?: unknown) => Promise<unknown>)(), 'show: the commit'],
    ['show regen: true', () => repo.show('HEAD', { regen: true } as object), 'options.regen is not an option'],
    ['show regenerate: "yes"', () => repo.show('HEAD', { regenerate: 'yes' as unknown as boolean }), 'options.regenerate must be a boolean'],
    ['record(5)', () => (repo.record as (c?: unknown) => Promise<unknown>)(5), 'record: the commit'],
  ];
  for (const [name, call, names] of bad) {
    it(`a wrong argument is usage, naming it: ${name}`, async () => {
      const before = rev(dir);
      const e = await rejection(call());
      expect(e.kind).toBe('usage');
      expect(e.message).toContain(names);
      expect(rev(dir)).toBe(before);
    });
  }

  it('a stale expectHead is stale, and nothing is written', async () => {
    const before = snapshot(dir);
    const e = await rejection(repo.apply(UPDATE_README, { expectHead: rev(dir, 'HEAD~1') }));
    expect(e.kind).toBe('stale');
    expectUntouched(dir, before);
  });

  it('messages name options, not flags; the data says which option and what would help', async () => {
    const d = makeRepo('basic');
    writeFileSync(path.join(d, 'README.md'), '# Sample\n\nchanged here\n');
    const r = await openRepository({ dir: d });
    const dirty = await rejection(r.apply(UPDATE_README));
    expect(dirty.kind).toBe('dirty');
    expect(dirty.data.remedy).toEqual({ option: 'dirty', value: 'include' });
    expect(dirty.message).not.toMatch(/--\w/);
    const badBase = await rejection(r.apply(UPDATE_README, { base: 'no-such-rev' }));
    expect(badBase.kind).toBe('bad_revision');
    expect(badBase.message).not.toMatch(/--\w/);
    const badTrailer = await rejection(r.apply(UPDATE_README, { trailers: ['no equals sign'] }));
    expect(badTrailer.kind).toBe('usage');
    expect(badTrailer.data.option).toBe('trailers');
    expect(badTrailer.message).not.toMatch(/--\w/);
  });

  it('a refusal names the option that gets past it, not a flag', async () => {
    // a first commit made by patchtx, with HEAD detached at it: no branch to move back
    const d = mkdtempSync(path.join(tmpdir(), 'patchtx-first-'));
    scratch.push(d);
    git(d, 'init', '-q', '-b', 'main');
    git(d, 'config', 'user.name', 'U');
    git(d, 'config', 'user.email', 'u@example.invalid');
    const r = await openRepository({ dir: d });
    const first = await r.apply(v4a('*** Add File: a.txt', '+a'));
    git(d, 'checkout', '-q', '--detach');
    const e = await rejection(r.undo());
    expect(e.kind).toBe('undo_refused');
    expect(e.message).not.toMatch(/--\w/);
    expect(e.data.remedy).toEqual({ option: 'revert', value: 'true' });
    // the CLI names its flag for it
    const printed = await patchtxJson('undo', '--repo', d);
    expect(printed.json.error.message).toContain('(--revert)');
    const v = await r.undo({ revert: true });
    expect(v.action).toBe('revert');
    expect(rev(d, 'HEAD~1')).toBe(first.commit);
  });

  it('a patch error carries what the CLI reports', async () => {
    const d = makeRepo('basic');
    const r = await openRepository({ dir: d });
    const e = await rejection(r.apply(v4a('*** Update File: README.md', '@@', '-no such line', '+x')));
    expect(e.kind).toBe('context_not_found');
    expect(e.data.path).toBe('README.md');
  });
});

describe('several repositories in one process', () => {
  it('apply to two repositories at once: each gets its own commit', async () => {
    const a = makeRepo('basic');
    const b = makeRepo('packed');
    mkdirSync(path.join(b, 'extra'));
    const [ra, rb] = await Promise.all([openRepository({ dir: a }), openRepository({ dir: b })]);
    const [x, y] = await Promise.all([ra.apply(UPDATE_README), rb.apply(BASIC_PATCH)]);
    expect(x.commit).toBe(rev(a));
    expect(y.commit).toBe(rev(b));
    expectFsckClean(a);
    expectFsckClean(b);
  });

  it('two applies to one repository at once: one waits for the other with wait, both land', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const repo = await openRepository({ dir });
    const [x, y] = await Promise.all([repo.apply(UPDATE_README, { wait: 30 }), repo.apply(v4a('*** Add File: other.txt', '+other'), { wait: 30 })]);
    const landed = git(dir, 'rev-list', `${base}..HEAD`).trim().split('\n');
    expect(landed.sort()).toEqual([x.commit, y.commit].sort());
    expect(git(dir, 'status', '--porcelain', '--', 'README.md', 'other.txt')).toBe('');
    expectFsckClean(dir);
  });
});

describe('show and record of a commit whose note is missing', () => {
  it('refuse it naming the regenerate option; with it, give what `show --regenerate` and `show --json --regenerate` print', async () => {
    const { lib, cli } = twins();
    const repo = await openRepository({ dir: lib });
    await repo.apply(UPDATE_README, { message: 'Edit the readme' });
    expect((await patchtx('apply', '--repo', cli, '-m', 'Edit the readme', patchFile(UPDATE_README))).code).toBe(0);
    expect(rev(lib)).toBe(rev(cli));
    for (const d of [lib, cli]) git(d, 'notes', '--ref', 'patchtx', 'remove', 'HEAD');

    const refused = await rejection(repo.show('HEAD'));
    expect(refused.kind).toBe('bad_revision');
    expect(refused.data.remedy).toEqual({ option: 'regenerate', value: 'true' });
    expect((await rejection(repo.record('HEAD'))).kind).toBe('bad_revision');

    const text = await repo.show('HEAD', { regenerate: true });
    const printed = await patchtx('show', '--repo', cli, '--regenerate', 'HEAD');
    expect(printed.code, printed.err).toBe(0);
    expect(text).toBe(printed.out);
    const record = await repo.record('HEAD', { regenerate: true });
    expect(record).toEqual((await patchtxJson('show', '--repo', cli, '--json', '--regenerate', 'HEAD')).json);
    expect(record).toMatchObject({ commit: rev(lib), regenerated: true, patch: text });

    // the regenerated patch makes the same tree on the parent
    git(lib, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    await repo.apply(text);
    expect(git(lib, 'rev-parse', 'again^{tree}')).toBe(git(lib, 'rev-parse', 'main^{tree}'));
  });
});
