// Aider SEARCH/REPLACE blocks as a patch: `patchtx apply` tells them from V4A by their content, and
// applies every block in order as one commit (a block sees the ones before it), or nothing; a
// SEARCH part must match exactly once.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, makeRepo } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv, patchFile } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const block = (file: string, search: string, replace: string): string =>
  `${file}\n\`\`\`js\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

describe('Aider SEARCH/REPLACE blocks', () => {
  it('blocks of two files, a later block seeing an earlier one, and a new file: one commit', async () => {
    const dir = makeRepo('basic');
    const count = commitCount(dir);
    const text = [
      'Here are the changes:\n',
      block('src/math.js', 'export function add(a, b) {\n  return a + b;\n', 'export function add(a, b) {\n  return a + b + 0;\n'),
      block('src/math.js', '  return a + b + 0;\n', '  return b + a;\n'),
      block('docs/crlf.txt', 'line two\n', 'line 2\n'),
      block('docs/new.md', '', '# New\n'),
    ].join('\n');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(text));
    expect(r.code).toBe(0);
    expect(commitCount(dir)).toBe(count + 1);
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return b + a;\n}\n');
    expect(git(dir, 'show', 'HEAD:docs/crlf.txt')).toBe('line one\r\nline 2\r\nline three\r\n');
    expect(readFileSync(path.join(dir, 'docs/new.md'), 'utf8')).toBe('# New\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a SEARCH part that matches twice, or not at all, fails the whole patch and names the block', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    // the second block sees the first one's copy of the line
    const twice = await rejection(repo.apply(block('README.md', '# Sample\n', '# Sample\n# Sample\n') + block('README.md', '# Sample\n', '# Example\n')));
    expect(twice.kind).toBe('ambiguous_match');
    expect(twice.message).toMatch(/^block 2: the old text occurs 2 times in README\.md, at lines 1, 2/);
    const missing = await rejection(repo.apply(block('README.md', '# Nothing like it\n', '# Example\n')));
    expect(missing.kind).toBe('context_not_found');
    expect(missing.data.operation).toBe(0);
    const unclosed = await rejection(repo.apply('README.md\n<<<<<<< SEARCH\n# Sample\n=======\n# Example\n'));
    expect(unclosed.kind).toBe('parse_error');
    expect(unclosed.message).toContain('no >>>>>>> REPLACE');
    expectUntouched(dir, before);
  });

  it('a SEARCH part ending at the last line of a file without a final newline matches it, and the file keeps no final newline', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'tail.py'), 'def f():\r\n    return 1\r\n\r\nx = 2');
    git(dir, 'add', 'tail.py');
    git(dir, 'commit', '-q', '-m', 'a file without a final newline');
    const repo = await openRepository({ dir });
    await repo.apply(block('tail.py', '    return 1\n\nx = 2\n', '    return 2\n\nx = 3\n'));
    expect(git(dir, 'show', 'HEAD:tail.py')).toBe('def f():\r\n    return 2\r\n\r\nx = 3');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // the last line with something after it is not there
    const missing = await rejection(repo.apply(block('tail.py', 'x = 3\nmore\n', 'x = 4\n')));
    expect(missing.kind).toBe('context_not_found');
  });
});
