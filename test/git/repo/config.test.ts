import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitConfig, loadConfig, parseConfig, resolveIdentity } from '../../../src/git/repo/config.js';
import { openRepository } from '../../../src/git/repo/discover.js';
import { parseGitDate } from '../../../src/git/repo/git-date.js';
import { formatIdentity } from '../../../src/git/objects/model/identity.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

const scratch = (): string => mkdtempSync(path.join(tmpdir(), 'patchtx-config-'));

/** `git config --list` over one file, as key → values (null = no `=`). */
function gitList(file: string): [string, string | null][] {
  const out = execFileSync('git', ['config', '-f', file, '--list', '--null', '--no-includes'], { env: gitEnv, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((x) => x !== '')
    .map((item) => {
      const nl = item.indexOf('\n');
      return nl < 0 ? [item, null] : [item.slice(0, nl), item.slice(nl + 1)];
    });
}

const TRICKY = [
  '# comment',
  '; another comment',
  '[core]',
  '\tbare = false',
  '\tFileMode = TRUE ; trailing comment',
  '\tignoreCase',
  '[Section "Sub Section"]',
  '\tkey = value with  two  spaces   ',
  '\tquoted = "  leading and trailing  "  ',
  '\tescapes = "tab\\there" newline\\nend \\"q\\" back\\\\slash',
  '\tcontinued = first \\',
  'second',
  '\thash = "not # a comment" # a comment',
  '\tempty =',
  '\tmulti = one',
  '\tmulti = two',
  '[section.OldStyle]',
  '\tx = 1',
  '[sub "with \\"quote\\" and \\\\ backslash"]',
  '\ty = 2',
  '[alias] st = status -sb',
  '[user]',
  '\tname = "Ada Lovelace"',
  '\temail = ada@example.com',
  '',
].join('\n');

describe('config file parsing', () => {
  it('reads the same entries as git config --list', () => {
    const dir = scratch();
    const file = path.join(dir, 'config');
    writeFileSync(file, TRICKY);
    const ours = parseConfig(TRICKY, file).map((e): [string, string | null] => [
      e.subsection === null ? `${e.section}.${e.name}` : `${e.section}.${e.subsection}.${e.name}`,
      e.value,
    ]);
    expect(ours).toEqual(gitList(file));
  });

  it('answers get, getAll and getBool with git semantics', () => {
    const c = GitConfig.fromText(TRICKY);
    expect(c.get('core.bare')).toBe('false');
    expect(c.getBool('core.bare')).toBe(false);
    expect(c.getBool('CORE.FILEMODE')).toBe(true);
    expect(c.getBool('core.ignorecase')).toBe(true); // no `=`
    expect(c.get('SECTION.Sub Section.KEY')).toBe('value with  two  spaces'); // section and key ignore case
    expect(c.get('section.sub section.key')).toBeUndefined(); // the subsection does not
    expect(c.get('section.Sub Section.quoted')).toBe('  leading and trailing  ');
    expect(c.get('section.Sub Section.escapes')).toBe('tab\there newline\nend "q" back\\slash');
    expect(c.get('section.Sub Section.continued')).toBe('first second');
    expect(c.get('section.Sub Section.hash')).toBe('not # a comment');
    expect(c.get('section.Sub Section.empty')).toBe('');
    expect(c.get('alias.st')).toBe('status -sb');
    expect(GitConfig.fromText('[a "B"]\nk = v\n').get('A.B.K')).toBe('v');
    expect(c.getAll('section.Sub Section.multi')).toEqual(['one', 'two']);
    expect(c.get('section.Sub Section.multi')).toBe('two');
    expect(c.get('section.oldstyle.x')).toBe('1');
    expect(c.get('user.name')).toBe('Ada Lovelace');
    expect(c.get('nope.nothing')).toBeUndefined();
    expect(() => GitConfig.fromText('[x]\nk = maybe\n').getBool('x.k')).toThrow(/bad boolean/);
  });

  it('rejects malformed files with the line number', () => {
    expect(() => parseConfig('[core\nbare = true\n', 'f')).toThrow(/bad config line 1 in file f/);
    expect(() => parseConfig('[core]\nx = "unterminated\n', 'f')).toThrow(/line 2/);
    expect(() => parseConfig('key = outside a section\n', 'f')).toThrow(/line 1/);
    expect(() => parseConfig('[core]\nx = bad \\q escape\n', 'f')).toThrow(/line 2/);
  });
});

describe('loadConfig', () => {
  it('layers system < global < repository < worktree < environment as git does', async () => {
    const dir = makeRepo('worktree');
    const wt = `${dir}-wt`;
    const home = scratch();
    const system = path.join(home, 'system.cfg');
    writeFileSync(system, '[t]\n\ta = system\n\tb = system\n\tc = system\n\td = system\n\te = system\n\tonlysystem = yes\n');
    mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'git', 'config'), '[t]\n\tb = xdg\n\tc = xdg\n');
    writeFileSync(path.join(home, '.gitconfig'), '[t]\n\tc = home\n\td = home\n');
    git(dir, 'config', 't.d', 'repo');
    git(dir, 'config', 't.e', 'repo');
    git(dir, 'config', 'extensions.worktreeConfig', 'true');
    git(wt, 'config', '--worktree', 't.e', 'worktree');
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      GIT_CONFIG_SYSTEM: system,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 't.f',
      GIT_CONFIG_VALUE_0: 'env',
    };
    const repo = await openRepository({ cwd: wt, env: {} });
    const config = await loadConfig(repo, env);
    const gitGet = (key: string) => execFileSync('git', ['config', '--get', key], { cwd: wt, env: env as NodeJS.ProcessEnv, encoding: 'utf8' }).trim();
    for (const key of ['t.a', 't.b', 't.c', 't.d', 't.e', 't.f', 't.onlysystem']) expect(config.get(key), key).toBe(gitGet(key));
    expect(config.get('t.e')).toBe('worktree');
    expect(config.get('t.f')).toBe('env');

    // the main checkout does not see the linked worktree's config.worktree
    const mainConfig = await loadConfig(await openRepository({ cwd: dir, env: {} }), env);
    expect(mainConfig.get('t.e')).toBe('repo');

    // GIT_CONFIG_GLOBAL replaces both global files; GIT_CONFIG_NOSYSTEM drops the system file
    const other = path.join(home, 'other.cfg');
    writeFileSync(other, '[t]\n\tc = other\n');
    const narrowed = await loadConfig(repo, { HOME: home, GIT_CONFIG_SYSTEM: system, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: other });
    expect(narrowed.get('t.b')).toBeUndefined();
    expect(narrowed.get('t.c')).toBe('other');
    expect(narrowed.get('t.onlysystem')).toBeUndefined();
  });

  it('follows include.path and includeIf gitdir / onbranch', async () => {
    const dir = makeRepo('basic');
    const home = scratch();
    writeFileSync(path.join(home, 'inc.cfg'), '[t]\n\temail = included@example.com\n');
    writeFileSync(path.join(home, 'work.cfg'), '[t]\n\tname = Work Name\n');
    writeFileSync(path.join(home, 'branch.cfg'), '[t]\n\tbranch = on-main\n');
    writeFileSync(path.join(home, 'never.cfg'), '[t]\n\tnever = yes\n');
    writeFileSync(
      path.join(home, '.gitconfig'),
      [
        '[include]\n\tpath = inc.cfg',
        `[includeIf "gitdir:${path.dirname(dir)}/"]\n\tpath = ~/work.cfg`,
        '[includeIf "onbranch:main"]\n\tpath = branch.cfg',
        '[includeIf "gitdir:/somewhere/else/"]\n\tpath = never.cfg',
        '',
      ].join('\n'),
    );
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const config = await loadConfig(await openRepository({ cwd: dir, env: {} }), env);
    expect(config.get('t.email')).toBe('included@example.com');
    expect(config.get('t.name')).toBe('Work Name');
    expect(config.get('t.branch')).toBe('on-main');
    expect(config.get('t.never')).toBeUndefined();
    const gitGet = (key: string) =>
      execFileSync('git', ['config', '--get', key], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' }).trim();
    expect(gitGet('t.email')).toBe('included@example.com');
    expect(gitGet('t.name')).toBe('Work Name');
    expect(gitGet('t.branch')).toBe('on-main');
  });
});

