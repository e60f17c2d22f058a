import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attributesOf, loadAttributeFiles } from '../../../src/git/repo/attributes.js';
import { loadConfig } from '../../../src/git/repo/config.js';
import { openRepository } from '../../../src/git/repo/discover.js';
import { conversionsForPaths, checkRepositorySupported } from '../../../src/git/repo/features.js';
import { ObjectStore } from '../../../src/git/objects/store.js';
import { lookupPaths } from '../../../src/git/objects/tree-edit.js';
import { wildmatch } from '../../../src/git/repo/wildmatch.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../../helpers/repos.js';
import { FIXTURE_KINDS } from '../util.js';
import { execFileSync } from 'node:child_process';

afterAll(cleanupRepos);

const ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

async function check(dir: string, env: NodeJS.ProcessEnv = ENV): Promise<void> {
  const repo = await openRepository({ cwd: dir, env: {} });
  await checkRepositorySupported(repo, await loadConfig(repo, env), env);
}

describe('checkRepositorySupported', () => {
  it.each(FIXTURE_KINDS)('accepts the $kind fixture', async ({ kind, pick }) => {
    await expect(check(pick(makeRepo(kind)))).resolves.toBeUndefined();
  });

  it('refuses SHA-256 repositories', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'patchtx-sha256-')), 'repo');
    execFileSync('git', ['init', '-q', '--object-format=sha256', dir], { env: gitEnv });
    expect(git(dir, 'config', 'extensions.objectformat').trim()).toBe('sha256');
    await expect(check(dir)).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('sha256'),
      data: { feature: 'objectformat' },
    });
  });

  it('refuses newer repository formats and unknown extensions, accepts known ones', async () => {
    const dir = makeRepo('basic');
    git(dir, 'config', 'core.repositoryformatversion', '1');
    git(dir, 'config', 'extensions.worktreeConfig', 'true');
    git(dir, 'config', 'extensions.partialClone', 'origin');
    await expect(check(dir)).resolves.toBeUndefined();
    git(dir, 'config', 'extensions.frobnicate', 'yes');
    await expect(check(dir)).rejects.toMatchObject({ kind: 'unsupported_repository', data: { feature: 'extensions.frobnicate' } });
    // git itself refuses to run in such a repository, so edit the file directly
    git(dir, 'config', '-f', '.git/config', '--unset', 'extensions.frobnicate');
    git(dir, 'config', '-f', '.git/config', 'core.repositoryformatversion', '2');
    await expect(check(dir)).rejects.toMatchObject({ kind: 'unsupported_repository', data: { feature: 'repositoryformatversion' } });
  });

  it('refuses alternates', async () => {
    const source = makeRepo('packed');
    const dir = path.join(path.dirname(source), 'shared');
    execFileSync('git', ['clone', '-q', '--shared', source, dir], { env: gitEnv });
    expect(readFileSync(path.join(dir, '.git/objects/info/alternates'), 'utf8')).toContain(source);
    await expect(check(dir)).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('alternate'),
      data: { feature: 'alternates' },
    });
    await expect(check(source, { ...ENV, GIT_ALTERNATE_OBJECT_DIRECTORIES: '/x' })).rejects.toMatchObject({ data: { feature: 'alternates' } });
  });

  it('refuses index version 4', async () => {
    const dir = makeRepo('basic');
    git(dir, 'update-index', '--index-version', '4');
    await expect(check(dir)).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('index version 4'),
      data: { feature: 'index-v4' },
    });
    git(dir, 'update-index', '--index-version', '3');
    await expect(check(dir)).resolves.toBeUndefined();
  });

  it('refuses a split index, with or without core.splitIndex, and not after it is undone', async () => {
    const dir = makeRepo('basic');
    git(dir, 'update-index', '--split-index');
    await expect(check(dir)).rejects.toMatchObject({ kind: 'unsupported_repository', data: { feature: 'split-index' } });
    git(dir, 'update-index', '--no-split-index');
    await expect(check(dir)).resolves.toBeUndefined(); // the sharedindex.* file lingers; the index no longer links it
    git(dir, 'config', 'core.splitIndex', 'true');
    await expect(check(dir)).rejects.toMatchObject({ kind: 'unsupported_repository', message: expect.stringContaining('split index') });
  });

  it('refuses sparse checkouts', async () => {
    const dir = makeRepo('basic');
    git(dir, 'sparse-checkout', 'init');
    await expect(check(dir)).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('sparse'),
      data: { feature: 'sparse-checkout' },
    });
  });
});

