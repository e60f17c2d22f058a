// Repositories as CI systems and sandboxes make them: a git directory the sandbox keeps read-only,
// shallow clones, partial (blobless) clones. Built with the git CLI, run as the built programs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, binPath, cleanupBuiltCli, patchtx, patchtxJson, requireBuiltCli, type RunResult } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

/**
 * Whether a directory can be made read-only for one process here: root ignores permission bits,
 * so the test mounts the git directory read-only in a user and mount namespace of its own.
 */
function readOnlyMountWorks(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-ro-'));
  try {
    const r = spawnSync('unshare', [
      '-rm',
      'sh',
      '-c',
      'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && ! touch "$1/x" 2>/dev/null',
      'sh',
      dir,
    ]);
    return r.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readOnlyWorks = readOnlyMountWorks();
if (!readOnlyWorks) console.warn('skipped: the read-only git directory tests need unshare -rm and bind mounts');

/** Runs a built program from `cwd` with `readOnly` mounted read-only for it alone. */
function runWithReadOnly(readOnly: string, name: 'patchtx' | 'apply_patch', args: string[], cwd: string): RunResult {
  const script = 'd=$1; shift; mount --bind "$d" "$d" && mount -o remount,ro,bind "$d" "$d" && exec "$@"';
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', readOnly, process.execPath, binPath(name), ...args], {
    cwd,
    env: { ...gitEnv, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe.skipIf(!readOnlyWorks)('a read-only git directory (a sandbox that keeps .git read-only)', () => {
  const patch = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a + b; // sum', '*** Add File: src/new.js', '+x');

  it('apply_patch writes the files without a commit and says on stderr that nothing was committed, and why', () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    const refs = git(dir, 'for-each-ref');
    const objects = git(dir, 'count-objects', '-v');
    const r = runWithReadOnly(path.join(dir, '.git'), 'apply_patch', [patch], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nA src/new.js\nM src/math.js\n');
    expect(r.err).toBe(
      `apply_patch: nothing was committed: the git directory ${path.join(dir, '.git')} is not writable (the file system is read-only, EROFS); the files were written without a commit\n`,
    );
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return a + b; // sum');
    expect(readFileSync(path.join(dir, 'src/new.js'), 'utf8')).toBe('x\n');
    expect(rev(dir)).toBe(head);
    expect(git(dir, 'for-each-ref')).toBe(refs);
    expect(git(dir, 'count-objects', '-v')).toBe(objects);
    expect(git(dir, 'status', '--porcelain')).toBe(' M src/math.js\n?? src/new.js\n');
  });

  it('apply_patch from a subdirectory: paths relative to it; a patch that does not apply writes nothing', () => {
    const dir = makeRepo('basic');
    const r = runWithReadOnly(
      path.join(dir, '.git'),
      'apply_patch',
      [v4a('*** Update File: math.js', '@@', '-  return a + b;', '+  return b + a;')],
      path.join(dir, 'src'),
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe('Success. Updated the following files:\nM math.js\n');
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toContain('return b + a;');
    const before = snapshot(dir);
    const bad = runWithReadOnly(
      path.join(dir, '.git'),
      'apply_patch',
      [v4a('*** Add File: README2.md', '+x', '*** Update File: README.md', '@@', '-nope', '+x')],
      dir,
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Failed to find expected lines in README\.md/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('apply_patch where the files cannot be written either (outside a repository): the cause in words, exit 74 (the file system refused), no stack trace', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    const r = runWithReadOnly(dir, 'apply_patch', [v4a('*** Update File: a.txt', '@@', '-a', '+b')], dir);
    expect(r.code).toBe(74);
    expect(r.out).toBe('');
    expect(r.err).toBe('Failed to write file a.txt: the file system is read-only (EROFS)\n');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('patchtx apply refuses with a typed error, exit 2, and changes nothing', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const file = patchFile(patch);
    const r = runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['apply', file], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `error: cannot commit: the git directory ${path.join(dir, '.git')} is not writable (the file system is read-only, EROFS); nothing was written\n`,
    );
    const j = runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['apply', '--json', file], dir);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out).error).toMatchObject({ kind: 'unsupported_repository', reason: 'read_only', gitdir: path.join(dir, '.git') });
    // check writes nothing, so it still answers
    expect(runWithReadOnly(path.join(dir, '.git'), 'patchtx', ['check', file], dir).code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expectFsckClean(dir);
  });
});

/** A repository with three patchtx commits on top of the fixture's two, and its clone at `depth`. */
async function shallowClone(depth: number, gitCommitOnTop = false): Promise<{ source: string; clone: string; commits: string[] }> {
  const source = makeRepo('basic');
  const commits: string[] = [];
  for (const p of [v4a('*** Add File: one.txt', '+1'), v4a('*** Add File: two.txt', '+2'), v4a('*** Add File: three.txt', '+3')]) {
    const r = await patchtxJson('apply', '--repo', source, patchFile(p));
    expect(r.code, r.out).toBe(0);
    commits.push(r.json.commit);
  }
  if (gitCommitOnTop) git(source, 'commit', '-q', '--allow-empty', '-m', 'made with git');
  const clone = path.join(tempDir(), 'clone');
  git(tempDir(), 'clone', '-q', `--depth=${depth}`, `file://${source}`, clone);
  git(clone, 'config', 'user.name', 'Clone User');
  git(clone, 'config', 'user.email', 'clone@fixtures.invalid');
  expect(readFileSync(path.join(clone, '.git/shallow'), 'utf8').trim().split('\n')).toHaveLength(1);
  return { source, clone, commits };
}

describe('a shallow clone (git clone --depth N)', () => {
  it('log lists the transactions the clone holds, the oldest one marked, and says where its history ends', async () => {
    const { clone, commits } = await shallowClone(2);
    const r = await patchtxJson('log', '--repo', clone);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.map((e: { commit: string }) => e.commit)).toEqual([commits[2], commits[1]]);
    expect(r.json[0]).toMatchObject({ files: [{ op: 'A', path: 'three.txt' }] });
    expect(r.json[0].shallow).toBeUndefined();
    expect(r.json[1]).toMatchObject({ files: [], shallow: true, subject: 'Apply patch: add two.txt' });
    const boundary = readFileSync(path.join(clone, '.git/shallow'), 'utf8').trim();
    expect(boundary).toBe(commits[1]);
    expect(r.err).toBe(
      `note: this is a shallow clone and its history ends at ${boundary.slice(0, 12)}: older transactions are not listed; 'git fetch --deepen=N' (or --unshallow) fetches older history\n`,
    );
    const text = await patchtx('log', '--repo', clone);
    expect(text.code).toBe(0);
    expect(text.out).toContain('  (its files are not known: its parent is not in this shallow clone)\n');
    expect(text.err).toBe(r.err);
    // -n that stops before the end: nothing to say
    expect((await patchtx('log', '--repo', clone, '-n', '1')).err).toBe('');
  });

  it('undo of the tip whose parent was not fetched: missing_object (exit 2) naming the parent and the remedy; nothing changes', async () => {
    const { clone, commits } = await shallowClone(1);
    const before = snapshot(clone);
    const r = await patchtx('undo', '--repo', clone);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `error: cannot undo ${commits[2]!.slice(0, 12)}: its parent ${commits[1]!.slice(0, 12)} is not in this shallow clone; 'git fetch --deepen=N' (or --unshallow) fetches older history\n`,
    );
    expect((await patchtxJson('undo', '--repo', clone)).json.error).toMatchObject({ kind: 'missing_object', oid: commits[1] });
    expectUntouched(clone, before);
  });

  it('undo walks back as far as the clone goes, then says where its history ends', async () => {
    const { clone, commits } = await shallowClone(2);
    const first = await patchtx('undo', '--repo', clone);
    expect(first.code, first.err).toBe(0);
    expect(rev(clone)).toBe(commits[1]);
    const before = snapshot(clone);
    const second = await patchtx('undo', '--repo', clone);
    expect(second.code).toBe(2);
    expect(second.err).toMatch(/^error: cannot undo [0-9a-f]{12}: its parent [0-9a-f]{12} is not in this shallow clone/);
    expectUntouched(clone, before);
  });

  it('no transaction within the clone, or a commit beyond it: undo_refused naming the end of the history', async () => {
    const { clone, commits } = await shallowClone(1, true);
    const before = snapshot(clone);
    const end = rev(clone).slice(0, 12);
    const r = await patchtx('undo', '--repo', clone);
    expect(r.code).toBe(7);
    expect(r.err).toBe(
      `error: no patchtx commit found on this ref as far as this shallow clone's history goes (it ends at ${end}); 'git fetch --deepen=N' (or --unshallow) fetches older history\n`,
    );
    // the commit exists here (fetched as another ref's tip) but lies beyond the end of main's history
    git(clone, 'fetch', '-q', '--depth=1', 'origin', `${commits[0]}:refs/tags/old`);
    const snap = snapshot(clone);
    const x = await patchtx('undo', '--repo', clone, commits[0]!);
    expect(x.code).toBe(7);
    expect(x.err).toBe(
      `error: ${commits[0]!.slice(0, 12)} is not on refs/heads/main as far as this shallow clone's history goes (it ends at ${end}); 'git fetch --deepen=N' (or --unshallow) fetches older history\n`,
    );
    expectUntouched(clone, snap);
    expect(before.head).toBe(snap.head);
  });
});

/** `git clone --filter=blob:none` of `source` at `branch`: only the blobs of its checkout are fetched. */
function blobless(source: string, branch = 'main', opts: string[] = []): string {
  git(source, 'config', 'uploadpack.allowFilter', 'true');
  const clone = path.join(tempDir(), 'partial');
  git(tempDir(), 'clone', '-q', '--filter=blob:none', '-b', branch, ...opts, `file://${source}`, clone);
  git(clone, 'config', 'user.name', 'Clone User');
  git(clone, 'config', 'user.email', 'clone@fixtures.invalid');
  expect(git(clone, 'config', 'remote.origin.promisor').trim()).toBe('true');
  return clone;
}

/** The objects a partial clone refers to but does not hold. */
const missingObjects = (dir: string): string[] =>
  git(dir, 'rev-list', '--objects', '--missing=print', '--all')
    .split('\n')
    .filter((l) => l.startsWith('?'))
    .map((l) => l.slice(1));

describe('a partial clone (git clone --filter=blob:none)', () => {
  const README = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A');

  it('a clean touched file whose bytes hash to the missing blob is enough', async () => {
    const source = makeRepo('basic');
    const oldReadme = git(source, 'rev-parse', 'HEAD:README.md').trim();
    // a clone without a checkout has none of the blobs; the files are then put in place by hand
    const clone = blobless(source, 'main', ['--no-checkout']);
    git(clone, 'reset', '-q');
    writeFileSync(path.join(clone, 'README.md'), readFileSync(path.join(source, 'README.md')));
    // the other files are not there: refresh reports them and exits 1, README.md is refreshed
    gitTry(clone, 'update-index', '-q', '--refresh');
    expect(git(clone, 'diff', '--name-only', '--', 'README.md')).toBe('');
    expect(missingObjects(clone)).toContain(oldReadme);
    const r = await patchtx('apply', '--repo', clone, patchFile(README));
    expect(r.code, r.err).toBe(0);
    expect(git(clone, 'show', 'HEAD:README.md')).toBe('# Sample A\n\nA small repository for patchtx tests.\n');
    expect(missingObjects(clone)).toContain(oldReadme);
  });

  it('a blob it did not fetch: missing_object (exit 2) naming the object, the path and the remedy; the remedy works', async () => {
    const source = makeRepo('basic');
    const oldReadme = git(source, 'rev-parse', 'HEAD:README.md').trim();
    git(source, 'branch', 'old');
    await patchtx('apply', '--repo', source, patchFile(README));
    const clone = blobless(source);
    expect(missingObjects(clone)).toContain(oldReadme);
    const before = snapshot(clone);
    const file = patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Old sample'));
    const r = await patchtx('apply', '--repo', clone, '--ref', 'old', '--base', 'origin/old', file);
    expect(r.code).toBe(2);
    const remedy = `fetch it with 'git fetch origin ${oldReadme}', then run the command again`;
    expect(r.err).toBe(`error: object ${oldReadme} (README.md) is not in this partial clone: its promisor remote 'origin' has it; ${remedy}\n`);
    const j = await patchtxJson('apply', '--repo', clone, '--ref', 'old', '--base', 'origin/old', file);
    expect(j.json.error).toMatchObject({ kind: 'missing_object', oid: oldReadme, path: 'README.md', remote: 'origin' });
    expectUntouched(clone, before);
    git(clone, 'fetch', '-q', 'origin', oldReadme);
    const again = await patchtx('apply', '--repo', clone, '--ref', 'old', '--base', 'origin/old', file);
    expect(again.code, again.err).toBe(0);
    expect(git(clone, 'show', 'old:README.md')).toContain('# Old sample');
  });

  it('undo that needs a blob it did not fetch (reset or revert): missing_object naming the path, before anything moves', async () => {
    const source = makeRepo('basic');
    const oldReadme = git(source, 'rev-parse', 'HEAD:README.md').trim();
    await patchtx('apply', '--repo', source, patchFile(README));
    git(source, 'branch', 'one');
    await patchtx('apply', '--repo', source, patchFile(v4a('*** Add File: two.txt', '+2')));
    for (const [branch, args] of [
      ['one', []],
      ['main', ['HEAD~1']],
    ] as const) {
      const clone = blobless(source, branch);
      const before = snapshot(clone);
      const r = await patchtxJson('undo', '--repo', clone, ...args);
      expect(r.code, r.out).toBe(2);
      expect(r.json.error).toMatchObject({ kind: 'missing_object', oid: oldReadme, path: 'README.md', remote: 'origin' });
      expectUntouched(clone, before);
    }
  });
});

/** A checkout stopped on a conflict in README.md by `op` (merge, cherry-pick, rebase, revert). */
function stoppedOnConflict(op: 'merge' | 'cherry-pick' | 'rebase' | 'revert'): string {
  const dir = makeRepo('basic');
  const readme = path.join(dir, 'README.md');
  git(dir, 'checkout', '-q', '-b', 'side');
  writeFileSync(readme, '# Side\n');
  git(dir, 'commit', '-q', '-am', 'side');
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(readme, '# Main\n');
  git(dir, 'commit', '-q', '-am', 'main');
  if (op === 'revert') {
    writeFileSync(readme, '# Main again\n');
    git(dir, 'commit', '-q', '-am', 'main again');
  }
  const args = { merge: ['merge', 'side'], 'cherry-pick': ['cherry-pick', 'side'], rebase: ['rebase', 'side'], revert: ['revert', '--no-edit', 'HEAD~1'] }[op];
  expect(gitTry(dir, ...args).status).not.toBe(0);
  return dir;
}

describe('a merge, rebase, cherry-pick or revert stopped half-way', () => {
  const patch = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a + b; // sum');

  it.each([
    ['merge', 'a merge', 'MERGE_HEAD'],
    ['cherry-pick', 'a cherry-pick', 'CHERRY_PICK_HEAD'],
    ['rebase', 'a rebase', 'rebase-merge'],
    ['revert', 'a revert', 'REVERT_HEAD'],
  ] as const)('%s: apply and undo are refused (exit 2), as git refuses a commit then; nothing changes', async (op, what, marker) => {
    const dir = stoppedOnConflict(op);
    const before = snapshot(dir);
    const r = await patchtx('apply', '--repo', dir, patchFile(patch));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      new RegExp(
        `^error: ${what} is in progress in this checkout \\(${marker} exists\\) and patchtx does not commit in the middle of it: .* give it up with 'git ${op} --abort' first\\n$`,
      ),
    );
    const j = await patchtxJson('apply', '--repo', dir, patchFile(patch));
    expect(j.json.error).toMatchObject({ kind: 'usage', reason: 'operation_in_progress', marker });
    expect((await patchtx('undo', '--repo', dir)).code).toBe(2);
    // check writes nothing, but says what apply would say
    expect((await patchtx('check', '--repo', dir, patchFile(patch))).code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('apply_patch (an agent resolving the conflict) writes the files without a commit and says why', async () => {
    const dir = stoppedOnConflict('merge');
    const head = rev(dir);
    const r = await applyPatch(dir, v4a('*** Delete File: README.md', '*** Add File: README.md', '+# Main and side'));
    expect(r.err).toBe(
      'apply_patch: nothing was committed: a merge is in progress in this checkout (MERGE_HEAD exists); the files were written without a commit\n',
    );
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# Main and side\n');
    expect(rev(dir)).toBe(head);
    expect(rev(dir, 'MERGE_HEAD')).toMatch(/^[0-9a-f]{40}$/);
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-q', '--no-edit');
    expect(git(dir, 'log', '-1', '--format=%P').trim().split(' ')).toHaveLength(2);
  });
});