describe('resolveIdentity', () => {
  const config = GitConfig.fromText('[user]\n\tname = Config User\n\temail = config@example.com\n[committer]\n\tname = Config Committer\n');
  const now = new Date(1_700_000_000_000);

  it('takes GIT_* variables over <role>.* over user.*', () => {
    expect(resolveIdentity(config, 'author', {}, undefined, now)).toMatchObject({ name: 'Config User', email: 'config@example.com', timestamp: 1_700_000_000 });
    expect(resolveIdentity(config, 'committer', {}, undefined, now)).toMatchObject({ name: 'Config Committer', email: 'config@example.com' });
    const env = { GIT_AUTHOR_NAME: 'Env Author', GIT_AUTHOR_EMAIL: 'env@example.com', GIT_COMMITTER_NAME: '' };
    expect(resolveIdentity(config, 'author', env, undefined, now)).toMatchObject({ name: 'Env Author', email: 'env@example.com' });
    expect(resolveIdentity(config, 'committer', env, undefined, now)).toMatchObject({ name: 'Config Committer' });
    expect(resolveIdentity(config, 'author', env, 'Over Ride <over@example.com>', now)).toMatchObject({ name: 'Over Ride', email: 'over@example.com' });
    expect(resolveIdentity(new GitConfig(), 'author', { GIT_AUTHOR_NAME: 'N', EMAIL: 'fallback@example.com' }, undefined, now).email).toBe(
      'fallback@example.com',
    );
  });

  it('cleans names as git does', () => {
    const id = resolveIdentity(new GitConfig(), 'author', { GIT_AUTHOR_NAME: '  "Odd <Name>",. ', GIT_AUTHOR_EMAIL: '<odd@example.com>' }, undefined, now);
    expect(id).toMatchObject({ name: 'Odd Name', email: 'odd@example.com' });
    const dir = makeRepo('empty');
    const gitIdent = execFileSync('git', ['var', 'GIT_AUTHOR_IDENT'], {
      cwd: dir,
      env: { ...gitEnv, GIT_AUTHOR_NAME: '  "Odd <Name>",. ', GIT_AUTHOR_EMAIL: '<odd@example.com>', GIT_AUTHOR_DATE: '@1700000000 +0000' },
      encoding: 'utf8',
    }).trim();
    expect(formatIdentity({ ...id, timestamp: 1700000000, timezoneOffset: 0 })).toBe(gitIdent);
  });

  it('fails with missing_identity and says how to fix it', () => {
    const attempt = () => resolveIdentity(new GitConfig(), 'author', {}, undefined, now);
    expect(attempt).toThrow(/git config user.name/);
    expect(attempt).toThrow(/or set GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL$/);
    // the git layer names no command-line option (apply_patch has none for it; see src/cli)
    expect(attempt).not.toThrow(/--author/);
    try {
      attempt();
    } catch (e) {
      expect(e).toMatchObject({ kind: 'missing_identity', data: { role: 'author', missing: ['name', 'email'] } });
    }
    expect(() => resolveIdentity(GitConfig.fromText('[user]\nname = X\n'), 'committer', {}, undefined, now)).toThrow(
      expect.objectContaining({ kind: 'missing_identity', data: { role: 'committer', missing: ['email'] } }),
    );
    expect(() => resolveIdentity(config, 'author', {}, 'no email here', now)).toThrow(expect.objectContaining({ kind: 'usage' }));
  });

  const dates = [
    '@1700000000 +0100',
    '1700000000 -0530',
    '@1700000000 -0000',
    '@1700000000',
    '1700000000',
    '2026-01-02T03:04:05Z',
    '2026-01-02T03:04:05+01:30',
    '2026-01-02 03:04:05 -0700',
    '2026-01-02T03:04:05.250+0200',
    '2026-01-02T03:04:05',
    '2026-01-02 03:04',
    'Fri, 02 Jan 2026 03:04:05 +0100',
    '2 Jan 2026 03:04:05 -0800',
  ];
  it.each(dates)('reads GIT_AUTHOR_DATE=%j as git does', (date) => {
    const dir = makeRepo('empty');
    const env = { GIT_AUTHOR_NAME: 'D', GIT_AUTHOR_EMAIL: 'd@x', GIT_AUTHOR_DATE: date };
    const expected = execFileSync('git', ['var', 'GIT_AUTHOR_IDENT'], { cwd: dir, env: { ...gitEnv, ...env }, encoding: 'utf8' }).trim();
    expect(formatIdentity(resolveIdentity(new GitConfig(), 'author', env))).toBe(expected);
  });

  it('refuses dates it cannot read', () => {
    expect(parseGitDate('yesterday')).toBeNull();
    expect(parseGitDate('2026-01-02')).toBeNull();
    expect(() => resolveIdentity(config, 'committer', { GIT_COMMITTER_DATE: 'next tuesday' })).toThrow(
      expect.objectContaining({ kind: 'usage', data: { variable: 'GIT_COMMITTER_DATE', value: 'next tuesday' } }),
    );
  });
});