describe('wildmatch', () => {
  it.each([
    ['*.bin', 'a.bin', true],
    ['*.bin', 'd/a.bin', false],
    ['d/**', 'd/x/y', true],
    ['d/**', 'd', false],
    ['**/x', 'x', true],
    ['**/x', 'a/b/x', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a**b', 'a/b', false],
    ['a?c', 'a/c', false],
    ['[a-c]x', 'bx', true],
    ['[!a-c]x', 'dx', true],
    ['[!a-c]x', '/x', false],
    ['[[:digit:]]*', '9lives', true],
    ['\\*', '*', true],
    ['\\*', 'x', false],
  ] as const)('%s vs %s', (pattern, text, expected) => {
    expect(wildmatch(pattern, text)).toBe(expected);
  });
});

describe('gitattributes filter detection', () => {
  const ROOT = [
    '# root attributes',
    '[attr]lfsish filter=macro -text',
    '*.bin filter=lfs diff=lfs merge=lfs -text',
    'docs/** filter=docs',
    '/top.txt filter=top',
    'nested/*.dat filter=dat',
    'a/**/z.txt filter=deep',
    '!neg.txt filter=neg',
    '*.big lfsish',
    '*.unset filter=x',
    '*.unset -filter',
    'dir-only/ filter=dir',
    '"quoted name.txt" filter=quoted',
    '',
  ].join('\n');
  const SRC = ['*.bin -filter', 'special.js filter=special', 'deep/** filter=srcdeep', ''].join('\n');
  const INFO = ['*.info filter=info', 'src/override.bin filter=fromInfo', ''].join('\n');
  const PATHS = [
    'file.bin',
    'x/y/file.bin',
    'src/file.bin',
    'src/override.bin',
    'docs/a.md',
    'docs/deep/b.md',
    'top.txt',
    'sub/top.txt',
    'nested/x.dat',
    'deeper/nested/x.dat',
    'a/z.txt',
    'a/b/c/z.txt',
    'neg.txt',
    'thing.big',
    'file.unset',
    'dir-only',
    'dir-only/x',
    'quoted name.txt',
    'src/special.js',
    'src/other.js',
    'src/deep/x.js',
    'x.info',
    'plain.txt',
  ];

  function setup() {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, '.gitattributes'), ROOT);
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'src/.gitattributes'), SRC);
    writeFileSync(path.join(dir, '.git/info/attributes'), INFO);
    git(dir, 'add', '.gitattributes', 'src/.gitattributes');
    git(dir, 'commit', '-q', '-m', 'attributes');
    return dir;
  }

  it('agrees with git check-attr, reading .gitattributes from the base tree', async () => {
    const dir = setup();
    const repo = await openRepository({ cwd: dir, env: {} });
    const store = new ObjectStore(repo);
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
    const readTextAt = async (p: string) => {
      const info = (await lookupPaths(store, tree, [p])).get(p)!;
      return info.type === 'blob' ? Buffer.from(await store.readBlob(info.oid)).toString('utf8') : null;
    };
    const files = await loadAttributeFiles({ repo, readTextAt, env: ENV }, PATHS);
    const gitOut = execFileSync('git', ['check-attr', '--stdin', '-z', 'filter'], { cwd: dir, env: gitEnv, input: PATHS.join('\0') + '\0', encoding: 'utf8' })
      .split('\0')
      .filter((x) => x !== '');
    const expected = new Map<string, string>();
    for (let i = 0; i < gitOut.length; i += 3) expected.set(gitOut[i]!, gitOut[i + 2]!);
    for (const p of PATHS) {
      const ours = attributesOf(p, files.get(p)!, ['filter']).get('filter');
      const shown = ours === undefined ? 'unspecified' : ours.value === true ? 'set' : ours.value === false ? 'unset' : ours.value;
      expect(shown, p).toBe(expected.get(p));
    }
  });

  it('refuses touched paths that have a filter, naming path, driver and source', async () => {
    const dir = setup();
    const repo = await openRepository({ cwd: dir, env: {} });
    const readTextAt = async (p: string) => {
      try {
        return readFileSync(path.join(dir, p), 'utf8');
      } catch {
        return null;
      }
    };
    await expect(conversionsForPaths(repo, ['plain.txt', 'src/other.js', 'file.unset', 'src/file.bin'], readTextAt, { env: ENV })).resolves.toBeInstanceOf(Map);
    await expect(conversionsForPaths(repo, ['plain.txt', 'assets/model.bin'], readTextAt, { env: ENV })).rejects.toMatchObject({
      kind: 'unsupported_repository',
      message: expect.stringContaining('assets/model.bin has the attribute filter=lfs (.gitattributes:3)'),
      data: { feature: 'filter', path: 'assets/model.bin', filter: 'lfs', source: '.gitattributes:3' },
    });
    await expect(conversionsForPaths(repo, ['thing.big'], readTextAt, { env: ENV })).rejects.toMatchObject({ data: { filter: 'macro' } });
    await expect(conversionsForPaths(repo, ['src/override.bin'], readTextAt, { env: ENV })).rejects.toMatchObject({
      data: { filter: 'fromInfo', source: 'info/attributes:2' },
    });
  });

  it('gives text files the line endings of core.eol, where git used to be refused', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, '.gitattributes'), '*.txt text\n*.md text=auto\n*.bin -text\n*.js eol=lf\n');
    writeFileSync(path.join(dir, 'a.txt'), 'x\n');
    git(dir, 'add', '.gitattributes', 'a.txt');
    git(dir, 'commit', '-q', '-m', 'text files');
    git(dir, 'config', 'core.eol', 'crlf');
    // what git itself does with such a file: its checkout writes CRLF
    rmSync(path.join(dir, 'a.txt'));
    git(dir, 'checkout', '--', 'a.txt');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('x\r\n');

    const repo = await openRepository({ cwd: dir, env: {} });
    const readTextAt = async (p: string) => (p === '.gitattributes' ? readFileSync(path.join(dir, p), 'utf8') : null);
    const config = await loadConfig(repo, { HOME: dir, GIT_CONFIG_NOSYSTEM: '1' });
    const found = await conversionsForPaths(repo, ['a.txt', 'docs/b.md', 'c.bin', 'd.js', 'e.c'], readTextAt, { env: ENV, config });
    expect(found.get('a.txt')).toMatchObject({ crlf: 'text', eol: 'crlf' });
    expect(found.get('docs/b.md')).toMatchObject({ crlf: 'auto', eol: 'crlf' });
    expect(found.get('c.bin')).toMatchObject({ crlf: 'binary' });
    expect(found.get('d.js')).toMatchObject({ crlf: 'text', eol: 'lf' });
    expect(found.get('e.c')).toMatchObject({ crlf: 'binary' }); // no attribute, core.autocrlf unset
  });

  it('reads core.attributesFile (or the XDG default) as the lowest layer', async () => {
    const dir = makeRepo('basic');
    const home = mkdtempSync(path.join(tmpdir(), 'patchtx-home-'));
    mkdirSync(path.join(home, '.config/git'), { recursive: true });
    writeFileSync(path.join(home, '.config/git/attributes'), '*.psd filter=lfs\n');
    const repo = await openRepository({ cwd: dir, env: {} });
    const none = async () => null;
    await expect(conversionsForPaths(repo, ['art/x.psd'], none, { env: { HOME: home } })).rejects.toMatchObject({ data: { filter: 'lfs' } });
    const custom = path.join(home, 'custom-attributes');
    writeFileSync(custom, '*.psd -filter\n*.tga filter=custom\n');
    const config = await loadConfig(repo, {
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.attributesFile',
      GIT_CONFIG_VALUE_0: custom,
    });
    await expect(conversionsForPaths(repo, ['art/x.psd'], none, { env: { HOME: home }, config })).resolves.toBeInstanceOf(Map);
    await expect(conversionsForPaths(repo, ['x.tga'], none, { env: { HOME: home }, config })).rejects.toMatchObject({ data: { filter: 'custom' } });
  });
});
