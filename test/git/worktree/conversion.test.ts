// Line-ending conversion in whole transactions, checked against git itself. For each attribute
// line × core.autocrlf/core.eol × how the base was committed, one patch updates, adds, deletes and
// re-adds, and moves files holding LF, CRLF, mixed and binary-looking content. A copy of the
// repository made before the patch does the same with git (the patch's result written into the
// working tree, then git add / rm / mv); the commit patchtx makes must have git's tree, its
// working tree what git's checkout writes (`git ls-files --eol` alike), and `git status` and
// `git diff` must be empty. The same patch with a branch as the target in a bare clone (no working
// tree) must commit the same tree.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as applyPatchMain } from '../../../src/cli/apply_patch.js';
import { main } from '../../../src/cli/patchtx.js';
import { applyTransaction, type FileContents } from '../../../src/commands/apply.js';
import { binPath, cleanupBuiltCli, cliOk, requireBuiltCli, runCli } from '../../helpers/cli.js';
import { cleanupRepos, git, gitEnv, gitTry, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

const CONTENTS: Record<string, string> = {
  lf: 'one\ntwo\nthree\n',
  crlf: 'one\r\ntwo\r\nthree\r\n',
  mixed: 'one\r\ntwo\nthree\r\n',
  // a control character in so few printable ones: binary to git's guess
  binary: 'zero\x01\r\none\r\ntwo\r\nthree\r\n',
};
const LABELS = Object.keys(CONTENTS);

const PATCH = [
  '*** Begin Patch',
  ...LABELS.flatMap((l) => [`*** Update File: u-${l}.txt`, '@@', ' one', '-two', '+TWO', ' three']),
  ...LABELS.flatMap((l) => [`*** Delete File: d-${l}.txt`, `*** Add File: d-${l}.txt`, '+re', '+added']),
  ...LABELS.flatMap((l) => [`*** Update File: m-${l}.txt`, `*** Move to: moved/m-${l}.txt`, '@@', ' one', '-two', '+TWO', ' three']),
  '*** Add File: new/added.txt',
  '+brand',
  '+new',
  '*** End Patch',
  '',
].join('\n');

const ATTRIBUTES = ['', '* text=auto eol=lf', '* text=auto', '* text', '* text eol=lf', '* eol=crlf', '* -text', '*.txt text=auto eol=crlf'];
const CONFIGS: Record<string, string>[] = [{}, { 'core.autocrlf': 'true' }, { 'core.autocrlf': 'input' }, { 'core.autocrlf': 'false', 'core.eol': 'crlf' }];
/** blobs with CRLF matter where git guesses (text=auto, core.autocrlf), and under `text` */
const RAW_ATTRIBUTES = ['', '* text=auto', '* text=auto eol=lf', '* text', '*.txt text=auto eol=crlf'];

const raw = (s: string): Buffer => Buffer.from(s, 'latin1');

/**
 * A repository whose commit holds the files, added by git under the attributes and settings
 * ('normalised'), or committed as they are before the attributes came ('raw', so blobs keep their
 * CRLF), with a fresh checkout of them.
 */
function setup(attributes: string, config: Record<string, string>, base: 'normalised' | 'raw'): string {
  const dir = makeRepo('empty');
  const write = (): void => {
    for (const l of LABELS) for (const prefix of ['u', 'd', 'm']) writeFileSync(path.join(dir, `${prefix}-${l}.txt`), raw(CONTENTS[l]!));
  };
  const configure = (): void => {
    for (const [k, v] of Object.entries(config)) git(dir, 'config', k, v);
    writeFileSync(path.join(dir, '.gitattributes'), attributes === '' ? '' : `${attributes}\n`);
  };
  if (base === 'raw') {
    write();
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'raw files');
    configure();
  } else {
    configure();
    write();
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'files');
  // what checkout writes under these settings
  for (const l of LABELS) for (const prefix of ['u', 'd', 'm']) rmSync(path.join(dir, `${prefix}-${l}.txt`));
  rmSync(path.join(dir, '.gitattributes'));
  git(dir, 'checkout', '--', '.');
  return dir;
}

/** The same change made with git in `twin`: each result written as patchtx's engine produced it. */
function applyWithGit(twin: string, contents: FileContents[]): void {
  for (const l of LABELS) {
    git(twin, 'rm', '-q', `d-${l}.txt`);
    mkdirSync(path.join(twin, 'moved'), { recursive: true });
    git(twin, 'mv', `m-${l}.txt`, `moved/m-${l}.txt`);
  }
  for (const c of contents) {
    if (c.after === null) continue;
    mkdirSync(path.dirname(path.join(twin, c.path)), { recursive: true });
    writeFileSync(path.join(twin, c.path), c.after);
    git(twin, 'add', c.path);
  }
  // then what git's checkout writes for every file
  for (const c of contents) if (c.after !== null) rmSync(path.join(twin, c.path));
  git(twin, 'checkout', '--', '.');
}

