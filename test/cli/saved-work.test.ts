// Uncommitted work a transaction replaces is never lost: apply_patch (which takes uncommitted
// changes into its commit) and `patchtx apply --dirty=include` store the working-tree bytes and
// the index entries of such paths as objects under the transaction's notes commit
// (`patchtx-saved/<2 hex>/<38 hex>/` of refs/notes/patchtx), say where, and `git gc` keeps them.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, cleanupBuiltCli, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, leftoverFiles } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
  cleanupScratch();
});

/** Where the saved bytes of `p` sit for transaction `commit`. */
const savedSpec = (commit: string, p: string, side: 'worktree' | 'index' = 'worktree'): string =>
  `refs/notes/patchtx:patchtx-saved/${commit.slice(0, 2)}/${commit.slice(2)}/${side}/${p}`;

/** What `git gc --prune=now` must keep, and `git notes` must keep working with. */
function expectSurvivesGcAndGitNotes(dir: string, commit: string, saved: Record<string, string>): void {
  git(dir, 'gc', '--quiet', '--prune=now');
  for (const [spec, bytes] of Object.entries(saved)) expect(git(dir, 'show', spec)).toBe(bytes);
  // git's own notes commands read the notes tree and keep the saved entries when they rewrite it
  expect(git(dir, 'notes', '--ref=patchtx', 'list', commit).trim()).toMatch(/^[0-9a-f]{40}$/);
  git(dir, 'notes', '--ref=patchtx', 'add', '-m', 'by git', `${commit}~1`);
  expect(git(dir, 'notes', '--ref=patchtx', 'show', `${commit}~1`)).toBe('by git\n');
  git(dir, 'gc', '--quiet', '--prune=now');
  for (const [spec, bytes] of Object.entries(saved)) expect(git(dir, 'show', spec)).toBe(bytes);
  expectFsckClean(dir);
}

