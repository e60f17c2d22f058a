// One repository object kept between calls (openRepository keeps the configuration, the parsed
// index, pack indexes, open packs and trees it has read) must never answer from the old state: each
// case makes two calls on ONE object with a change made in between by git or the user, and checks
// that the second call sees it (stale, dirty, or a result checked against git).
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository, type Repository } from '../../src/index.js';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const opened: Repository[] = [];

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  for (const repo of opened.splice(0)) repo.close();
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

async function open(dir: string): Promise<Repository> {
  const repo = await openRepository({ dir });
  opened.push(repo);
  return repo;
}

const read = (dir: string, p: string): Buffer => readFileSync(path.join(dir, p));
const status = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');
const UPDATE_README = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample, edited');
const MATH_OLD = v4a('*** Update File: src/math.js', '@@', ' export function add(a, b) {', '-  return a + b;', '+  return a + b + 0;');

function manyFiles(n: number, tag: string): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(`*** Add File: many/f${i}.txt`, `+file ${i} ${tag}`);
  return v4a(...lines);
}

/** The pack files of `dir` this process has open (Linux: its file descriptors), deleted ones marked so. */
function openPacks(dir: string): string[] {
  const packDir = path.join(dir, '.git', 'objects', 'pack');
  const targets = readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });
  return targets.filter((t) => t.startsWith(packDir) && /\.pack( \(deleted\))?$/.test(t));
}

/** Makes every unreachable object prunable now, and prunes it (reflogs keep undone commits otherwise). */
function pruneUnreachable(dir: string): void {
  git(dir, 'reflog', 'expire', '--expire=now', '--all');
  git(dir, 'gc', '-q', '--prune=now');
}