const eolListing = (dir: string): string => git(dir, 'ls-files', '--eol').replace(/\s+/g, ' ');

describe('line-ending conversion in transactions, cross-checked with git', () => {
  for (const base of ['normalised', 'raw'] as const) {
    for (const attributes of base === 'raw' ? RAW_ATTRIBUTES : ATTRIBUTES) {
      for (const config of CONFIGS) {
        const settings =
          Object.entries(config)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ') || 'no settings';
        it(`${base} base, ${attributes || 'no attributes'}, ${settings}`, async () => {
          const dir = setup(attributes, config, base);
          if (git(dir, 'status', '--porcelain') !== '') {
            // git itself calls such a fresh checkout modified (a committed CRLF under `text`):
            // patchtx must refuse it as dirty, as it would any modified file
            const r = await applyTransaction({ repoDir: dir, env: gitEnv, patchText: PATCH }).catch((e: unknown) => e);
            expect(r).toMatchObject({ kind: 'dirty' });
            return;
          }
          const twin = `${dir}-twin`;
          cpSync(dir, twin, { recursive: true });
          const bare = `${dir}-bare`;
          git(path.dirname(dir), 'clone', '-q', '--bare', dir, bare);
          for (const [k, v] of Object.entries(config)) git(bare, 'config', k, v);
          const branch = git(dir, 'symbolic-ref', '--short', 'HEAD').trim();

          const result = await applyTransaction({ repoDir: dir, env: gitEnv, patchText: PATCH, withContents: true });
          const contents = result.contents!;
          // the patch applied to the files as the working tree holds them
          for (const c of contents) {
            if (c.before !== null && c.from === undefined)
              expect(Buffer.from(c.before).toString('latin1'), c.path).toBe(readFileSync(path.join(twin, c.path), 'latin1'));
          }
          expect(git(dir, 'status', '--porcelain')).toBe('');
          expect(git(dir, 'diff', 'HEAD')).toBe('');
          git(dir, 'fsck', '--strict');

          applyWithGit(twin, contents);
          expect(git(dir, 'rev-parse', 'HEAD^{tree}')).toBe(git(twin, 'write-tree'));
          for (const c of contents) {
            if (c.after !== null)
              expect(readFileSync(path.join(dir, c.path), 'latin1'), `${c.path} in the working tree`).toBe(readFileSync(path.join(twin, c.path), 'latin1'));
          }
          expect(eolListing(dir)).toBe(eolListing(twin));
          if (base === 'normalised') {
            // no blob holds CRLF that git's text=auto rule keeps: git hash-object of each
            // working-tree file (converted by its path's attributes) gives the committed blob
            const written = contents.filter((c) => c.after !== null).map((c) => c.path);
            const hashed = git(dir, 'hash-object', '--', ...written)
              .trim()
              .split('\n');
            expect(hashed).toHaveLength(written.length);
            written.forEach((p, i) => expect(hashed[i], p).toBe(git(dir, 'rev-parse', `HEAD:${p}`).trim()));
          }

          // with no working tree: the files as checkout would write them here, the same commit
          const bareResult = await applyTransaction({ repoDir: bare, env: gitEnv, patchText: PATCH, ref: `refs/heads/${branch}` });
          expect(git(bare, 'rev-parse', `${bareResult.commit}^{tree}`)).toBe(git(dir, 'rev-parse', 'HEAD^{tree}'));
        });
      }
    }
  }
});

