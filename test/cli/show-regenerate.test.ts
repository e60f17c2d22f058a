// `patchtx show --regenerate` of a commit without a note: the patch it prints must make the very
// change the commit made when applied onto its parent (a missing final newline, a mode change
// included), and a change no patch patchtx reads can say (a symbolic link) is refused.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson, requireBuiltCli, runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/schedule.js';
import { git } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir } from '../helpers/scratch.js';

beforeAll(() => {
  requireBuiltCli();
  isolateGitEnv();
});
afterAll(cleanupScratch);

/** A repository whose HEAD (made with git, so without a note) is `change` applied to `base`. */
function repoWith(base: Record<string, string>, change: (dir: string) => void): string {
  const dir = path.join(tempDir(), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@example.invalid');
  for (const [p, text] of Object.entries(base)) writeFileSync(path.join(dir, p), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  change(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'change');
  return dir;
}

describe('show --regenerate', () => {
  it('prints a patch that makes the same tree on the parent: a file without a final newline, a mode change', async () => {
    const dir = repoWith({ 'n.txt': 'x\ny', 's.sh': 'echo\n', 'plain.txt': 'a\n' }, (d) => {
      writeFileSync(path.join(d, 'n.txt'), 'x\nY');
      git(d, 'update-index', '--chmod=+x', 's.sh');
      writeFileSync(path.join(d, 'plain.txt'), 'b\n');
    });
    const shown = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err).toMatch(/regenerated/);
    git(dir, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    const again = await patchtxJson('apply', '--repo', dir, patchFile(shown.out));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(dir, 'rev-parse', 'again^{tree}')).toBe(git(dir, 'rev-parse', 'main^{tree}'));
  });

  it("a repository's first commit: the patch adds its files, with no warning that it does not apply", async () => {
    const dir = path.join(tempDir(), 'first');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'T');
    git(dir, 'config', 'user.email', 't@example.invalid');
    writeFileSync(path.join(dir, 'a.txt'), 'hi\n');
    writeFileSync(path.join(dir, 'n.txt'), 'no newline');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    const shown = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err).toMatch(/regenerated/);
    expect(shown.err).not.toMatch(/warning/);
    // applied to an empty repository, it makes the same tree
    const empty = path.join(tempDir(), 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');
    git(empty, 'config', 'user.name', 'T');
    git(empty, 'config', 'user.email', 't@example.invalid');
    const again = await patchtxJson('apply', '--repo', empty, patchFile(shown.out));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(empty, 'rev-parse', 'HEAD^{tree}')).toBe(git(dir, 'rev-parse', 'HEAD^{tree}'));
  });

  it('refuses a commit that adds a symbolic link, instead of printing it as a regular file', async () => {
    const dir = repoWith({ 'n.txt': 'x\n' }, (d) => symlinkSync('n.txt', path.join(d, 'link')));
    const plain = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(plain.code, plain.out).toBe(1);
    expect(plain.err).toMatch(/link/);
    expect(plain.out).toBe('');
  });
});

describe('show --json --regenerate', () => {
  it('prints the record of a patchtx commit whose note is missing, with the regenerated patch, marked', async () => {
    const dir = repoWith({ 'a.txt': 'one\n' }, (d) => writeFileSync(path.join(d, 'b.txt'), 'b\n'));
    const applied = await patchtxJson('apply', '--repo', dir, patchFile('*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n'));
    expect(applied.code, applied.err).toBe(0);
    const stored = await patchtxJson('show', '--repo', dir, '--json', 'HEAD');
    expect(stored.json.regenerated).toBeUndefined();
    git(dir, 'notes', '--ref', 'patchtx', 'remove', 'HEAD');
    const r = await patchtxJson('show', '--repo', dir, '--json', '--regenerate', 'HEAD');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.err).toMatch(/regenerated/);
    expect(r.json).toMatchObject({ commit: stored.json.commit, regenerated: true, message: stored.json.message, files: stored.json.files });
    git(dir, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    const again = await patchtxJson('apply', '--repo', dir, patchFile(r.json.patch));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(dir, 'rev-parse', 'again^{tree}')).toBe(git(dir, 'rev-parse', 'main^{tree}'));
  });
});

