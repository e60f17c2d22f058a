// applyResponseItems with commit: 'none': the calls of a response written to the working tree only,
// all of them or none, as the Agents SDK's own editors write files; no commit, the branch and the
// index untouched, uncommitted edits of the touched files taken in.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { applyResponseItems } from '../../src/openai/index.js';
import { cleanupRepos, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const call = (call_id: string, operation: Record<string, unknown>) => ({ type: 'apply_patch_call', call_id, status: 'completed', operation });

describe("applyResponseItems with commit: 'none'", () => {
  it('writes every call to the working tree and commits nothing; an uncommitted edit of a touched file is built on', async () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    const index = git(dir, 'ls-files', '-s');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\nmine, not committed\n');
    const repo = await openRepository({ dir });
    const outputs = await applyResponseItems(
      repo,
      [
        call('c1', { type: 'update_file', path: 'README.md', diff: '@@\n # Sample\n+added by the model\n mine, not committed' }),
        call('c2', { type: 'create_file', path: 'docs/new.txt', diff: '+hello' }),
        call('c3', { type: 'delete_file', path: 'docs/notes.txt' }),
      ],
      { commit: 'none' },
    );
    expect(outputs.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
    expect(outputs[0]!.output).toBe('Updated README.md (written to the working tree, not committed)');
    expect(rev(dir)).toBe(head);
    expect(git(dir, 'ls-files', '-s')).toBe(index);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# Sample\nadded by the model\nmine, not committed\n');
    // the Agents SDK's rule: a created file ends without a newline unless its last line is empty
    expect(readFileSync(path.join(dir, 'docs/new.txt'), 'utf8')).toBe('hello');
    expect(git(dir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([' D docs/notes.txt', ' M README.md', '?? docs/new.txt']);
    repo.close();
  });

  it('a failing call writes nothing at all and names itself', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const outputs = await applyResponseItems(
      repo,
      [
        call('c1', { type: 'create_file', path: 'docs/new.txt', diff: '+hello' }),
        call('c2', { type: 'update_file', path: 'README.md', diff: '@@\n-no such line\n+x' }),
      ],
      { commit: 'none' },
    );
    expect(outputs.map((o) => o.status)).toEqual(['failed', 'failed']);
    expect(outputs[1]!.output).toMatch(/README\.md/);
    expect(outputs[0]!.output).toMatch(/^Not applied: call c2 /);
    expectUntouched(dir, before);
    repo.close();
  });
});