describe('uncommitted work a transaction replaces', () => {
  it('apply_patch deleting a file with a local edit: the edit is saved, and a warning says where', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'notes\nmy local edit\n');
    const r = await applyPatch(dir, v4a('*** Delete File: docs/notes.txt'));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nD docs/notes.txt\n');
    const commit = rev(dir);
    expect(r.err).toContain(`git show ${savedSpec(commit, 'docs/notes.txt')}`);
    expect(git(dir, 'show', savedSpec(commit, 'docs/notes.txt'))).toBe('notes\nmy local edit\n');
    // the index entry it had (the committed file) is kept beside it
    expect(git(dir, 'rev-parse', savedSpec(commit, 'docs/notes.txt', 'index')).trim()).toBe(git(dir, 'rev-parse', `${commit}~1:docs/notes.txt`).trim());
    expect(git(dir, 'notes', '--ref=patchtx', 'show', commit)).toBe(v4a('*** Delete File: docs/notes.txt'));
    expectSurvivesGcAndGitNotes(dir, commit, { [savedSpec(commit, 'docs/notes.txt')]: 'notes\nmy local edit\n' });
  });

  it('--dirty=include adding a file over an untracked one: its bytes are saved, and the warning says where', async () => {
    const dir = makeRepo('packed');
    writeFileSync(path.join(dir, 'loose.txt'), 'untracked work\n');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nedited\n');
    const r = await patchtxJson(
      'apply',
      '--repo',
      dir,
      '--dirty=include',
      patchFile(v4a('*** Add File: loose.txt', '+added', '*** Update File: README.md', '@@', '-# Sample', '+# Title')),
    );
    expect(r.code, r.out).toBe(0);
    const commit = r.json.commit;
    const messages = r.json.warnings.filter((w: { kind: string }) => w.kind === 'dirty_included').map((w: { message: string }) => w.message);
    expect(messages).toEqual([
      `loose.txt: its uncommitted changes (untracked file in the way) were replaced: the patch adds the file; they are saved: git show ${savedSpec(commit, 'loose.txt')}`,
      `README.md: the commit includes its uncommitted changes (modified in the working tree) besides the patch; the patch stored with the commit does not hold them; they are saved as they were: git show ${savedSpec(commit, 'README.md')}`,
    ]);
    expect(readFileSync(path.join(dir, 'loose.txt'), 'utf8')).toBe('added\n');
    // an untracked file has no index entry to keep
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', savedSpec(commit, 'loose.txt', 'index')).status).not.toBe(0);
    expectSurvivesGcAndGitNotes(dir, commit, {
      [savedSpec(commit, 'loose.txt')]: 'untracked work\n',
      [savedSpec(commit, 'README.md')]: '# Sample\n\nedited\n',
    });
  });

  it('a patch that turns the uncommitted edit back into the committed file (no commit): the edit is saved', async () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    writeFileSync(path.join(dir, 'src/util/name.js'), 'export const name = "edited";\n');
    const r = await applyPatch(
      path.join(dir, 'src'),
      v4a('*** Update File: util/name.js', '@@', '-export const name = "edited";', '+export const name = "util";'),
    );
    expect(r.code, r.err).toBe(0);
    expect(rev(dir)).toBe(head);
    expect(readFileSync(path.join(dir, 'src/util/name.js'), 'utf8')).toBe('export const name = "util";\n');
    const spec = /git show (refs\/notes\/patchtx:patchtx-saved\/[0-9a-f]{2}\/[0-9a-f]{38}\/worktree\/src\/util\/name\.js)/.exec(r.err)?.[1];
    expect(spec, r.err).toBeDefined();
    expect(git(dir, 'show', spec!)).toBe('export const name = "edited";\n');
    git(dir, 'gc', '--quiet', '--prune=now');
    expect(git(dir, 'show', spec!)).toBe('export const name = "edited";\n');
    expectFsckClean(dir);
  });

  it("no commit, killed while it holds the notes ref's lock to save the edit: recovery removes that lock, and the edit is still there", async () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    writeFileSync(path.join(dir, 'src/util/name.js'), 'export const name = "edited";\n');
    const patch = patchFile(v4a('*** Update File: src/util/name.js', '@@', '-export const name = "edited";', '+export const name = "util";'));
    const killed = await runCli(['apply', '--repo', dir, '--dirty=include', patch], { env: { PATCHTX_TEST_CRASH_AT: 'ref-locked' } });
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');
    // killed where it was meant to be: the notes ref locked by the run, nothing of the checkout changed
    // (besides the run's witnesses of its locks, patchtx/lock-*, and the .keep file of its pack)
    expect(leftoverFiles(path.join(dir, '.git')).filter((f) => !f.startsWith('patchtx/lock-') && !/^objects\/pack\/pack-\w+\.keep$/.test(f))).toEqual([
      'index.lock',
      'patchtx/journal.json',
      'refs/notes/patchtx.lock',
    ]);
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'dropped', op: 'apply' });
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expectFsckClean(dir);
    expect(rev(dir)).toBe(head);
    expect(readFileSync(path.join(dir, 'src/util/name.js'), 'utf8')).toBe('export const name = "edited";\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(' M src/util/name.js\n');
    // and the notes ref takes the saved edit when the patch is applied again
    const again = await runCli(['apply', '--repo', dir, '--dirty=include', '--json', patch]);
    expect(again.status, again.stderr).toBe(0);
    const spec = /git show (refs\/notes\/patchtx:patchtx-saved\/\S+\/worktree\/src\/util\/name\.js)/.exec(again.stdout)?.[1];
    expect(spec, again.stdout).toBeDefined();
    expect(git(dir, 'show', spec!)).toBe('export const name = "edited";\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
    expectFsckClean(dir);
  });

  it('the notes ref moving between the commit point and the note (git notes, another worktree): the saved work still goes with the note', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'notes\nmy local edit\n');
    const patch = patchFile(v4a('*** Delete File: docs/notes.txt'));
    const release = path.join(dir, '..', 'release-notes-move');
    const run = runCli(['apply', '--repo', dir, '--json', '--dirty=include', patch], {
      env: { PATCHTX_TEST_PAUSE_AT: 'after-ref', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    // held just after its ref moved, before the note is attached: git moves the notes ref meanwhile
    await waitFor(() => gitTry(dir, 'log', '-1', '--format=%s').stdout.startsWith('Apply patch'), 'the run moved its ref');
    git(dir, 'notes', '--ref=patchtx', 'add', '-m', 'by git meanwhile', 'HEAD~1^{tree}');
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const commit = JSON.parse(r.stdout).commit;
    expect(existsSync(path.join(dir, '.git', 'patchtx', 'journal.json'))).toBe(false);
    expect(git(dir, 'notes', '--ref=patchtx', 'show', 'HEAD~1^{tree}')).toBe('by git meanwhile\n');
    expectSurvivesGcAndGitNotes(dir, commit, { [savedSpec(commit, 'docs/notes.txt')]: 'notes\nmy local edit\n' });
  });

  it('an Add over an untracked file is A in the result, the commit message and the log; over a tracked file deleted from the working tree, M in all three', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'loose.txt'), 'untracked work\n');
    rmSync(path.join(dir, 'docs/notes.txt'));
    const patch = patchFile(v4a('*** Add File: loose.txt', '+added', '*** Add File: docs/notes.txt', '+written anew'));
    const r = await runCli(['apply', '--repo', dir, '--dirty=include', '--json', patch]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const ops = (files: { op: string; path: string }[]): string[] => files.map((f) => `${f.op} ${f.path}`).sort();
    // what git itself says the commit did
    const byGit = git(dir, 'diff-tree', '--no-commit-id', '--name-status', '-r', result.commit)
      .trim()
      .split('\n')
      .map((l) => l.replace('\t', ' '))
      .sort();
    expect(byGit).toEqual(['A loose.txt', 'M docs/notes.txt']);
    expect(ops(result.files)).toEqual(byGit);
    const body = git(dir, 'log', '-1', '--format=%B', result.commit);
    expect(body).toMatch(/^Apply patch: add loose\.txt, update docs\/notes\.txt\n\nA loose\.txt\nM docs\/notes\.txt\n/);
    const log = await runCli(['log', '--repo', dir, '-n', '1', '--json']);
    expect(log.status, log.stderr).toBe(0);
    expect(ops(JSON.parse(log.stdout)[0].files)).toEqual(byGit);
    // the untracked file's bytes are saved, as for any uncommitted work the run replaced
    expect(git(dir, 'show', savedSpec(result.commit, 'loose.txt'))).toBe('untracked work\n');
  });

  it('nothing is saved when the touched paths were clean', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Delete File: docs/notes.txt')));
    expect(r.code, r.out).toBe(0);
    expect(git(dir, 'ls-tree', '--name-only', 'refs/notes/patchtx').trim()).toBe(r.json.commit);
  });
});