describe('what is still refused', () => {
  const UPDATE = '*** Begin Patch\n*** Update File: README.md\n@@\n # Sample\n+x\n*** End Patch\n';

  async function apply(repo: string): Promise<{ code: number; error: { kind: string; feature?: string; message: string; path?: string } }> {
    const file = path.join(repo, '..', 'p.patch');
    writeFileSync(file, UPDATE);
    const out: string[] = [];
    const code = await main(['apply', '--json', '--repo', repo, file], { out: (t) => out.push(t), err: () => {} });
    return { code, error: JSON.parse(out.join('')).error };
  }

  for (const attr of ['filter=lfs', 'working-tree-encoding=UTF-16']) {
    it(`refuses a touched path with ${attr}, naming the attribute, the file that sets it and the way out`, async () => {
      const repo = makeRepo('basic');
      writeFileSync(path.join(repo, '.gitattributes'), `*.md ${attr}\n`);
      git(repo, 'add', '.gitattributes');
      git(repo, 'commit', '-qm', 'attributes');
      const head = git(repo, 'rev-parse', 'HEAD');
      const r = await apply(repo);
      expect(r.code).toBe(2);
      expect(r.error).toMatchObject({ kind: 'unsupported_repository', feature: attr.split('=')[0], path: 'README.md' });
      expect(r.error.message).toContain(`README.md has the attribute ${attr} (.gitattributes:1)`);
      expect(r.error.message).toContain('make this change with git itself');
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    });
  }

  it('applies with working-tree-encoding=UTF-8, which git does not convert', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, '.gitattributes'), '*.md working-tree-encoding=UTF-8\n');
    git(repo, 'add', '.gitattributes');
    git(repo, 'commit', '-qm', 'attributes');
    expect((await apply(repo)).code).toBe(0);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('.gitattributes changed by the patch itself', () => {
  const ADD_ATTRIBUTES = [
    '*** Begin Patch',
    '*** Add File: .gitattributes',
    '+*.txt text eol=crlf',
    '*** Add File: a.txt',
    '+alpha',
    '*** Update File: b.txt',
    '@@',
    ' one',
    '+two',
    '*** End Patch',
    '',
  ].join('\n');

  it('stores and checks out the touched paths with the attributes of the result, and a later run finds them clean', async () => {
    const dir = makeRepo('empty');
    writeFileSync(path.join(dir, 'b.txt'), 'one\n');
    git(dir, 'add', 'b.txt');
    git(dir, 'commit', '-qm', 'b');
    const twin = `${dir}-twin`;
    cpSync(dir, twin, { recursive: true });

    const result = await applyTransaction({ repoDir: dir, env: gitEnv, patchText: ADD_ATTRIBUTES, withContents: true });
    expect(readFileSync(path.join(dir, 'a.txt'), 'latin1')).toBe('alpha\r\n');
    expect(readFileSync(path.join(dir, 'b.txt'), 'latin1')).toBe('one\r\ntwo\r\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'diff', 'HEAD')).toBe('');
    // git: the new .gitattributes in the working tree, then the files added under it
    for (const c of result.contents!) writeFileSync(path.join(twin, c.path), c.after!);
    git(twin, 'add', '.gitattributes', 'a.txt', 'b.txt');
    expect(git(dir, 'rev-parse', 'HEAD^{tree}')).toBe(git(twin, 'write-tree'));
    rmSync(path.join(twin, 'a.txt'));
    rmSync(path.join(twin, 'b.txt'));
    git(twin, 'checkout', '--', '.');
    expect(git(dir, 'ls-files', '--eol', 'a.txt', 'b.txt')).toBe(git(twin, 'ls-files', '--eol', 'a.txt', 'b.txt'));

    // the next run reads the same attributes from the commit: the files are clean, not dirty
    const next = '*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** End Patch\n';
    await applyTransaction({ repoDir: dir, env: gitEnv, patchText: next });
    expect(readFileSync(path.join(dir, 'a.txt'), 'latin1')).toBe('ALPHA\r\n');
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('ALPHA\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('drops the conversion of the touched paths when the patch deletes the .gitattributes that set it', async () => {
    const dir = makeRepo('empty');
    writeFileSync(path.join(dir, '.gitattributes'), '*.txt text eol=crlf\n');
    writeFileSync(path.join(dir, 'b.txt'), 'one\n');
    git(dir, 'add', '.gitattributes', 'b.txt');
    git(dir, 'commit', '-qm', 'b');
    rmSync(path.join(dir, 'b.txt'));
    git(dir, 'checkout', '--', 'b.txt');
    expect(readFileSync(path.join(dir, 'b.txt'), 'latin1')).toBe('one\r\n');
    const patch = '*** Begin Patch\n*** Delete File: .gitattributes\n*** Update File: b.txt\n@@\n one\n+two\n*** End Patch\n';
    await applyTransaction({ repoDir: dir, env: gitEnv, patchText: patch });
    // the file as the working tree held it (CRLF, the line added in its style), stored as it is
    expect(git(dir, 'show', 'HEAD:b.txt')).toBe('one\r\ntwo\r\n');
    expect(readFileSync(path.join(dir, 'b.txt'), 'latin1')).toBe('one\r\ntwo\r\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('settings and attributes around line endings', () => {
  it('takes core.autocrlf from git -c, as when patchtx runs from a git alias', () => {
    requireBuiltCli();
    const dir = makeRepo('basic');
    const before = git(dir, 'show', 'HEAD:README.md');
    git(dir, 'config', 'alias.pt', `!node ${binPath()}`);
    const patch = path.join(dir, '..', 'p.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: notes.txt\n+first\n+second\n*** End Patch\n');
    execFileSync('git', ['-c', 'core.autocrlf=true', 'pt', 'apply', patch], { cwd: dir, env: gitEnv, stdio: 'pipe' });
    expect(readFileSync(path.join(dir, 'notes.txt'), 'latin1')).toBe('first\r\nsecond\r\n');
    expect(git(dir, 'show', 'HEAD:notes.txt')).toBe('first\nsecond\n');
    expect(git(dir, 'show', 'HEAD:README.md')).toBe(before);
    // git sees the file as clean with the same setting
    expect(execFileSync('git', ['-c', 'core.autocrlf=true', 'status', '--porcelain'], { cwd: dir, env: gitEnv, encoding: 'utf8' })).toBe('');
    cleanupBuiltCli();
  });

  it('applies apply_patch edits in a `* text=auto eol=lf` repository', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, '.gitattributes'), '* text=auto eol=lf\n');
    git(dir, 'add', '.gitattributes');
    git(dir, 'commit', '-qm', 'attributes');
    const out: string[] = [];
    const patch = '*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: README.md\n@@\n # Sample\n+x\n*** End Patch\n';
    const code = await applyPatchMain([patch], { out: (t) => out.push(t), err: (t) => out.push(t) }, dir);
    expect(out.join('')).toContain('Success.');
    expect(code).toBe(0);
    expect(git(dir, 'show', 'HEAD:docs/new.md')).toBe('hello\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('core.safecrlf: true refuses a file whose line endings checkout would not give back, warn (the default) says so', async () => {
    // an LF file checked out before core.autocrlf was turned on: git calls it clean, and its next
    // checkout writes CRLF
    const setup = (safecrlf: string): string => {
      const dir = makeRepo('empty');
      writeFileSync(path.join(dir, 'w.txt'), 'one\ntwo\n');
      git(dir, 'add', 'w.txt');
      git(dir, 'commit', '-qm', 'lf file');
      git(dir, 'config', 'core.autocrlf', 'true');
      git(dir, 'config', 'core.safecrlf', safecrlf);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      return dir;
    };
    const patch = '*** Begin Patch\n*** Update File: w.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n';

    const strict = setup('true');
    const head = git(strict, 'rev-parse', 'HEAD');
    await expect(applyTransaction({ repoDir: strict, env: gitEnv, patchText: patch })).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('LF would be replaced by CRLF in w.txt (core.safecrlf=true)'),
      data: { feature: 'safecrlf', path: 'w.txt' },
    });
    expect(git(strict, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(path.join(strict, 'w.txt'), 'latin1')).toBe('one\ntwo\n');
    // git add refuses the same file
    writeFileSync(path.join(strict, 'w.txt'), 'one\nTWO\n');
    expect(gitTry(strict, 'add', 'w.txt').stderr).toContain('LF would be replaced by CRLF in w.txt');

    const warned = setup('warn');
    const r = await applyTransaction({ repoDir: warned, env: gitEnv, patchText: patch });
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ kind: 'line_endings', path: 'w.txt', message: expect.stringContaining('LF line endings were replaced by CRLF') }),
    );
    expect(git(warned, 'show', 'HEAD:w.txt')).toBe('one\nTWO\n');
    expect(readFileSync(path.join(warned, 'w.txt'), 'latin1')).toBe('one\r\nTWO\r\n');
    expect(git(warned, 'status', '--porcelain')).toBe('');
  });

  it('ident: $Id$ is collapsed in the commit and expanded in the working tree, as git does', async () => {
    const dir = makeRepo('empty');
    writeFileSync(path.join(dir, '.gitattributes'), '*.c ident\n');
    writeFileSync(path.join(dir, 'a.c'), '/* $Id$ */\nint a;\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'ident');
    rmSync(path.join(dir, 'a.c'));
    git(dir, 'checkout', '--', 'a.c');
    const twin = `${dir}-twin`;
    cpSync(dir, twin, { recursive: true });
    const patch = '*** Begin Patch\n*** Update File: a.c\n@@\n int a;\n+int b;\n*** Add File: b.c\n+// $Id$\n*** End Patch\n';
    const r = await applyTransaction({ repoDir: dir, env: gitEnv, patchText: patch, withContents: true });
    expect(git(dir, 'show', 'HEAD:a.c')).toBe('/* $Id$ */\nint a;\nint b;\n');
    const oid = git(dir, 'rev-parse', 'HEAD:a.c').trim();
    expect(readFileSync(path.join(dir, 'a.c'), 'utf8')).toBe(`/* $Id: ${oid} $ */\nint a;\nint b;\n`);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    for (const c of r.contents!) writeFileSync(path.join(twin, c.path), c.after!);
    git(twin, 'add', 'a.c', 'b.c');
    expect(git(dir, 'rev-parse', 'HEAD^{tree}')).toBe(git(twin, 'write-tree'));
    rmSync(path.join(twin, 'a.c'));
    rmSync(path.join(twin, 'b.c'));
    git(twin, 'checkout', '--', '.');
    for (const f of ['a.c', 'b.c']) expect(readFileSync(path.join(dir, f), 'utf8')).toBe(readFileSync(path.join(twin, f), 'utf8'));
  });
});

describe('recovery of an interrupted run in a repository with line-ending conversion', () => {
  const PATCH_FILES = '*** Begin Patch\n*** Update File: README.md\n@@\n # Sample\n+more\n*** Add File: notes.txt\n+new\n*** End Patch\n';

  for (const point of ['after-ref', 'mid-worktree', 'after-worktree']) {
    it(`finishes a run killed at ${point}: what it found and what it wrote are its own, not later edits`, async () => {
      requireBuiltCli();
      const dir = makeRepo('basic');
      git(dir, 'config', 'core.autocrlf', 'true');
      rmSync(path.join(dir, 'README.md'));
      git(dir, 'checkout', '--', 'README.md');
      expect(readFileSync(path.join(dir, 'README.md'), 'latin1')).toContain('\r\n');
      const patch = path.join(dir, '..', 'r.patch');
      writeFileSync(patch, PATCH_FILES);
      const killed = await runCli(['apply', '--repo', dir, patch], { env: { PATCHTX_TEST_CRASH_AT: point } });
      expect(killed.signal).toBe('SIGKILL');
      const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
      expect(report).toMatchObject({ outcome: 'finished', warnings: [] });
      expect(readFileSync(path.join(dir, 'notes.txt'), 'latin1')).toBe('new\r\n');
      expect(readFileSync(path.join(dir, 'README.md'), 'latin1')).toContain('# Sample\r\nmore\r\n');
      expect(git(dir, 'status', '--porcelain')).toBe('');
      cleanupBuiltCli();
    });
  }
});

describe('undo and redo in a repository with line-ending conversion', () => {
  it('restores the files as checkout writes them, and finds the converted files clean', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, '.gitattributes'), '*.md text eol=crlf\n');
    git(dir, 'add', '.gitattributes');
    git(dir, 'commit', '-qm', 'attributes');
    rmSync(path.join(dir, 'README.md'));
    git(dir, 'checkout', '--', 'README.md');
    const original = readFileSync(path.join(dir, 'README.md'), 'latin1');
    expect(original).toContain('\r\n');
    await applyTransaction({ repoDir: dir, env: gitEnv, patchText: '*** Begin Patch\n*** Update File: README.md\n@@\n # Sample\n+more\n*** End Patch\n' });
    const applied = readFileSync(path.join(dir, 'README.md'), 'latin1');
    const run = async (...args: string[]): Promise<number> => main([...args, '--repo', dir], { out: () => {}, err: () => {} });
    expect(await run('undo')).toBe(0);
    expect(readFileSync(path.join(dir, 'README.md'), 'latin1')).toBe(original);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(await run('redo')).toBe(0);
    expect(readFileSync(path.join(dir, 'README.md'), 'latin1')).toBe(applied);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('recovery finishes an undo killed before it wrote the files, which still hold their checkout form', async () => {
    requireBuiltCli();
    const dir = makeRepo('basic');
    git(dir, 'config', 'core.autocrlf', 'true');
    rmSync(path.join(dir, 'README.md'));
    git(dir, 'checkout', '--', 'README.md');
    const original = readFileSync(path.join(dir, 'README.md'), 'latin1');
    await applyTransaction({ repoDir: dir, env: gitEnv, patchText: '*** Begin Patch\n*** Update File: README.md\n@@\n # Sample\n+more\n*** End Patch\n' });
    const killed = await runCli(['undo', '--repo', dir], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const report = JSON.parse(cliOk(['recover', '--repo', dir, '--json'])).recovered;
    expect(report).toMatchObject({ outcome: 'finished', warnings: [] });
    expect(readFileSync(path.join(dir, 'README.md'), 'latin1')).toBe(original);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    cleanupBuiltCli();
  });
});
