// undo, redo, log and show, against real repositories, cross-checked with git log, git reflog,
// git notes and git status.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtx, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev, treeOf } from '../helpers/repos.js';
import { BASIC_PATCH, cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { firstByPatchtx as firstWithOwnFile } from '../helpers/first-commit.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot, worktreeFiles } from '../helpers/snapshot.js';
import { CRASH_POINTS } from '../../src/tx/crash.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** A patch with every kind of change: modify, add, delete, and a rename of the executable. */
const ALL_KINDS = v4a(
  '*** Update File: src/math.js',
  '@@',
  '-  return a + b;',
  '+  return a - b;',
  '*** Add File: docs/added.md',
  '+added',
  '*** Delete File: docs/notes.txt',
  '*** Update File: bin/run.sh',
  '*** Move to: bin/go.sh',
);

const PA = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A');
const PB = v4a('*** Add File: b.txt', '+b');
const PC = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a * b;');

async function applyAll(dir: string, ...patches: string[]): Promise<string[]> {
  const r = await patchtxJson('apply', '--repo', dir, ...patches.map(patchFile));
  expect(r.code, r.out).toBe(0);
  return r.lines.map((l) => l.commit as string);
}

describe('undo', () => {
  it('of the tip: the branch goes back to the parent, every path is restored, a reflog entry says so', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const baseFiles = worktreeFiles(dir);
    const baseIndex = git(dir, 'ls-files', '-s');
    const [c] = await applyAll(dir, ALL_KINDS);
    expect(existsSync(path.join(dir, 'bin/go.sh'))).toBe(true);
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      ok: true,
      action: 'reset',
      ref: 'refs/heads/main',
      commit: base,
      target: c,
      files: expect.arrayContaining([
        // what the undo did: the reverse of the commit
        { op: 'M', path: 'src/math.js' },
        { op: 'D', path: 'docs/added.md' },
        { op: 'A', path: 'docs/notes.txt' },
        // the move taken back
        { op: 'R', path: 'bin/run.sh', from: 'bin/go.sh' },
      ]),
    });
    expect(r.json.files).toHaveLength(4);
    expect(rev(dir)).toBe(base);
    expect(worktreeFiles(dir)).toEqual(baseFiles);
    expect(git(dir, 'ls-files', '-s')).toBe(baseIndex);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(statSync(path.join(dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(git(dir, 'reflog', '-1', '--format=%H %gs', 'refs/heads/main').trim()).toBe(`${base} patchtx: undo ${c!.slice(0, 12)}`);
    expect(git(dir, 'reflog', '-1', '--format=%H %gs', 'HEAD').trim()).toBe(`${base} patchtx: undo ${c!.slice(0, 12)}`);
    // the undone commit still exists (redo can bring it back)
    expect(git(dir, 'cat-file', '-t', c!).trim()).toBe('commit');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('other staged and unstaged work stays as it is', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, PA);
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'staged\n');
    git(dir, 'add', 'docs/notes.txt');
    writeFileSync(path.join(dir, 'src/math.js'), 'unstaged\n');
    const staged = git(dir, 'diff', '--cached');
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    // README.md went back with HEAD; the staged change to notes.txt is still staged, unchanged
    expect(git(dir, 'diff', '--cached')).toBe(staged);
    expect(git(dir, 'status', '--porcelain')).toBe('M  docs/notes.txt\n M src/math.js\n');
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toBe('unstaged\n');
  });

  it('text output names the commit, where the branch is now, and the files', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const [c] = await applyAll(dir, PA);
    const r = await patchtx('undo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`Undid ${c!.slice(0, 7)}: main is back at ${base.slice(0, 7)}\nM README.md\n`);
  });

  it('refused (exit 7) when a path it would restore has uncommitted changes; everything stays', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, ALL_KINDS);
    writeFileSync(path.join(dir, 'src/math.js'), 'local edit\n');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'untracked where the undo would restore a file\n');
    writeFileSync(path.join(dir, 'README.md'), 'dirty but not touched by the commit\n');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code).toBe(7);
    expect(r.json.error.kind).toBe('undo_refused');
    expect([...r.json.error.paths].sort()).toEqual(['docs/notes.txt', 'src/math.js']);
    const t = await patchtx('undo', '--repo', dir);
    expect(t.code).toBe(7);
    expect(t.err).toContain('src/math.js: modified in the working tree');
    expect(t.err).toContain('docs/notes.txt: untracked file in the way');
    expect(t.err).not.toContain('README.md');
    expectUntouched(dir, before);
  });

  it('refused when git would convert a path it restores (a filter added since), as apply is', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const [c] = await applyAll(dir, PA);
    // README.md, the path PA changed, gets a clean/smudge filter in the commit after it
    writeFileSync(path.join(dir, '.gitattributes'), 'README.md filter=lfs\n');
    git(dir, 'add', '.gitattributes');
    git(dir, 'commit', '-q', '-m', 'attributes');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, c!);
    expect(r.code).toBe(2);
    expect(r.json.error).toMatchObject({ kind: 'unsupported_repository', feature: 'filter', path: 'README.md' });
    expectUntouched(dir, before);
    expect(rev(dir, 'HEAD~2')).toBe(base);
  });

  it('of an older commit: a revert commit with Revert "…" and Patchtx-Tree / Patchtx-Undo / Patch-Id trailers', async () => {
    const dir = makeRepo('basic');
    const [a, b] = await applyAll(dir, PA, PB);
    const r = await patchtxJson('undo', '--repo', dir, a!);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, action: 'revert', ref: 'refs/heads/main', target: a, files: [{ op: 'M', path: 'README.md' }] });
    const revert = rev(dir);
    expect(r.json.commit).toBe(revert);
    expect(rev(dir, 'HEAD~1')).toBe(b);
    const msg = git(dir, 'log', '-1', '--format=%B');
    const pid = git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim();
    expect(pid).toMatch(/^[0-9a-f]{40}$/);
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
    expect(msg).toBe(`Revert "Apply patch: update README.md"\n\nThis reverts commit ${a}.\n\nPatchtx-Tree: ${tree}\nPatchtx-Undo: ${a}\nPatch-Id: ${pid}\n\n`);
    // the tree: README as before a, b.txt still there
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Sample\n\nA small repository for patchtx tests.\n');
    expect(git(dir, 'show', 'HEAD:b.txt')).toBe('b\n');
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# Sample\n\nA small repository for patchtx tests.\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // the revert is a transaction like any other: it has a note with the reverse patch
    const shown = await patchtx('show', '--repo', dir, 'HEAD');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('*** Update File: README.md');
    expect(shown.out).toContain('-# Sample A');
    expect(shown.out).toContain('+# Sample');
    expect(git(dir, 'reflog', '-1', '--format=%gs', 'refs/heads/main').trim()).toBe(`patchtx: revert ${a!.slice(0, 12)}`);
    const t = await patchtx('undo', '--repo', dir, b!);
    expect(t.code).toBe(0);
    expect(t.out).toBe(`Reverted ${b!.slice(0, 7)} with a new commit ${rev(dir).slice(0, 7)} on main\nD b.txt\n`);
    expectFsckClean(dir);
  });

  it('of an older commit whose paths later commits changed: refused (exit 7)', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA, v4a('*** Update File: README.md', '@@', '-# Sample A', '+# Sample B'));
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, a!);
    expect(r.code).toBe(7);
    expect(r.json.error).toMatchObject({ kind: 'undo_refused', paths: ['README.md'] });
    expect(r.json.error.message).toMatch(/later commits changed README\.md/);
    expectUntouched(dir, before);
  });

  it('of a commit patchtx did not make: refused (exit 7), use git revert', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, 'HEAD');
    expect(r.code).toBe(7);
    expect(r.json.error.message).toMatch(/was not made by patchtx.*git revert/);
    // and with no commit named: there is none to find
    const none = await patchtxJson('undo', '--repo', dir);
    expect(none.code).toBe(7);
    expect(none.json.error.message).toMatch(/no patchtx commit/);
    expectUntouched(dir, before);
  });

  it('without a commit: the newest patchtx commit, even below a commit made with git', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA);
    writeFileSync(path.join(dir, 'other.txt'), 'by git\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'made with git');
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ action: 'revert', target: a });
    expect(git(dir, 'log', '--format=%s', '-3').trim().split('\n')).toEqual([
      'Revert "Apply patch: update README.md"',
      'made with git',
      'Apply patch: update README.md',
    ]);
  });

  it('of a commit not on the branch: refused', async () => {
    const dir = makeRepo('basic');
    const r0 = await patchtxJson('apply', '--repo', dir, '--ref', 'side', '--base', 'HEAD', patchFile(PA));
    expect(r0.code).toBe(0);
    await applyAll(dir, PB);
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, r0.json.commit);
    expect(r.code).toBe(7);
    expect(r.json.error.message).toMatch(/is not on refs\/heads\/main/);
    expectUntouched(dir, before);
  });

  it('--ref in a bare repository', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    const main = rev(dir, 'main');
    await applyAll(dir, PA);
    const r = await patchtxJson('undo', '--repo', dir, '--ref', 'main');
    expect(r.code).toBe(0);
    expect(rev(dir, 'main')).toBe(main);
    const redo = await patchtxJson('redo', '--repo', dir, '--ref', 'main');
    expect(redo.code).toBe(0);
    expect(git(dir, 'show', 'main:README.md')).toContain('# Sample A');
    expectFsckClean(dir);
  });

  it('in a linked worktree: its branch and checkout only', async () => {
    const main = makeRepo('worktree');
    const wt = `${main}-wt`;
    const mainBefore = snapshot(main);
    await applyAll(wt, PA);
    const r = await patchtxJson('undo', '--repo', wt);
    expect(r.code).toBe(0);
    expect(rev(wt)).toBe(mainBefore.head);
    expect(readFileSync(path.join(wt, 'README.md'), 'utf8')).toBe('# Sample\n\nA small repository for patchtx tests.\n');
    expect(git(wt, 'status', '--porcelain')).toBe('');
    const after = snapshot(main);
    expect(after.files).toEqual(mainBefore.files);
    expect(after.index).toBe(mainBefore.index);
    expect(after.head).toBe(mainBefore.head);
  });
});