describe('configuration from the command line (git -c)', () => {
  /** GIT_CONFIG_PARAMETERS as git itself passes it to an alias run with `git -c …`. */
  function parametersFromGit(dir: string, settings: string[]): string {
    git(dir, 'config', 'alias.showenv', '!env');
    const out = execFileSync('git', [...settings.flatMap((s) => ['-c', s]), 'showenv'], { cwd: dir, env: gitEnv, encoding: 'utf8' });
    const line = out.split('\n').find((l) => l.startsWith('GIT_CONFIG_PARAMETERS='));
    expect(line).toBeDefined();
    return line!.slice('GIT_CONFIG_PARAMETERS='.length);
  }

  it('reads GIT_CONFIG_PARAMETERS as git writes and reads it', async () => {
    const dir = makeRepo('basic');
    git(dir, 'config', 'core.autocrlf', 'false');
    const settings = ['core.autocrlf=true', 'x.y=with  space', "q.r=it's! here", 'Sec.Sub.Key=V', 'flag.only', 'a.b=', 'a.eq=x=y'];
    const parameters = parametersFromGit(dir, settings);
    const env = { HOME: scratch(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_PARAMETERS: parameters };
    const config = await loadConfig(await openRepository({ cwd: dir, env: {} }), env);
    const gitGet = (key: string) =>
      execFileSync('git', ['config', '--get', key], { cwd: dir, env: { ...gitEnv, GIT_CONFIG_PARAMETERS: parameters }, encoding: 'utf8' }).replace(/\n$/, '');
    // git prints a bare boolean as an empty value
    for (const key of ['core.autocrlf', 'x.y', 'q.r', 'sec.Sub.key', 'flag.only', 'a.b', 'a.eq']) expect(config.getRaw(key) ?? '', key).toBe(gitGet(key));
    expect(config.get('core.autocrlf')).toBe('true'); // above the repository's own config
    expect(config.get('q.r')).toBe("it's! here");
    expect(config.getRaw('flag.only')).toBeNull();
    expect(config.get('Sec.sub.key')).toBeUndefined(); // the subsection keeps its case
  });

  it('reads the older quoting, takes it over GIT_CONFIG_COUNT, and refuses a bogus value', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ cwd: dir, env: {} });
    const base = { HOME: scratch(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 't.v', GIT_CONFIG_VALUE_0: 'count' };
    const old = "'t.v=params' 'core.autocrlf=input' 't.flag'";
    const config = await loadConfig(repo, { ...base, GIT_CONFIG_PARAMETERS: old });
    const gitGet = (key: string) =>
      execFileSync('git', ['config', '--get', key], { cwd: dir, env: { ...gitEnv, ...base, GIT_CONFIG_PARAMETERS: old }, encoding: 'utf8' }).trim();
    for (const key of ['t.v', 'core.autocrlf', 't.flag']) expect(config.getRaw(key) ?? '', key).toBe(gitGet(key));
    expect(config.get('t.v')).toBe('params');
    for (const bogus of ["'unterminated", "'a.b'x", 'a.b=c', "'a.b'='c'd"]) {
      await expect(loadConfig(repo, { ...base, GIT_CONFIG_PARAMETERS: bogus })).rejects.toMatchObject({
        kind: 'usage',
        message: expect.stringContaining('GIT_CONFIG_PARAMETERS'),
      });
      expect(gitConfigStatus(dir, bogus)).not.toBe(0);
    }
    await expect(loadConfig(repo, { ...base, GIT_CONFIG_COUNT: '2' })).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('GIT_CONFIG_KEY_1'),
    });
  });
});

function gitConfigStatus(dir: string, parameters: string): number | null {
  try {
    execFileSync('git', ['config', '--get', 'a.b'], { cwd: dir, env: { ...gitEnv, GIT_CONFIG_PARAMETERS: parameters }, stdio: 'ignore' });
    return 0;
  } catch (e) {
    return (e as { status: number | null }).status;
  }
}
