// The --json objects as a caller reads them: what a check would commit, the diff, the commit's
// message, author, committer and tree, and nothing but JSON on a usage error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo, rev } from '../helpers/repos.js';
import { BASIC_PATCH, cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** An identity as `git log --format=%an|%ae|%at|%ad --date=format:%z` gives it, in the JSON's shape. */
function identityOf(dir: string, who: 'a' | 'c'): Record<string, unknown> {
  const [name, email, timestamp, timezone] = git(dir, 'log', '-1', `--format=%${who}n|%${who}e|%${who}t|%${who}d`, '--date=format:%z').trim().split('|');
  return { name, email, timestamp: Number(timestamp), timezone };
}

describe('--json', () => {
  it('apply: message, author, committer and tree of the commit, as git reads them', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson('apply', '--repo', dir, '-m', 'Make it so', '--author', 'Ann Author <ann@example.invalid>', patchFile(BASIC_PATCH));
    expect(r.code, r.out).toBe(0);
    expect(r.json.commit).toBe(rev(dir));
    expect(r.json.tree).toBe(rev(dir, 'HEAD^{tree}'));
    const raw = git(dir, 'cat-file', 'commit', 'HEAD');
    expect(r.json.message).toBe(raw.slice(raw.indexOf('\n\n') + 2));
    expect(r.json.author).toEqual(identityOf(dir, 'a'));
    expect(r.json.author.name).toBe('Ann Author');
    expect(r.json.committer).toEqual(identityOf(dir, 'c'));
    expect(r.json.wouldCommit).toBeUndefined();
  });

  it('check: wouldCommit, and commit null, since nothing was committed', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('check', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json.commit).toBeNull();
    expect(r.json.wouldCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(gitTry(dir, 'cat-file', '-e', r.json.wouldCommit).status).not.toBe(0);
    expect(r.json.tree).toMatch(/^[0-9a-f]{40}$/);
    expectUntouched(dir, before);
  });

  it('--diff --json carries the unified diff, without colour', async () => {
    const dir = makeRepo('basic');
    process.env.FORCE_COLOR = '1';
    try {
      const r = await patchtxJson('apply', '--repo', dir, '--diff', patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A')));
      expect(r.code).toBe(0);
      expect(r.json.diff).toBe(git(dir, 'diff', '--no-color', 'HEAD~1', 'HEAD', '--', 'README.md').replace(/^diff --git.*\nindex .*\n/, ''));
    } finally {
      delete process.env.FORCE_COLOR;
    }
    const plain = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: x.txt', '+x')));
    expect(plain.json.diff).toBeUndefined();
  });

  it('an unknown option prints only the JSON object', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('apply', '--repo', dir, '--bogus', '--json', patchFile(BASIC_PATCH));
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { kind: 'usage', message: "unknown option '--bogus'" } });
    const log = await patchtx('log', '--json', '-n');
    expect(log.err).toBe('');
    expect(JSON.parse(log.out).error.kind).toBe('usage');
  });
});