describe('show --json --regenerate while the branch moves', () => {
  it("gives the record of the commit it regenerated the patch of, not of the branch's new tip", async () => {
    const dir = repoWith({ 'a.txt': 'one\n' }, (d) => writeFileSync(path.join(d, 'b.txt'), 'b\n'));
    const applied = await patchtxJson('apply', '--repo', dir, patchFile('*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n'));
    expect(applied.code, applied.err).toBe(0);
    const regenerated = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'notes', '--ref', 'patchtx', 'remove', 'HEAD');
    const release = path.join(tempDir(), 'go');
    const run = runCli(['show', '--repo', dir, '--json', '--regenerate', 'HEAD'], {
      env: { PATCHTX_TEST_PAUSE_AT: 'show-regenerated', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    await waitFor(() => existsSync(`${release}.held`), 'the patch to be regenerated');
    // another transaction lands meanwhile
    const moved = await patchtxJson('apply', '--repo', dir, patchFile('*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n'));
    expect(moved.code, moved.err).toBe(0);
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(record).toMatchObject({ commit: regenerated, regenerated: true });
    expect(record.patch).toContain('+two');
  });
});

/**
 * A repository whose HEAD is `diff` applied by `git apply --index` and committed by git (so
 * without a note), with `config` set and `.gitattributes` holding `attributes`.
 */
function repoByGitApply(config: string[], attributes: string | null, diff: string): string {
  const dir = path.join(tempDir(), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@example.invalid');
  for (const c of config) git(dir, 'config', ...c.split('='));
  if (attributes !== null) writeFileSync(path.join(dir, '.gitattributes'), attributes + '\n');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'apply', '--index', patchFile(diff));
  // a Patch-Id makes it a transaction whose note is missing, which show --json can print
  git(dir, 'commit', '-q', '-m', 'by git apply --index', '--trailer', `Patch-Id: ${'1'.repeat(40)}`);
  return dir;
}

/** The tree the patch makes when patchtx applies it to a branch at HEAD~1 of `dir`. */
async function treeMadeBy(dir: string, patch: string): Promise<string> {
  git(dir, 'checkout', '-f', '-q', '-b', 'again', 'HEAD~1');
  const again = await patchtxJson('apply', '--repo', dir, patchFile(patch));
  expect(again.code, again.out + again.err).toBe(0);
  return git(dir, 'rev-parse', 'again^{tree}').trim();
}

const NEW_CRLF_FILE = 'diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,2 @@\n+x\r\n+y\r\n';
const CR_LINE_ADDED = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n+zero\r\n two\n';

describe('show --regenerate of a commit only a unified diff says', () => {
  it('a new file with lines ending with CR under core.autocrlf, as git apply --index committed it: the patch printed makes the same tree', async () => {
    const dir = repoByGitApply(['core.autocrlf=true'], null, NEW_CRLF_FILE);
    expect(git(dir, 'cat-file', 'blob', 'HEAD:b.txt')).toBe('x\r\ny\r\n');
    const shown = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err).not.toMatch(/warning/);
    // the diff in git's form, which apply commits as git apply --index does; the check wrote nothing
    expect(shown.out).toMatch(/^diff --git a\/b\.txt b\/b\.txt$/m);
    expect(git(dir, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main\n');
    expect(await treeMadeBy(dir, shown.out)).toBe(git(dir, 'rev-parse', 'main^{tree}').trim());
  });

  it('a line ending with CR in a `text` file: no patch makes that blob again, and a typed warning says so', async () => {
    const dir = repoByGitApply([], '*.txt text', CR_LINE_ADDED);
    const main = git(dir, 'rev-parse', 'main^{tree}').trim();
    const shown = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err).toMatch(/^warning: .*a\.txt.*would not make the commit's tree/m);
    const json = await patchtxJson('show', '--repo', dir, '--json', '--regenerate', 'HEAD');
    expect(json.json.warnings).toEqual([expect.objectContaining({ kind: 'regenerated_differs', path: 'a.txt', expected: main })]);
    // the warning is true: the patch printed makes another tree
    const made = await treeMadeBy(dir, shown.out);
    expect(made).not.toBe(main);
    expect(json.json.warnings[0].actual).toBe(made);
  });
});
