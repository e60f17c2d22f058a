// Line-ending and content conversions between the working tree and git are refused up front:
// patchtx writes committed bytes as they are, so a converted file would look modified to git.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/patchtx.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';

afterAll(cleanupRepos);

const PATCH = '*** Begin Patch\n*** Update File: README.md\n@@\n # Sample\n+x\n*** End Patch\n';

async function apply(repo: string): Promise<{ code: number; error: { kind: string; feature?: string; message: string } }> {
  const file = path.join(repo, '..', 'p.patch');
  writeFileSync(file, PATCH);
  const out: string[] = [];
  const code = await main(['apply', '--json', '--repo', repo, file], { out: (t) => out.push(t), err: () => {} });
  return { code, error: JSON.parse(out.join('')).error };
}

describe('content conversion refusals', () => {
  for (const attr of ['eol=crlf', 'ident', 'working-tree-encoding=UTF-16']) {
    it(`refuses a touched path with ${attr}`, async () => {
      const repo = makeRepo('basic');
      writeFileSync(path.join(repo, '.gitattributes'), `*.md ${attr}\n`);
      git(repo, 'add', '.gitattributes');
      git(repo, 'commit', '-qm', 'attributes');
      const head = git(repo, 'rev-parse', 'HEAD');
      const r = await apply(repo);
      expect(r.code).toBe(2);
      expect(r.error.kind).toBe('unsupported_repository');
      expect(r.error.feature).toBe(attr.split('=')[0]);
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    });
  }

  it('refuses core.autocrlf=true and applies again once it is off', async () => {
    const repo = makeRepo('basic');
    git(repo, 'config', 'core.autocrlf', 'true');
    const r = await apply(repo);
    expect(r.code).toBe(2);
    expect(r.error.feature).toBe('autocrlf');
    git(repo, 'config', 'core.autocrlf', 'false');
    expect((await apply(repo)).code).toBe(0);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('applies when eol is unset for the path', async () => {
    const repo = makeRepo('basic');
    writeFileSync(path.join(repo, '.gitattributes'), '*.md eol=crlf\nREADME.md -eol\n');
    git(repo, 'add', '.gitattributes');
    git(repo, 'commit', '-qm', 'attributes');
    expect((await apply(repo)).code).toBe(0);
  });
});
