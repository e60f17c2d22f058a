// The one ref-name validator (src/git/refs/ref-name.ts) against git itself: every name of the
// table is given to `git check-ref-format`, and patchtx must accept exactly what git accepts; a
// branch a caller names must be accepted exactly when `git check-ref-format --branch` accepts it.
import { afterAll, describe, expect, it } from 'vitest';
import { isPatchtxError } from '../../../src/errors.js';
import { isValidRefName, normaliseRefName } from '../../../src/git/refs/ref-name.js';
import { cleanupRepos, gitTry, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

/** Full ref names: git's rules apply as they are. */
const FULL = [
  'refs/heads/main',
  'refs/heads/feature/x',
  'refs/tags/v1.0',
  'refs/notes/patchtx',
  'refs/heads/ünïcode',
  'refs/heads/-dash',
  'refs/heads/a@b',
  'refs/heads/@',
  'refs/heads/a{b}',
  'refs/heads/x.lockx',
  'refs/heads/HEAD',
  'refs',
  'refs/',
  '/refs/heads/a',
  'refs/heads/.hidden',
  'refs/heads/a/.b',
  'refs/heads/.',
  'refs/heads/..',
  'refs/heads/a..b',
  'refs/heads/a.lock',
  'refs/heads/a.lock/b',
  'refs/heads/.lock',
  'refs/heads/a.',
  'refs/heads/a/',
  'refs/heads//a',
  'refs/heads/a b',
  'refs/heads/a\tb',
  'refs/heads/a\x01b',
  'refs/heads/a\x7fb',
  'refs/heads/a~1',
  'refs/heads/a^',
  'refs/heads/a:b',
  'refs/heads/a?',
  'refs/heads/a*',
  'refs/heads/a[b',
  'refs/heads/a\\b',
  'refs/heads/a@{1}',
  '@',
];

/** HEAD and the all-caps pseudo-refs: one level, which git allows with --allow-onelevel. */
const ONE_LEVEL = ['HEAD', 'ORIG_HEAD', 'FETCH_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD'];

/** Names outside refs/ that git's format allows but no ref patchtx reads or writes has. */
const OUTSIDE = ['heads/main', 'foo/bar', 'main', 'lower_head'];

/** Branch names as a caller gives them. */
const BRANCHES = [
  'main',
  'feature/x',
  'ünïcode',
  'a@b',
  'v1.0',
  'x.lockx',
  'HEAD',
  '-x',
  '.hidden',
  'a..b',
  'a.lock',
  'a.',
  'x/',
  'a//b',
  'a b',
  'a~1',
  'a:b',
  'a@{1}',
  'a\\b',
];

function gitAccepts(...args: string[]): boolean {
  const { status, stderr } = gitTry(cwd(), 'check-ref-format', ...args);
  if (status !== 0 && status !== 1 && status !== 128) throw new Error(`git check-ref-format ${args.join(' ')}: ${stderr}`);
  return status === 0;
}

let dir: string | undefined;
/** a repository to run git in, so that --branch reads no repository around the test */
const cwd = (): string => (dir ??= makeRepo('empty'));

describe('isValidRefName', () => {
  it.each(FULL)('agrees with git check-ref-format on %j', (name) => {
    expect(isValidRefName(name)).toBe(gitAccepts(name));
  });

  it.each(ONE_LEVEL)('accepts %s, as git check-ref-format --allow-onelevel does', (name) => {
    expect(gitAccepts('--allow-onelevel', name)).toBe(true);
    expect(isValidRefName(name)).toBe(true);
  });

  it.each(OUTSIDE)('refuses %j, which is not under refs/', (name) => {
    expect(gitAccepts('--allow-onelevel', name)).toBe(true);
    expect(isValidRefName(name)).toBe(false);
  });

  it('the table holds names git accepts and names it refuses', () => {
    const verdicts = new Set(FULL.map((name) => gitAccepts(name)));
    expect(verdicts).toEqual(new Set([true, false]));
  });
});

describe('normaliseRefName', () => {
  it.each(BRANCHES)('takes branch %j exactly when git check-ref-format --branch does', (name) => {
    const accepted = gitAccepts('--branch', name);
    let full: string | null = null;
    try {
      full = normaliseRefName(name);
    } catch (e) {
      if (!isPatchtxError(e) || e.kind !== 'usage') throw e;
      expect(e.message).toBe(`'${name}' is not a valid ref name`);
    }
    expect(full !== null).toBe(accepted);
    if (full !== null) expect(full).toBe(`refs/heads/${name}`);
  });

  it.each(FULL.filter((name) => name.startsWith('refs/')))('takes the full name %j exactly when git check-ref-format does', (name) => {
    // refs/heads/HEAD is a valid ref name, but git refuses the branch HEAD (see BRANCHES)
    const accepted = gitAccepts(name) && (name !== 'refs/heads/HEAD' || gitAccepts('--branch', 'HEAD'));
    let ok = true;
    try {
      expect(normaliseRefName(name)).toBe(name);
    } catch (e) {
      if (!isPatchtxError(e)) throw e;
      ok = false;
    }
    expect(ok).toBe(accepted);
  });
});
