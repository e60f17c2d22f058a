// Line-ending conversion in whole transactions, checked against git itself. For each attribute
// line × core.autocrlf/core.eol × how the base was committed, one patch updates, adds, deletes and
// re-adds, and moves files holding LF, CRLF, mixed and binary-looking content. A copy of the
// repository made before the patch does the same with git (the patch's result written into the
// working tree, then git add / rm / mv); the commit patchtx makes must have git's tree, its
// working tree what git's checkout writes (`git ls-files --eol` alike), and `git status` and
// `git diff` must be empty. The same patch with a branch as the target in a bare clone (no working
// tree) must commit the same tree.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/patchtx.js';
import { applyTransaction, type FileContents } from '../../../src/tx/apply.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../../helpers/repos.js';

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
        const settings = Object.entries(config).map(([k, v]) => `${k}=${v}`).join(' ') || 'no settings';
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
            if (c.before !== null && c.from === undefined) expect(Buffer.from(c.before).toString('latin1'), c.path).toBe(readFileSync(path.join(twin, c.path), 'latin1'));
          }
          expect(git(dir, 'status', '--porcelain')).toBe('');
          expect(git(dir, 'diff', 'HEAD')).toBe('');
          git(dir, 'fsck', '--strict');

          applyWithGit(twin, contents);
          expect(git(dir, 'rev-parse', 'HEAD^{tree}')).toBe(git(twin, 'write-tree'));
          for (const c of contents) {
            if (c.after !== null) expect(readFileSync(path.join(dir, c.path), 'latin1'), `${c.path} in the working tree`).toBe(readFileSync(path.join(twin, c.path), 'latin1'));
          }
          expect(eolListing(dir)).toBe(eolListing(twin));

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
