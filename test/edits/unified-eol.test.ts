// Unified diffs in repositories that convert line endings (core.autocrlf, the `text`/`eol`
// attributes): `git diff` prints the normalized (index) form, LF, while the working file has CRLF.
// `git apply --index` applies such a diff to the file's normalized form and checks the result out
// again; patchtx must do the same. Each case is run on two identical clones, one by
// `git apply --index` + `git commit`, one by patchtx: both must agree on whether the diff applies,
// and where it does, on the tree and on the bytes of every working file.
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir } from '../helpers/scratch.js';
import { expectFsckClean, worktreeFiles } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** A repository committing `files` as they are (no conversion while they are added). */
function sourceRepo(files: Record<string, string>): string {
  const dir = makeRepo('empty');
  git(dir, 'config', 'core.autocrlf', 'false');
  for (const [p, content] of Object.entries(files)) writeFileSync(path.join(dir, p), content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

/** A clone of `source` with `config` (`key=value`) set before its checkout; its index refreshed. */
function cloneOf(source: string, config: string[]): string {
  const dest = path.join(tempDir(), 'clone');
  git(path.dirname(dest), 'clone', '-q', ...config.flatMap((c) => ['-c', c]), source, dest);
  git(dest, 'config', 'user.name', 'Clone User');
  git(dest, 'config', 'user.email', 'clone@example.invalid');
  gitTry(dest, 'update-index', '-q', '--refresh');
  return dest;
}

/** The diff `change` makes in a clone (as `git diff` prints it there: the normalized form). */
function diffIn(source: string, config: string[], change: (dir: string) => void): string {
  const dir = cloneOf(source, config);
  change(dir);
  git(dir, 'add', '-A');
  return git(dir, 'diff', '--cached');
}

const read = (dir: string, p: string): string => readFileSync(path.join(dir, p), 'latin1');
/** A file as worktreeFiles lists it (not executable). */
const listed = (content: string): string => `file - ${Buffer.from(content, 'latin1').toString('hex')}`;
const edit = (dir: string, p: string, f: (s: string) => string): void => writeFileSync(path.join(dir, p), f(read(dir, p)), 'latin1');

interface Outcome {
  applies: boolean;
  error?: string;
  tree?: string;
  files?: Record<string, string>;
}

/** `git apply --index` + `git commit` on a clone (`plain`: `git apply` + `git add -A` + `git commit`). */
function byGit(source: string, config: string[], diff: string, prepare?: (dir: string) => void, plain = false): Outcome {
  const dir = cloneOf(source, config);
  prepare?.(dir);
  const r = gitTry(dir, 'apply', ...(plain ? [] : ['--index']), patchFile(diff));
  if (r.status !== 0) return { applies: false, error: r.stderr };
  if (plain) git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'by git');
  return { applies: true, tree: git(dir, 'rev-parse', 'HEAD^{tree}').trim(), files: worktreeFiles(dir) };
}

/** patchtx on an identical clone. */
async function byPatchtx(
  source: string,
  config: string[],
  diff: string,
  prepare?: (dir: string) => void,
  ...args: string[]
): Promise<Outcome & { kind?: string }> {
  const dir = cloneOf(source, config);
  prepare?.(dir);
  const r = await patchtxJson('apply', '--repo', dir, ...args, patchFile(diff));
  if (r.code !== 0) return { applies: false, error: r.json.error.message, kind: r.json.error.kind };
  expect(git(dir, 'status', '--porcelain')).toBe('');
  expectFsckClean(dir);
  return { applies: true, tree: git(dir, 'rev-parse', 'HEAD^{tree}').trim(), files: worktreeFiles(dir) };
}

/** Both on identical clones: `git apply --index` (or, `dirty`, plain `git apply` over work `prepare` leaves, and patchtx taking it in). */
async function expectAgreement(source: string, config: string[], diff: string, prepare?: (dir: string) => void, dirty = false): Promise<Outcome> {
  const g = byGit(source, config, diff, prepare, dirty);
  const p = await byPatchtx(source, config, diff, prepare, ...(dirty ? ['--dirty=include'] : []));
  expect({ applies: p.applies, tree: p.tree, files: p.files }, `git apply: ${g.error ?? 'applies'}\npatchtx: ${p.error ?? 'applies'}`).toEqual({
    applies: g.applies,
    tree: g.tree,
    files: g.files,
  });
  return g;
}

const LINES = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';

describe('unified diffs in a repository that converts line endings: as git apply --index', () => {
  it('core.autocrlf=true: a git diff (LF) applies to the CRLF working file, which stays CRLF', async () => {
    const source = sourceRepo({ 'a.txt': LINES, 'gone.txt': 'bye\nnow\n' });
    const config = ['core.autocrlf=true'];
    const diff = diffIn(source, config, (d) => {
      edit(d, 'a.txt', (s) => s.replace('two\r\n', 'TWO\r\n').replace('seven\r\n', 'seven\r\nseven and a half\r\n'));
      writeFileSync(path.join(d, 'new.txt'), 'fresh\r\nfile\r\n');
      git(d, 'rm', '-q', 'gone.txt');
    });
    expect(diff).not.toContain('\r');
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
    expect(g.files!['a.txt']).toBe(listed(LINES.replace('two', 'TWO').replace('seven\n', 'seven\nseven and a half\n').replaceAll('\n', '\r\n')));
    expect(g.files!['new.txt']).toBe(listed('fresh\r\nfile\r\n'));
  });

  it('an eol=crlf attribute: the same', async () => {
    const source = sourceRepo({ '.gitattributes': '*.txt text eol=crlf\n', 'a.txt': LINES });
    const config: string[] = [];
    const diff = diffIn(source, config, (d) => edit(d, 'a.txt', (s) => s.replace('four\r\n', 'FOUR\r\n')));
    expect(diff).not.toContain('\r');
    expect(read(cloneOf(source, config), 'a.txt')).toContain('\r\n');
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
    expect(g.files!['a.txt']).toBe(listed(LINES.replace('four', 'FOUR').replaceAll('\n', '\r\n')));
  });

  it('a file committed with mixed line endings under core.autocrlf=true: git converts nothing, and the diff applies as it is', async () => {
    const mixed = 'one\r\ntwo\nthree\r\nfour\nfive\r\n';
    const source = sourceRepo({ 'm.txt': mixed });
    const config = ['core.autocrlf=true'];
    expect(read(cloneOf(source, config), 'm.txt')).toBe(mixed);
    const diff = diffIn(source, config, (d) => edit(d, 'm.txt', (s) => s.replace('three', 'THREE')));
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
    expect(g.files!['m.txt']).toBe(listed(mixed.replace('three', 'THREE')));
  });

  it('a diff whose old lines end with CR (diff -u of working files) applies to the CRLF file as it is, as git apply takes it', async () => {
    const source = sourceRepo({ 'a.txt': LINES });
    const config = ['core.autocrlf=true'];
    const crlf = LINES.replaceAll('\n', '\r\n');
    const diff = ['--- a/a.txt', '+++ b/a.txt', '@@ -1,3 +1,3 @@', ' one\r', '-two\r', '+TWO\r', ' three\r', ''].join('\n');
    // git apply --index patches the index's LF blob, where these lines are not: plain git apply keeps the CRs
    expect(byGit(source, config, diff).applies).toBe(false);
    const g = await expectAgreement(source, config, diff, undefined, true);
    expect(g.applies).toBe(true);
    expect(g.files!['a.txt']).toBe(listed(crlf.replace('two', 'TWO')));
  });

  it.each([['core.safecrlf unset'], ['core.safecrlf=true']])(
    'uncommitted mixed endings taken in (%s): the file is normalized, patched and checked out all CRLF, as plain git apply does',
    async (safecrlf) => {
      const source = sourceRepo({ 'a.txt': LINES });
      const config = ['core.autocrlf=true', ...(safecrlf.includes('=') ? [safecrlf] : [])];
      const diff = ['--- a/a.txt', '+++ b/a.txt', '@@ -4,3 +4,3 @@', ' four', '-five', '+FIVE', ' six', ''].join('\n');
      // a lone LF line added in the CRLF working file
      const work = (d: string): void => edit(d, 'a.txt', (s) => s.replace('one\r\n', 'one\r\nzero\n'));
      const g = await expectAgreement(source, config, diff, work, true);
      expect(g.applies).toBe(true);
      expect(g.files!['a.txt']).toBe(listed(LINES.replace('one\n', 'one\nzero\n').replace('five', 'FIVE').replaceAll('\n', '\r\n')));
    },
  );

  it('an ident attribute: the diff shows $Id$ where the working file has it expanded, and applies', async () => {
    const source = sourceRepo({ '.gitattributes': '*.c ident\n', 'x.c': '/* $Id$ */\nint a;\nint b;\n' });
    const config: string[] = [];
    expect(read(cloneOf(source, config), 'x.c')).toMatch(/^\/\* \$Id: [0-9a-f]{40} \$ \*\//);
    const diff = diffIn(source, config, (d) => edit(d, 'x.c', (s) => s.replace('int a;', 'int aa;')));
    expect(diff).toContain(' /* $Id$ */');
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
  });

  it('a file with a lone CR (binary to git: no conversion) and a -text file: their bytes are patched as they are', async () => {
    const source = sourceRepo({ '.gitattributes': 'raw.dat -text\n', 'cr.txt': 'a\rb\nc\nd\n', 'raw.dat': 'x\r\ny\r\nz\r\n' });
    const config = ['core.autocrlf=true'];
    expect(read(cloneOf(source, config), 'cr.txt')).toBe('a\rb\nc\nd\n');
    const diff = diffIn(source, config, (d) => {
      edit(d, 'cr.txt', (s) => s.replace('c\n', 'C\n'));
      edit(d, 'raw.dat', (s) => s.replace('y\r\n', 'Y\r\n'));
    });
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
    expect(g.files!['raw.dat']).toBe(listed('x\r\nY\r\nz\r\n'));
  });

  it('a file git would renormalize (CRLF committed, then eol=crlf): modified to git, refused by both', async () => {
    const source = sourceRepo({ 'm.txt': 'one\r\ntwo\nthree\r\n' });
    git(source, 'config', 'core.autocrlf', 'false');
    writeFileSync(path.join(source, '.gitattributes'), '*.txt text eol=crlf\n');
    git(source, 'add', '.gitattributes');
    git(source, 'commit', '-q', '-m', 'attributes');
    const config: string[] = [];
    const diff = ['--- a/m.txt', '+++ b/m.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three', ''].join('\n');
    // the checkout's stat data is made stale, so both look at the content (a racy index would too)
    const stale = (d: string): void => {
      utimesSync(path.join(d, 'm.txt'), new Date(2001, 0, 1), new Date(2001, 0, 1));
      gitTry(d, 'update-index', '-q', '--refresh');
    };
    const g = byGit(source, config, diff, stale);
    expect(g.applies).toBe(false);
    const p = await byPatchtx(source, config, diff, stale);
    expect(p.applies).toBe(false);
    expect(p.kind).toBe('dirty');
  });
});

describe('unified diffs adding lines to a CRLF working file that git converts: stored as git apply --index stores them', () => {
  // `git apply --index` patches the stored (LF) form, commits the result as it is and checks it
  // out: an added line ending with CR keeps its CR in the commit, and under text=auto (or
  // core.autocrlf) the checkout, which then has CRLF, is left as it is
  const settings: [string, Record<string, string>, string[]][] = [
    ['text=auto, core.eol=crlf', { '.gitattributes': '*.txt text=auto\n' }, ['core.eol=crlf']],
    ['core.autocrlf=true', {}, ['core.autocrlf=true']],
  ];
  const added: [string, string[]][] = [
    ['plain LF lines', ['+four and a bit', '+four and more']],
    ['lines ending in CR', ['+four and a bit\r', '+four and more\r']],
    ['an LF line and a line ending in CR', ['+four and a bit', '+four and more\r']],
  ];
  const cases = settings.flatMap(([name, files, config]) => added.map(([what, lines]) => [name, what, files, config, lines] as const));
  const diffAdding = (lines: readonly string[]): string =>
    ['--- a/a.txt', '+++ b/a.txt', `@@ -3,3 +3,${3 + lines.length} @@`, ' three', ' four', ...lines, ' five', ''].join('\n');

  it.each(cases)('%s, a diff adding %s', async (_name, _what, files, config, lines) => {
    const source = sourceRepo({ ...files, 'a.txt': LINES });
    expect(read(cloneOf(source, config), 'a.txt')).toBe(LINES.replaceAll('\n', '\r\n'));
    const g = await expectAgreement(source, config, diffAdding(lines));
    expect(g.applies).toBe(true);
  });

  it.each(settings)('%s, a diff adding a file whose lines end in CR, or not', async (_name, files, config) => {
    const source = sourceRepo({ ...files, 'a.txt': LINES });
    const diff = [
      'diff --git a/n.txt b/n.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/n.txt',
      '@@ -0,0 +1,3 @@',
      '+one\r',
      '+two',
      '+three\r',
      '',
    ].join('\n');
    const g = await expectAgreement(source, config, diff);
    expect(g.applies).toBe(true);
  });

  it('core.safecrlf=true does not refuse the CR lines git apply --index commits as they are', async () => {
    const source = sourceRepo({ 'a.txt': LINES });
    const config = ['core.autocrlf=true', 'core.safecrlf=true'];
    const g = await expectAgreement(source, config, diffAdding(['+four and a bit\r']));
    expect(g.applies).toBe(true);
  });

  it('a text eol=crlf file: lines ending in CR, which git apply --index commits leaving the file modified to git, are committed as git add stores them', async () => {
    const source = sourceRepo({ '.gitattributes': '*.txt text eol=crlf\n', 'a.txt': LINES });
    const config: string[] = [];
    const diff = diffAdding(['+four and a bit', '+four and more\r']);
    // git keeps the CR in the commit, but the checkout is all CRLF, which git add stores all LF
    const byIndex = cloneOf(source, config);
    git(byIndex, 'apply', '--index', patchFile(diff));
    expect(git(byIndex, 'show', ':a.txt')).toContain('four and more\r\n');
    git(byIndex, 'add', 'a.txt');
    expect(git(byIndex, 'diff', '--cached', '--name-only')).toBe('a.txt\n');
    // patchtx commits what the plain git apply + git add commits, and leaves the file clean
    const g = byGit(source, config, diff, undefined, true);
    const p = await byPatchtx(source, config, diff);
    expect({ applies: p.applies, tree: p.tree, files: p.files }).toEqual({ applies: true, tree: g.tree, files: g.files });
    expect(g.files!['a.txt']).toBe(listed(LINES.replace('four\n', 'four\nfour and a bit\nfour and more\n').replaceAll('\n', '\r\n')));
    // LF lines alone agree with git apply --index
    expect((await expectAgreement(source, config, diffAdding(['+four and a bit']))).applies).toBe(true);
  });

  it('the diff is the note of a commit only it says: its export replays to the same commit', async () => {
    const source = sourceRepo({ 'a.txt': LINES });
    const config = ['core.autocrlf=true'];
    const diff = diffAdding(['+four and a bit\r']);
    const dir = cloneOf(source, config);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(diff));
    expect(r.code, r.err).toBe(0);
    expect(git(dir, 'show', 'HEAD:a.txt')).toContain('four and a bit\r\n');
    const shown = await patchtx('show', '--repo', dir, 'HEAD');
    expect(shown.out).toBe(diff);
    const exported = await patchtx('export', '--repo', dir);
    expect(exported.code, exported.err).toBe(0);
    const log = path.join(tempDir(), 'log.jsonl');
    writeFileSync(log, exported.out);
    const again = cloneOf(source, config);
    const replayed = await patchtx('replay', '--keep-metadata', '--repo', again, log);
    expect(replayed.code, replayed.err).toBe(0);
    expect(rev(again)).toBe(rev(dir));
    expect(worktreeFiles(again)).toEqual(worktreeFiles(dir));
    expect(git(again, 'status', '--porcelain')).toBe('');
  });

  it('uncommitted work taken in: stored as plain git apply and git add store it, and checked out from the commit', async () => {
    const source = sourceRepo({ 'a.txt': LINES });
    const config = ['core.autocrlf=true'];
    const work = (d: string): void => edit(d, 'a.txt', (s) => s.replace('one\r\n', 'one\r\nzero\r\n'));
    const diff = diffAdding(['+four and a bit\r']);
    const g = byGit(source, config, diff, work, true);
    const p = await byPatchtx(source, config, diff, work, '--dirty=include');
    expect(g.applies).toBe(true);
    expect(p.tree).toBe(g.tree);
    // git leaves the file as plain git apply wrote it; patchtx writes what checkout of the commit writes
    expect(p.files!['a.txt']).toBe(listed(LINES.replace('one\n', 'one\nzero\n').replace('four\n', 'four\nfour and a bit\n').replaceAll('\n', '\r\n')));
  });

  it('in a transaction of several steps the result is stored as git add stores it: its note, made from the result, replays to it', async () => {
    const source = sourceRepo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const config = ['core.autocrlf=true'];
    const dir = cloneOf(source, config);
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.apply(diffAdding(['+four and a bit\r']));
    await tx.apply(['*** Begin Patch', '*** Update File: b.txt', '@@', '-bee', '+BEE', '*** End Patch', ''].join('\n'));
    await tx.commit();
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe(LINES.replace('four\n', 'four\nfour and a bit\n'));
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const exported = await patchtx('export', '--repo', dir);
    const log = path.join(tempDir(), 'log.jsonl');
    writeFileSync(log, exported.out);
    const again = cloneOf(source, config);
    const replayed = await patchtx('replay', '--repo', again, log);
    expect(replayed.code, replayed.err).toBe(0);
    expect(git(again, 'rev-parse', 'HEAD^{tree}')).toBe(git(dir, 'rev-parse', 'HEAD^{tree}'));
  });
});