describe('a repository object kept between calls sees what changed in between', () => {
  it('an external git commit: a patch made for the old content no longer applies, one for the new lands on it', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(UPDATE_README);
    writeFileSync(path.join(dir, 'src/math.js'), 'export function add(a, b) {\n  return b + a;\n}\n');
    git(dir, 'commit', '-q', '-am', 'Commit made with git');
    const external = rev(dir);
    expect((await rejection(repo.apply(MATH_OLD))).kind).toBe('context_not_found');
    const r = await repo.apply(v4a('*** Update File: src/math.js', '@@', '-  return b + a;', '+  return b + a + 0;'));
    expect(r.parent).toBe(external);
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return b + a + 0;\n}\n');
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('git checkout of another branch: the next patch lands there, on what that branch holds', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    const first = await repo.apply(UPDATE_README);
    const main = rev(dir);
    git(dir, 'checkout', '-q', '-b', 'side', first.parent!);
    // README.md on side is the original again: the same patch applies to it
    const r = await repo.apply(UPDATE_README);
    expect(r.ref).toBe('refs/heads/side');
    expect(r.parent).toBe(first.parent);
    expect(rev(dir, 'main')).toBe(main);
    expect(rev(dir, 'side')).toBe(r.commit);
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('git gc --prune=now after an undo: objects written before and pruned since are written again (a pack)', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    const patch = manyFiles(20, 'packed');
    await repo.apply(patch);
    await repo.undo();
    pruneUnreachable(dir);
    expect(git(dir, 'cat-file', '-e', `${rev(dir)}:README.md`)).toBe('');
    const r = await repo.apply(patch);
    for (const i of [0, 19]) expect(git(dir, 'cat-file', 'blob', `${r.commit}:many/f${i}.txt`)).toBe(`file ${i} packed\n`);
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('git gc --prune=now after an undo: objects written before and pruned since are written again (loose)', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    const patch = v4a('*** Add File: one.txt', '+written, undone, pruned, written again');
    await repo.apply(patch);
    await repo.undo();
    pruneUnreachable(dir);
    const r = await repo.apply(patch);
    expect(git(dir, 'cat-file', 'blob', `${r.commit}:one.txt`)).toBe('written, undone, pruned, written again\n');
    expectFsckClean(dir);
  });

  it('git repack -ad: the next call reads the base from the new pack, and lets the old one go', async () => {
    const dir = makeRepo('packed');
    const repo = await open(dir);
    await repo.apply(UPDATE_README);
    expect(openPacks(dir)).toHaveLength(1);
    git(dir, 'repack', '-q', '-a', '-d');
    git(dir, 'prune-packed');
    const r = await repo.apply(MATH_OLD);
    // the pack repack deleted is not held open (its disk space stays taken while it is)
    expect(openPacks(dir).filter((t) => t.endsWith('(deleted)'))).toEqual([]);
    expect(git(dir, 'show', `${r.commit}:src/math.js`)).toBe('export function add(a, b) {\n  return a + b + 0;\n}\n');
    expect(git(dir, 'show', `${r.commit}:README.md`)).toBe('# Sample, edited\n\nA small repository for patchtx tests.\n');
    expectFsckClean(dir);
  });

  it('an edit of a touched file: the next patch is refused as dirty', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.check(MATH_OLD);
    writeFileSync(path.join(dir, 'src/math.js'), 'export function add(a, b) {\n  return a + b;\n}\n// edited\n');
    const e = await rejection(repo.apply(MATH_OLD));
    expect(e.kind).toBe('dirty');
    expect(e.data.reasons).toEqual({ 'src/math.js': 'modified in the working tree' });
    expect(status(dir)).toBe(' M src/math.js\n');
  });

  it('git add of a touched file: the next patch is refused as staged work', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.check(MATH_OLD);
    writeFileSync(path.join(dir, 'src/math.js'), 'export function add(a, b) {\n  return a + b;\n}\n// staged\n');
    git(dir, 'add', 'src/math.js');
    const e = await rejection(repo.apply(MATH_OLD));
    expect(e.kind).toBe('dirty');
    expect(e.data.reasons).toEqual({ 'src/math.js': 'staged changes' });
  });

  it('git add after a patch wrote the index (the object keeps what it wrote): the next patch is refused as staged work', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(MATH_OLD);
    const original = read(dir, 'README.md');
    writeFileSync(path.join(dir, 'README.md'), '# Sample, staged\n');
    git(dir, 'add', 'README.md');
    writeFileSync(path.join(dir, 'README.md'), original); // the working tree holds HEAD's content again
    const e = await rejection(repo.apply(UPDATE_README));
    expect(e.kind).toBe('dirty');
    expect(e.data.reasons).toEqual({ 'README.md': 'staged changes' });
    expect(status(dir)).toBe('MM README.md\n');
  });

  it('git reset after a patch wrote the index: the next patch sees the index reset, not the one written', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(MATH_OLD);
    git(dir, 'reset', '-q', 'HEAD~1');
    const e = await rejection(repo.apply(v4a('*** Update File: src/math.js', '@@', '-  return a + b + 0;', '+  return a + b + 1;')));
    expect(e.kind).toBe('dirty');
    expect(e.data.reasons).toEqual({ 'src/math.js': 'modified in the working tree' });
  });

  it('another patchtx process applies a patch in between: the next call sees the index it wrote', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(UPDATE_README);
    const file = path.join(dir, '..', 'other.patch');
    writeFileSync(file, MATH_OLD);
    expect((await runCli(['apply', '--repo', dir, file])).status).toBe(0);
    const r = await repo.apply(v4a('*** Update File: src/math.js', '@@', '-  return a + b + 0;', '+  return a + b + 1;'));
    expect(git(dir, 'show', `${r.commit}:src/math.js`)).toBe('export function add(a, b) {\n  return a + b + 1;\n}\n');
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('a .gitattributes change (eol=crlf) committed with git: the next file is written as git checks it out', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(v4a('*** Add File: before.txt', '+one', '+two'));
    expect(read(dir, 'before.txt').toString()).toBe('one\ntwo\n');
    writeFileSync(path.join(dir, '.gitattributes'), '/*.txt eol=crlf\n');
    git(dir, 'add', '.gitattributes');
    git(dir, 'commit', '-q', '-m', 'Line endings');
    const r = await repo.apply(v4a('*** Add File: after.txt', '+one', '+two'));
    expect(read(dir, 'after.txt').toString()).toBe('one\r\ntwo\r\n');
    expect(git(dir, 'cat-file', 'blob', `${r.commit}:after.txt`)).toBe('one\ntwo\n');
    expect(status(dir)).toBe('');
  });

  it('a config change (core.autocrlf): the next file is written as git checks it out', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(v4a('*** Add File: before.txt', '+one', '+two'));
    git(dir, 'config', 'core.autocrlf', 'true');
    const r = await repo.apply(v4a('*** Add File: after.txt', '+one', '+two'));
    expect(read(dir, 'after.txt').toString()).toBe('one\r\ntwo\r\n');
    expect(git(dir, 'cat-file', 'blob', `${r.commit}:after.txt`)).toBe('one\ntwo\n');
    expect(status(dir)).toBe('');
  });

  it('a config change (core.worktree): the next call writes into the working tree it names', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    // twice: where the repository is, is kept from the first call on
    await repo.apply(v4a('*** Add File: before.txt', '+before'));
    await repo.apply(v4a('*** Add File: before2.txt', '+before'));
    const elsewhere = path.join(path.dirname(dir), 'elsewhere');
    mkdirSync(elsewhere);
    git(dir, 'config', 'core.worktree', elsewhere);
    const r = await repo.apply(v4a('*** Add File: after.txt', '+after'));
    expect(read(elsewhere, 'after.txt').toString()).toBe('after\n');
    expect(existsSync(path.join(dir, 'after.txt'))).toBe(false);
    expect(git(dir, 'cat-file', 'blob', `${r.commit}:after.txt`)).toBe('after\n');
  });

  it("the checkout's .git directory moved away and named by a .git file: the next call commits through it", async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(v4a('*** Add File: before.txt', '+before'));
    await repo.apply(v4a('*** Add File: before2.txt', '+before'));
    const gitdir = path.join(path.dirname(dir), 'moved.git');
    renameSync(path.join(dir, '.git'), gitdir);
    writeFileSync(path.join(dir, '.git'), `gitdir: ${gitdir}\n`);
    const r = await repo.apply(v4a('*** Add File: after.txt', '+after'));
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(r.commit);
    expect(readdirSync(gitdir)).toContain('HEAD');
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('a config change (user.name): the next commit has the new author', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    expect((await repo.apply(UPDATE_README)).author.name).toBe('Fixture User');
    git(dir, 'config', 'user.name', 'Someone Else');
    const r = await repo.apply(MATH_OLD);
    expect(r.author.name).toBe('Someone Else');
    expect(git(dir, 'log', '-1', '--format=%an|%cn').trim()).toBe('Someone Else|Someone Else');
  });

  it('a change in a config file included by the repository config (the config itself unchanged): the next commit has it', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    writeFileSync(path.join(dir, '.git', 'identity.cfg'), '[user]\n\tname = Included One\n');
    git(dir, 'config', 'include.path', 'identity.cfg');
    expect((await repo.apply(UPDATE_README)).author.name).toBe('Included One');
    const config = readFileSync(path.join(dir, '.git', 'config'));
    writeFileSync(path.join(dir, '.git', 'identity.cfg'), '[user]\n\tname = Included Two\n');
    expect(readFileSync(path.join(dir, '.git', 'config'))).toEqual(config);
    const r = await repo.apply(MATH_OLD);
    expect(r.author.name).toBe('Included Two');
    expect(git(dir, 'log', '-1', '--format=%an').trim()).toBe('Included Two');
  });

  it('an info/attributes change (eol=crlf): the next file is written as git checks it out', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(v4a('*** Add File: before.txt', '+one', '+two'));
    writeFileSync(path.join(dir, '.git', 'info', 'attributes'), '/*.txt eol=crlf\n');
    const r = await repo.apply(v4a('*** Add File: after.txt', '+one', '+two'));
    expect(read(dir, 'after.txt').toString()).toBe('one\r\ntwo\r\n');
    expect(git(dir, 'cat-file', 'blob', `${r.commit}:after.txt`)).toBe('one\ntwo\n');
    expect(status(dir)).toBe('');
  });

  it('info/attributes edited again with the same size, at once and after a while: each call reads what it holds then', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    const attributes = path.join(dir, '.git', 'info', 'attributes');
    const addAndRead = async (name: string): Promise<string> => {
      await repo.apply(v4a(`*** Add File: ${name}`, '+one', '+two'));
      return read(dir, name).toString();
    };
    writeFileSync(attributes, '/*.txt eol=crlf\n');
    expect(await addAndRead('a.txt')).toBe('one\r\ntwo\r\n');
    // the same size, within the same moment: its stat data may not tell the two apart
    writeFileSync(attributes, '/*.txt eol=lf  \n');
    expect(await addAndRead('b.txt')).toBe('one\ntwo\n');
    // once the file has been left alone for a while, the object may keep what it read: an edit
    // of the same size still changes its stat data
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(await addAndRead('c.txt')).toBe('one\ntwo\n');
    writeFileSync(attributes, '/*.txt eol=crlf\n');
    expect(await addAndRead('d.txt')).toBe('one\r\ntwo\r\n');
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(await addAndRead('e.txt')).toBe('one\r\ntwo\r\n');
    expect(status(dir)).toBe('');
    rmSync(attributes);
    expect(await addAndRead('f.txt')).toBe('one\ntwo\n');
  });

  it('a run of another process interrupted in between: the next call recovers it first', async () => {
    const dir = makeRepo('basic');
    const repo = await open(dir);
    await repo.apply(UPDATE_README);
    const file = path.join(dir, '..', 'killed.patch');
    writeFileSync(file, v4a('*** Add File: killed.txt', '+landed before the kill'));
    const killed = await runCli(['apply', '--repo', dir, file], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const r = await repo.apply(MATH_OLD);
    expect(r.recovered?.outcome).toBe('finished');
    expect(read(dir, 'killed.txt').toString()).toBe('landed before the kill\n');
    expect(git(dir, 'show', `${r.commit}:killed.txt`)).toBe('landed before the kill\n');
    expect(status(dir)).toBe('');
    expectFsckClean(dir);
  });

  it('calls that overlap on one object each see the repository as it is, and keep no store open but one', async () => {
    const dir = makeRepo('packed');
    const repo = await open(dir);
    const [applied, checked, logged] = await Promise.all([repo.apply(UPDATE_README), repo.check(MATH_OLD), repo.log()]);
    expect(rev(dir)).toBe(applied.commit);
    expect(checked.wouldCommit).not.toBeNull();
    expect(logged.length).toBeLessThanOrEqual(1);
    expect(openPacks(dir).length).toBeLessThanOrEqual(1);
    // and the next call, on the kept store, builds on the commit
    const r = await repo.apply(MATH_OLD);
    expect(r.parent).toBe(applied.commit);
    expect(git(dir, 'show', `${r.commit}:README.md`)).toBe('# Sample, edited\n\nA small repository for patchtx tests.\n');
    expectFsckClean(dir);
  });

  it('close() releases what was kept; the object still works afterwards', async () => {
    const dir = makeRepo('packed');
    const repo = await open(dir);
    await repo.apply(UPDATE_README);
    expect(openPacks(dir)).toHaveLength(1);
    repo.close();
    expect(openPacks(dir)).toEqual([]);
    const r = await repo.apply(MATH_OLD);
    expect(rev(dir)).toBe(r.commit);
    expectFsckClean(dir);
  });
});