describe('redo', () => {
  it('after an undo of the tip: fast-forward back to the very same commit', async () => {
    const dir = makeRepo('basic');
    const [c] = await applyAll(dir, ALL_KINDS);
    const files = worktreeFiles(dir);
    const index = git(dir, 'ls-files', '-s');
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, action: 'fast-forward', ref: 'refs/heads/main', commit: c, target: c });
    expect(rev(dir)).toBe(c);
    expect(worktreeFiles(dir)).toEqual(files);
    expect(git(dir, 'ls-files', '-s')).toBe(index);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'reflog', '-1', '--format=%gs', 'refs/heads/main').trim()).toBe(`patchtx: redo ${c!.slice(0, 12)}`);
    // nothing left to redo
    const again = await patchtxJson('redo', '--repo', dir);
    expect(again.code).toBe(7);
    expect(again.json.error.message).toMatch(/nothing to redo/);
    expectFsckClean(dir);
  });

  it('several undos, then as many redos, in reverse order', async () => {
    const dir = makeRepo('basic');
    const commits = await applyAll(dir, PA, PB, PC);
    for (let i = 0; i < 3; i++) expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Add notes and vendor/lib');
    for (const c of commits) {
      const r = await patchtxJson('redo', '--repo', dir);
      expect(r.code).toBe(0);
      expect(r.json.commit).toBe(c);
    }
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('after an undo that made a revert commit: the revert is undone', async () => {
    const dir = makeRepo('basic');
    const [a, b] = await applyAll(dir, PA, PB);
    expect((await patchtx('undo', '--repo', dir, a!)).code).toBe(0);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toMatch(/^# Sample\n/);
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(rev(dir)).toBe(b);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toMatch(/^# Sample A\n/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect((await patchtxJson('redo', '--repo', dir)).code).toBe(7);
  });

  it('after a revert that is no longer the tip: redo reverts the revert', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA, PB);
    expect((await patchtx('undo', '--repo', dir, a!)).code).toBe(0);
    const revert = rev(dir);
    // a commit made with git on top does not clear patchtx's redo history
    writeFileSync(path.join(dir, 'other.txt'), 'x\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'other');
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ action: 'revert', target: revert });
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Revert "Revert "Apply patch: update README.md""');
    expect(git(dir, 'show', 'HEAD:README.md')).toMatch(/^# Sample A\n/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a new transaction clears the redo history', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, PA);
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    await applyAll(dir, PB);
    const before = snapshot(dir);
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(7);
    expectUntouched(dir, before);
  });

  it('refused when the branch moved since the undo (exit 7, says how to re-apply)', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA);
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    writeFileSync(path.join(dir, 'other.txt'), 'x\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'other');
    const before = snapshot(dir);
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(7);
    expect(r.json.error.message).toContain(`patchtx show ${a!.slice(0, 12)} | patchtx apply`);
    expectUntouched(dir, before);
  });

  it('refused when the paths it would bring back are dirty', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, PA);
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    writeFileSync(path.join(dir, 'README.md'), 'local\n');
    const before = snapshot(dir);
    const r = await patchtxJson('redo', '--repo', dir);
    expect(r.code).toBe(7);
    expect(r.json.error.paths).toEqual(['README.md']);
    expectUntouched(dir, before);
  });
});

describe('log', () => {
  it('lists transactions newest first with files and Patch-Id, skipping commits made with git (JSON)', async () => {
    const dir = makeRepo('basic');
    const [a, b] = await applyAll(dir, PA, PB);
    writeFileSync(path.join(dir, 'other.txt'), 'x\n');
    git(dir, 'add', 'other.txt');
    git(dir, 'commit', '-q', '-m', 'other');
    const [c] = await applyAll(dir, ALL_KINDS);
    const r = await patchtxJson('log', '--repo', dir);
    expect(r.code).toBe(0);
    const log = r.json as any[];
    expect(log.map((e) => e.commit)).toEqual([c, b, a]);
    for (const e of log) {
      expect(Object.keys(e).sort()).toEqual(['commit', 'files', 'patchId', 'ref', 'subject', 'time', 'undoOf']);
      expect(e.patchId).toBe(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)', e.commit).trim());
      expect(e.subject).toBe(git(dir, 'log', '-1', '--format=%s', e.commit).trim());
      expect(e.time).toBe(new Date(Number(git(dir, 'log', '-1', '--format=%ct', e.commit).trim()) * 1000).toISOString());
      expect(e.ref).toBe('refs/heads/main');
      expect(e.undoOf).toBe(null);
    }
    expect(log[1].files).toEqual([{ op: 'A', path: 'b.txt' }]);
    expect(log[2].files).toEqual([{ op: 'M', path: 'README.md' }]);
    // git finds the move too (an unedited one, so its rename detection is sure of it)
    const gitFiles = git(dir, 'diff-tree', '--no-commit-id', '-r', '--name-status', '-M', c!)
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
      .map(([op, p, to]) => (op!.startsWith('R') ? { op: 'R', path: to, from: p } : { op, path: p }));
    expect(log[0].files).toContainEqual({ op: 'R', path: 'bin/go.sh', from: 'bin/run.sh' });
    expect([...log[0].files].sort((x, y) => x.path.localeCompare(y.path))).toEqual(gitFiles.sort((x, y) => x.path!.localeCompare(y.path!)));
    // -n limits
    const one = await patchtxJson('log', '--repo', dir, '-n', '1');
    expect(one.json.map((e: any) => e.commit)).toEqual([c]);
  });

  it('an edited move is one R, as apply reported it; without the stored patch it is D + A', async () => {
    const dir = makeRepo('basic');
    const move = v4a('*** Update File: src/math.js', '*** Move to: lib/math.js', '@@', '-  return a + b;', '+  return a - b;');
    const applied = await patchtxJson('apply', '--repo', dir, patchFile(move));
    expect(applied.code, applied.out).toBe(0);
    expect(applied.json.files).toEqual([{ op: 'R', path: 'lib/math.js', from: 'src/math.js' }]);
    const r = await patchtxJson('log', '--repo', dir);
    expect(r.json[0].files).toEqual([{ op: 'R', path: 'lib/math.js', from: 'src/math.js' }]);
    const text = await patchtx('log', '--repo', dir);
    expect(text.out).toContain('  R src/math.js -> lib/math.js\n');
    // the moves come from the patch kept as a note: without the notes ref, only the tree diff is left
    git(dir, 'update-ref', '-d', 'refs/notes/patchtx');
    const bare = await patchtxJson('log', '--repo', dir);
    expect([...bare.json[0].files].sort((x: any, y: any) => x.path.localeCompare(y.path))).toEqual([
      { op: 'A', path: 'lib/math.js' },
      { op: 'D', path: 'src/math.js' },
    ]);
  });

  it('text: one block per transaction', async () => {
    const dir = makeRepo('basic');
    const [a, b] = await applyAll(dir, PA, PB);
    const r = await patchtx('log', '--repo', dir);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${b!.slice(0, 12)} \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.000Z Apply patch: add b\\.txt$`));
    expect(lines[1]).toMatch(/^ {2}Patch-Id: [0-9a-f]{40}$/);
    expect(lines[2]).toBe('  A b.txt');
    expect(lines[3]).toMatch(new RegExp(`^${a!.slice(0, 12)} .* Apply patch: update README\\.md$`));
    expect(lines[5]).toBe('  M README.md');
    expect(lines).toHaveLength(7);
  });

  it('undo reverts show up with the commit they undo', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA, PB);
    await patchtx('undo', '--repo', dir, a!);
    const r = await patchtxJson('log', '--repo', dir);
    expect(r.json[0]).toMatchObject({ subject: 'Revert "Apply patch: update README.md"', undoOf: a, files: [{ op: 'M', path: 'README.md' }] });
  });

  it('no transactions: an empty list', async () => {
    const dir = makeRepo('basic');
    expect((await patchtxJson('log', '--repo', dir)).json).toEqual([]);
    expect((await patchtx('log', '--repo', dir)).out).toBe('No patchtx transactions on this ref.\n');
  });

  it('--ref: another branch', async () => {
    const dir = makeRepo('basic');
    const r0 = await patchtxJson('apply', '--repo', dir, '--ref', 'side', '--base', 'HEAD', patchFile(PA));
    const r = await patchtxJson('log', '--repo', dir, '--ref', 'side');
    expect(r.json.map((e: any) => e.commit)).toEqual([r0.json.commit]);
    expect(r.json[0].ref).toBe('refs/heads/side');
    expect((await patchtxJson('log', '--repo', dir)).json).toEqual([]);
  });
});

describe('show', () => {
  it('prints the patch text exactly as it was given; git notes --ref=patchtx agrees', async () => {
    const dir = makeRepo('basic');
    const text = `apply_patch <<'EOF'\n${BASIC_PATCH}EOF\n`;
    const [c] = await applyAll(dir, text);
    const r = await patchtx('show', '--repo', dir, c!);
    expect(r.code).toBe(0);
    expect(r.out).toBe(text);
    expect(git(dir, 'notes', '--ref=patchtx', 'show', c!)).toBe(text);
    // any revision spelling works
    expect((await patchtx('show', '--repo', dir, 'HEAD')).out).toBe(text);
    expect((await patchtx('show', '--repo', dir, c!.slice(0, 8))).out).toBe(text);
  });

  it('a CRLF patch is kept byte for byte; a patch without a final newline gets one', async () => {
    const dir = makeRepo('basic');
    const crlf = PA.replace(/\n/g, '\r\n');
    const [c1] = await applyAll(dir, crlf);
    expect((await patchtx('show', '--repo', dir, c1!)).out).toBe(crlf);
    expect(git(dir, 'notes', '--ref=patchtx', 'show', c1!)).toBe(crlf);
    const [c2] = await applyAll(dir, PB.trimEnd());
    expect((await patchtx('show', '--repo', dir, c2!)).out).toBe(PB);
  });

  it('a patchtx commit amended since (its note stays with the original) is named as such, not as a stranger', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, PA);
    git(dir, 'commit', '-q', '--amend', '--no-edit', '--allow-empty');
    const r = await patchtx('show', '--repo', dir, 'HEAD');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/carries a Patch-Id: it was made by patchtx and changed since \(amended or rebased/);
    expect(r.err).not.toMatch(/not made by patchtx/);
  });

  it('the notes ref is a real git notes ref: git log --notes=patchtx shows the patch', async () => {
    const dir = makeRepo('basic');
    await applyAll(dir, PA, PB);
    const out = git(dir, 'log', '--notes=patchtx', '--format=%H%n%N', '-2');
    expect(out).toContain('*** Add File: b.txt');
    expect(out).toContain('*** Update File: README.md');
    expect(git(dir, 'notes', '--ref=patchtx', 'list').trim().split('\n')).toHaveLength(2);
    expectFsckClean(dir);
  });

  it('a commit without a note: exit 2 with an explanation', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('show', '--repo', dir, 'HEAD');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: no patch text is stored for [0-9a-f]{12}: it was not made by patchtx/);
    const bad = await patchtx('show', '--repo', dir, 'no-such-thing');
    expect(bad.code).toBe(2);
  });

  it('undo then re-apply what show printed: the same tree and Patch-Id', async () => {
    const dir = makeRepo('basic');
    const [c] = await applyAll(dir, ALL_KINDS);
    const tree = treeOf(dir);
    const text = (await patchtx('show', '--repo', dir, c!)).out;
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(text));
    expect(r.code).toBe(0);
    expect(treeOf(dir)).toEqual(tree);
    expect(r.json.patchId).toBe(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)', c!).trim());
  });
});

describe('revert of a change V4A cannot express', () => {
  it('reverts a commit that only added the final newline, keeping no patch text for the revert', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, 'tail.txt'), 'no newline');
    git(repo, 'add', 'tail.txt');
    git(repo, 'commit', '-qm', 'unterminated file');
    // an update whose only effect is the final newline (every line is terminated after an update)
    const first = await patchtxJson('apply', '--repo', repo, patchFile(v4a('*** Update File: tail.txt', '@@', ' no newline')));
    expect(first.code).toBe(0);
    expect(readFileSync(path.join(repo, 'tail.txt'), 'utf8')).toBe('no newline\n');
    expect((await patchtxJson('apply', '--repo', repo, patchFile(v4a('*** Add File: other.txt', '+x')))).code).toBe(0);

    const undo = await patchtxJson('undo', '--repo', repo, first.json.commit);
    expect(undo.code, undo.out + undo.err).toBe(0);
    expect(undo.json.action).toBe('revert');
    expect(readFileSync(path.join(repo, 'tail.txt'), 'utf8')).toBe('no newline');
    expect(git(repo, 'log', '-1', '--format=%B')).toMatch(/^Revert "Apply patch: update tail.txt"[\s\S]*Patchtx-Undo: [0-9a-f]{40}\nPatch-Id: [0-9a-f]{40}\n/);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect((await patchtx('show', '--repo', repo, 'HEAD')).code).toBe(2);
    expectFsckClean(repo);
  });
});

describe('undo, again and again', () => {
  it('walks back through the transactions past a revert instead of undoing the revert; redo then brings the last one back', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const [a, b] = await applyAll(dir, PA, PB);
    // a commit of someone else's on top: undo of b has to revert it
    writeFileSync(path.join(dir, 'manual.txt'), 'manual\n');
    git(dir, 'add', 'manual.txt');
    git(dir, 'commit', '-q', '-m', 'manual');
    const manual = rev(dir);
    const first = await patchtxJson('undo', '--repo', dir);
    expect(first.json).toMatchObject({ action: 'revert', target: b });
    const second = await patchtxJson('undo', '--repo', dir);
    expect(second.code, second.out).toBe(0);
    expect(second.json).toMatchObject({ action: 'revert', target: a });
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(git(dir, 'show', `${base}:README.md`));
    expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
    const third = await patchtxJson('undo', '--repo', dir);
    expect(third.code).toBe(7);
    expect(third.json.error.message).toBe('every patchtx commit on this ref has been undone already');
    // redo undoes the last revert: a comes back, and says so
    const redo = await patchtx('redo', '--repo', dir);
    expect(redo.code, redo.err).toBe(0);
    expect(redo.out.split('\n')[0]).toBe(
      `Redid ${a.slice(0, 7)}: removed its revert ${second.json.commit.slice(0, 7)}; main is back at ${first.json.commit.slice(0, 7)}`,
    );
    expect(git(dir, 'rev-list', '--count', `${manual}..HEAD`).trim()).toBe('1');
    // a is in effect again (its revert was undone): a plain undo takes a, not b's revert
    const again = await patchtxJson('undo', '--repo', dir);
    expect(again.json).toMatchObject({ action: 'revert', target: a });
    // a commit on top of that revert: redo has to revert the revert with a new commit, and says so
    writeFileSync(path.join(dir, 'manual2.txt'), 'manual\n');
    git(dir, 'add', 'manual2.txt');
    git(dir, 'commit', '-q', '-m', 'manual 2');
    const redone = await patchtx('redo', '--repo', dir);
    expect(redone.code, redone.err).toBe(0);
    const newTip = rev(dir);
    expect(redone.out.split('\n')[0]).toBe(
      `Redid ${a.slice(0, 7)}: reverted its revert ${again.json.commit.slice(0, 7)} with a new commit ${newTip.slice(0, 7)} on main`,
    );
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});

describe('log --ref', () => {
  it('finds a ref by the names git would (remote-tracking, tag), and says when there is none', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA);
    git(dir, 'update-ref', 'refs/remotes/origin/main', a);
    git(dir, 'tag', '-a', '-m', 'release', 'v1', a);
    for (const name of ['origin/main', 'refs/remotes/origin/main', 'v1']) {
      const r = await patchtxJson('log', '--repo', dir, '--ref', name);
      expect(r.code, name).toBe(0);
      expect(
        r.json.map((e: { commit: string }) => e.commit),
        name,
      ).toEqual([a]);
    }
    const at = await patchtxJson('log', '--repo', dir, '--ref', '@');
    expect(at.json.map((e: { commit: string }) => e.commit)).toEqual([a]);
    const missing = await patchtxJson('log', '--repo', dir, '--ref', 'doesnotexist');
    expect(missing.code).toBe(2);
    expect(missing.json.error.message).toBe("no ref named 'doesnotexist' in this repository");
    // a ref that does not resolve is a bad revision, as the exit-code table says
    expect(missing.json.error.kind).toBe('bad_revision');
  });
});

describe('undo, as people use it', () => {
  it('undo X of a commit already reverted: refused (exit 7) naming the revert; after the revert is itself reverted, X can be undone again', async () => {
    const dir = makeRepo('basic');
    const [a] = await applyAll(dir, PA, PB);
    expect((await patchtx('undo', '--repo', dir, a!)).code).toBe(0);
    const revert = rev(dir);
    await applyAll(dir, PC);
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir, a!);
    expect(r.code).toBe(7);
    expect(r.json.error).toMatchObject({ kind: 'undo_refused', commit: a, revertedBy: revert });
    const t = await patchtx('undo', '--repo', dir, a!);
    expect(t.err).toBe(
      `error: ${a!.slice(0, 12)} was already reverted by ${revert.slice(0, 12)} (Revert "Apply patch: update README.md"); an undo of ${revert.slice(0, 12)} brings it back\n`,
    );
    expectUntouched(dir, before);
    // the revert reverted: a is in effect again, and undo of a reverts it anew
    expect((await patchtx('undo', '--repo', dir, revert)).code).toBe(0);
    const again = await patchtxJson('undo', '--repo', dir, a!);
    expect(again.code, again.out).toBe(0);
    expect(again.json).toMatchObject({ action: 'revert', target: a });
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Sample\n\nA small repository for patchtx tests.\n');
  });
});

describe('undo --revert (a branch others have: it only moves forward)', () => {
  it('of the tip: a revert commit on top instead of moving the branch back; redo --revert reverts the revert', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const [a] = await applyAll(dir, PA);
    const r = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(r.code, r.out).toBe(0);
    expect(r.json).toMatchObject({ action: 'revert', target: a, commit: rev(dir) });
    expect(rev(dir, 'HEAD~1')).toBe(a);
    expect(rev(dir, 'HEAD^{tree}')).toBe(rev(dir, `${base}^{tree}`));
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patchtx-Undo,valueonly)').trim()).toBe(a);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const revert = rev(dir);
    const redo = await patchtxJson('redo', '--repo', dir, '--revert');
    expect(redo.code, redo.out).toBe(0);
    expect(redo.json).toMatchObject({ action: 'revert', target: revert, redid: a });
    expect(rev(dir, 'HEAD~1')).toBe(revert);
    expect(rev(dir, 'HEAD^{tree}')).toBe(rev(dir, `${a}^{tree}`));
    // every value the branch had is an ancestor of the next: nothing was rewound
    const values = git(dir, 'reflog', '--format=%H', 'refs/heads/main').trim().split('\n');
    for (let i = 0; i + 1 < values.length; i++) expect(gitTry(dir, 'merge-base', '--is-ancestor', values[i + 1]!, values[i]!).status).toBe(0);
    expectFsckClean(dir);
  });
});

describe("undo of a repository's first commit", () => {
  /** A repository whose first commit patchtx made. */
  async function firstByPatchtx(): Promise<{ dir: string; first: string }> {
    const dir = path.join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'First User');
    git(dir, 'config', 'user.email', 'first@fixtures.invalid');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a', '*** Add File: d/b.txt', '+b')));
    expect(r.code, r.out).toBe(0);
    return { dir, first: r.json.commit };
  }

  it('below the tip: a revert commit that removes its files', async () => {
    const { dir, first } = await firstByPatchtx();
    await applyAll(dir, PB);
    const r = await patchtxJson('undo', '--repo', dir, first);
    expect(r.code, r.out).toBe(0);
    expect(r.json).toMatchObject({ action: 'revert', target: first });
    expect(Object.keys(treeOf(dir))).toEqual(['b.txt']);
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  /** HEAD names refs/heads/main, which does not exist: git sees an unborn branch. */
  function expectUnborn(dir: string): void {
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'HEAD').status).not.toBe(0);
    expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(gitTry(dir, 'show-ref', '--verify', '-q', 'refs/heads/main').status).not.toBe(0);
  }

  it('at the tip: the branch goes back to unborn, its files and index entries go, and redo brings it back', async () => {
    const { dir, first, statusBefore } = await firstWithOwnFile();

    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ ok: true, action: 'reset', ref: 'refs/heads/main', commit: null, target: first });
    expect(r.json.files).toEqual([
      { op: 'D', path: 'a.txt' },
      { op: 'D', path: 'd/b.txt' },
    ]);
    expectUnborn(dir);
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'd'))).toBe(false);
    expect(readFileSync(path.join(dir, 'own.txt'), 'utf8')).toBe('own\n');
    expect(git(dir, 'ls-files', '--stage')).toBe('');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
    // as git update-ref -d does: the branch's reflog goes, HEAD's records the deletion
    expect(existsSync(path.join(dir, '.git', 'logs', 'refs', 'heads', 'main'))).toBe(false);
    expect(
      readFileSync(path.join(dir, '.git', 'logs', 'HEAD'), 'utf8')
        .trimEnd()
        .split('\n')
        .pop(),
    ).toMatch(new RegExp(`^${first} 0{40} `));
    expectNoLeftovers(dir);
    expectFsckClean(dir);
    // nothing more to undo; in text, the undo says where the branch is
    const none = await patchtx('undo', '--repo', dir);
    expect(none.code).toBe(7);
    expect(none.err).toBe('error: refs/heads/main has no commits; nothing to undo\n');

    const redo = await patchtxJson('redo', '--repo', dir);
    expect(redo.code, redo.out + redo.err).toBe(0);
    expect(redo.json).toMatchObject({ ok: true, action: 'fast-forward', commit: first, target: first });
    expect(rev(dir)).toBe(first);
    expect(readFileSync(path.join(dir, 'd/b.txt'), 'utf8')).toBe('b\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('?? own.txt\n');
    expectNoLeftovers(dir);
    expectFsckClean(dir);

    // and undone again, in a branch git packed meanwhile (packed-refs holds it)
    git(dir, 'pack-refs', '--all');
    expect(existsSync(path.join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false);
    const again = await patchtx('undo', '--repo', dir);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toBe(`Undid ${first.slice(0, 7)}: main has no commits again\nD a.txt\nD d/b.txt\n`);
    expectUnborn(dir);
    expect(readFileSync(path.join(dir, '.git', 'packed-refs'), 'utf8')).not.toContain('refs/heads/main');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('at the tip, having taken in uncommitted work: an untracked file and a staged one are put back as they were', async () => {
    const dir = path.join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'First User');
    git(dir, 'config', 'user.email', 'first@fixtures.invalid');
    writeFileSync(path.join(dir, 'loose.txt'), 'untracked work\n');
    writeFileSync(path.join(dir, 'staged.txt'), 'staged work\n');
    git(dir, 'add', 'staged.txt');
    const statusBefore = git(dir, 'status', '--porcelain', '--untracked-files=all');
    const indexBefore = git(dir, 'ls-files', '--stage');
    const r0 = await patchtxJson(
      'apply',
      '--repo',
      dir,
      '--dirty=include',
      patchFile(v4a('*** Add File: loose.txt', '+from the patch', '*** Add File: staged.txt', '+from the patch', '*** Add File: new.txt', '+new')),
    );
    expect(r0.code, r0.out).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code, r.out + r.err).toBe(0);
    expectUnborn(dir);
    expect(readFileSync(path.join(dir, 'loose.txt'), 'utf8')).toBe('untracked work\n');
    expect(readFileSync(path.join(dir, 'staged.txt'), 'utf8')).toBe('staged work\n');
    expect(existsSync(path.join(dir, 'new.txt'))).toBe(false);
    expect(git(dir, 'ls-files', '--stage')).toBe(indexBefore);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
    expectNoLeftovers(dir);
    expectFsckClean(dir);

    // redo takes the checkout from the work put back to the commit again
    const redo = await patchtxJson('redo', '--repo', dir);
    expect(redo.code, redo.out + redo.err).toBe(0);
    expect(rev(dir)).toBe(r0.json.commit);
    expect(readFileSync(path.join(dir, 'loose.txt'), 'utf8')).toBe('from the patch\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expectFsckClean(dir);
  });

  it('--ref in a bare repository: the branch is deleted, HEAD still names it', async () => {
    const dir = path.join(tempDir(), 'bare.git');
    git(tempDir(), 'init', '-q', '--bare', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'First User');
    git(dir, 'config', 'user.email', 'first@fixtures.invalid');
    const r0 = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a')));
    expect(r0.code, r0.out).toBe(0);
    const r = await patchtxJson('undo', '--repo', dir, '--ref', 'main');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ action: 'reset', commit: null, target: r0.json.commit });
    expectUnborn(dir);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
    const redo = await patchtxJson('redo', '--repo', dir, '--ref', 'main');
    expect(redo.code, redo.out + redo.err).toBe(0);
    expect(rev(dir, 'refs/heads/main')).toBe(r0.json.commit);
    expectFsckClean(dir);
  });

  it('at a detached HEAD: refused (exit 7), nothing changes; --revert makes a revert commit', async () => {
    const { dir, first } = await firstByPatchtx();
    git(dir, 'checkout', '-q', '--detach');
    const before = snapshot(dir);
    const r = await patchtxJson('undo', '--repo', dir);
    expect(r.code, r.out).toBe(7);
    expect(r.json.error).toMatchObject({ kind: 'undo_refused', commit: first });
    expect(r.json.error.message).toContain('HEAD is detached');
    expectUntouched(dir, before);
    const v = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(v.code, v.out).toBe(0);
    expect(rev(dir, 'HEAD~1')).toBe(first);
    expectFsckClean(dir);
  });

  it('with --revert: a revert commit with the empty tree', async () => {
    const { dir } = await firstByPatchtx();
    const v = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(v.code, v.out).toBe(0);
    expect(rev(dir, 'HEAD^{tree}')).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(dir, 'd'))).toBe(false);
  });
});

describe("an undo of a repository's first commit, killed", () => {
  beforeAll(requireBuiltCli);
  afterAll(cleanupBuiltCli);

  it('at every crash point: recovery leaves the branch at the commit or unborn, the checkout in line with it', { timeout: 120_000 }, async () => {
    // and with packed-refs.lock held, between packed-refs checked (rewritten when packed) and the loose ref removed
    const points: string[] = [...CRASH_POINTS, 'ref-delete-checked', 'ref-delete-checked'];
    for (const [i, point] of points.entries()) {
      const dir = path.join(tempDir(), 'repo');
      git(tempDir(), 'init', '-q', '-b', 'main', dir);
      git(dir, 'config', 'user.name', 'First User');
      git(dir, 'config', 'user.email', 'first@fixtures.invalid');
      writeFileSync(path.join(dir, 'loose.txt'), 'untracked work\n');
      const statusBefore = git(dir, 'status', '--porcelain', '--untracked-files=all');
      const r0 = await patchtxJson(
        'apply',
        '--repo',
        dir,
        '--dirty=include',
        patchFile(v4a('*** Add File: loose.txt', '+from the patch', '*** Add File: d/new.txt', '+new')),
      );
      expect(r0.code, r0.out).toBe(0);
      const first = r0.json.commit as string;
      // every other trial with the branch in packed-refs
      if (i % 2 === 1) git(dir, 'pack-refs', '--all');
      const label = `${point}${i % 2 === 1 ? ' (packed)' : ''}`;
      const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: point } });
      expect(killed.signal, `${label}: ${killed.stderr}`).toBe('SIGKILL');
      const recovered = await runCli(['recover', '--repo', dir, '--json']);
      expect(recovered.status, `${label}: ${recovered.stdout}${recovered.stderr}`).toBe(0);
      const at = gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/main');
      if (at.status === 0) {
        expect(at.stdout.trim(), label).toBe(first);
        expect(git(dir, 'status', '--porcelain', '--untracked-files=all'), label).toBe('');
        expect(readFileSync(path.join(dir, 'loose.txt'), 'utf8'), label).toBe('from the patch\n');
      } else {
        expect(git(dir, 'symbolic-ref', 'HEAD').trim(), label).toBe('refs/heads/main');
        expect(git(dir, 'status', '--porcelain', '--untracked-files=all'), label).toBe(statusBefore);
        expect(readFileSync(path.join(dir, 'loose.txt'), 'utf8'), label).toBe('untracked work\n');
        expect(existsSync(path.join(dir, 'd')), label).toBe(false);
      }
      // from after the commit point on, the undo has landed
      const order = CRASH_POINTS as readonly string[];
      if (order.indexOf(point) >= order.indexOf('after-ref')) expect(at.status, label).not.toBe(0);
      expectNoLeftovers(dir);
      expectFsckClean(dir);
    }
  });
  it('after its commit point: recovery says the branch has no commits again', async () => {
    const dir = path.join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'First User');
    git(dir, 'config', 'user.email', 'first@fixtures.invalid');
    const r0 = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a')));
    expect(r0.code, r0.out).toBe(0);
    const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const recovered = await runCli(['recover', '--repo', dir]);
    expect(recovered.status, recovered.stderr).toBe(0);
    expect(recovered.stdout).toBe('Recovered an interrupted undo on refs/heads/main: finished (main has no commits again).\n');
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/main').status).not.toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });
});
