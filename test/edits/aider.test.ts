// Aider SEARCH/REPLACE blocks as a patch: `patchtx apply` tells them from V4A by their content, and
// applies every block in order as one commit (a block sees the ones before it), or nothing; a
// SEARCH part must match exactly once.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, openRepository, PatchtxError } from '../../src/index.js';
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

/** `files` committed in a checkout of the basic fixture. */
function repoWith(files: Record<string, string>): string {
  const dir = makeRepo('basic');
  for (const [p, content] of Object.entries(files)) writeFileSync(path.join(dir, p), content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'files');
  return dir;
}

const PY = 'class A:\n    def f(self):\n        if x:\n            return 1\n\n        return 2\n\nrest = 0\n';

describe('Aider blocks: a SEARCH part indented less or more than the file', () => {
  it('indented less: the one region that differs only by the same leading whitespace on every line is replaced, the REPLACE lines shifted alike', async () => {
    const dir = repoWith({ 'a.py': PY });
    const r = await patchtxJson(
      'apply',
      '--repo',
      dir,
      patchFile(block('a.py', 'if x:\n    return 1\n\nreturn 2\n', 'if x:\n    return 10\n\n# two\nreturn 2\n')),
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(git(dir, 'show', 'HEAD:a.py')).toBe(
      'class A:\n    def f(self):\n        if x:\n            return 10\n\n        # two\n        return 2\n\nrest = 0\n',
    );
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('indented more, in a CRLF file with tabs: the shift is taken off the REPLACE lines, the file keeps its line endings', async () => {
    const dir = repoWith({ 't.go': 'func f() {\r\n\tif x {\r\n\t\treturn 1\r\n\t}\r\n}\r\n' });
    const repo = await openRepository({ dir });
    await repo.apply(block('t.go', '\t\tif x {\n\t\t\treturn 1\n\t\t}\n', '\t\tif y {\n\t\t\treturn 2\n\t\t}\n'));
    expect(git(dir, 'show', 'HEAD:t.go')).toBe('func f() {\r\n\tif y {\r\n\t\treturn 2\r\n\t}\r\n}\r\n');
  });

  it('an exact match wins over a shifted one', async () => {
    const dir = repoWith({ 'e.py': 'x = 1\ny\n    x = 1\n    y\n' });
    const repo = await openRepository({ dir });
    await repo.apply(block('e.py', 'x = 1\ny\n', 'x = 2\ny\n'));
    expect(git(dir, 'show', 'HEAD:e.py')).toBe('x = 2\ny\n    x = 1\n    y\n');
  });

  it('several shifted regions stay ambiguous_match, listing them; lines whose shifts differ are no match', async () => {
    const dir = repoWith({ 'm.py': 'def f():\n    if a:\n        b\ndef g():\n        if a:\n            b\n', 'u.py': 'if a:\n    b\n        c\n' });
    const repo = await openRepository({ dir });
    const several = await rejection(repo.apply(block('m.py', 'if a:\n    b\n', 'if a:\n    c\n')));
    expect(several.kind).toBe('ambiguous_match');
    expect(several.data.candidates).toEqual([2, 5]);
    expect(several.message).toMatch(/leading whitespace/);
    // b is 4 columns further in, c 6: no single shift
    const uneven = await rejection(repo.apply(block('u.py', 'b\n  c\n', 'b\n  d\n')));
    expect(uneven.kind).toBe('context_not_found');
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('files');
  });
});

describe('Aider blocks shifted, in memory', () => {
  const apply = (file: string, search: string, replace: string): unknown => applyPatch(block('f.py', search, replace), { 'f.py': file }).files['f.py'];

  it('blank lines match blank lines whatever their whitespace, and stay blank in the REPLACE lines', () => {
    expect(apply('  a\n  \n  b\n', 'a\n\nb\n', 'a\n\nc\n')).toBe('  a\n\n  c\n');
  });

  it('a REPLACE line indented less than the shift loses only the indentation it has', () => {
    expect(apply('a\nb\n', '    a\n    b\n', '    a\n  x\nb2\n')).toBe('a\nx\nb2\n');
  });

  it('a region ending at a last line without a line break: the file keeps none; an empty REPLACE deletes the lines', () => {
    expect(apply('def f():\n    return 1', 'return 1\n', 'return 2\n')).toBe('def f():\n    return 2');
    expect(apply('x\n    y\n    z\n', 'y\nz\n', '')).toBe('x\n');
  });
});

describe('Aider blocks match whole lines', () => {
  const apply = (file: string, search: string, replace: string): unknown => applyPatch(block('f.py', search, replace), { 'f.py': file }).files['f.py'];
  const failure = (file: string, search: string, replace: string): PatchtxError => {
    try {
      apply(file, search, replace);
    } catch (e) {
      expect(e).toBeInstanceOf(PatchtxError);
      return e as PatchtxError;
    }
    throw new Error('the block applied');
  };

  it('a SEARCH line is not found at the end of a longer file line: it matches only a whole line', () => {
    const missing = failure('yx = 1\nz = 0\n', 'x = 1\n', 'x = 2\n');
    expect(missing.kind).toBe('context_not_found');
    expect(missing.data.candidates).toEqual([1]);
    // a block whose first line is the end of a file line is not there either
    expect(failure('def f():\n    return 1\n', 'f():\n    return 1\n', 'g():\n    return 1\n').kind).toBe('context_not_found');
  });

  it('the whole line is taken over the end of a longer one: no ambiguity, and the other line is kept', () => {
    expect(apply('yx = 1\nx = 1\n', 'x = 1\n', 'x = 2\n')).toBe('yx = 1\nx = 2\n');
    expect(apply('x = 1\r\nyx = 1\r\n', 'x = 1\n', 'x = 2\n')).toBe('x = 2\r\nyx = 1\r\n');
    // the lines start after the end of a longer line that ends the same way
    expect(apply('xa\na\na\n', 'a\na\n', 'b\n')).toBe('xa\nb\n');
  });

  it('a SEARCH line that is the end of an indented line is the indented line: REPLACE lines get its indentation', () => {
    expect(apply('def f():\n    x = 1\n', 'x = 1\n', 'x = 1\ny = 2\n')).toBe('def f():\n    x = 1\n    y = 2\n');
  });

  it('at a last line without a final newline, too, the line is whole', () => {
    expect(apply('a\nx = 1', 'x = 1\n', 'x = 2\n')).toBe('a\nx = 2');
    expect(failure('a\nyx = 1', 'x = 1\n', 'x = 2\n').kind).toBe('context_not_found');
  });

  it('several whole-line occurrences stay ambiguous_match, listing the lines', () => {
    const several = failure('x = 1\nyx = 1\nx = 1\n', 'x = 1\n', 'x = 2\n');
    expect(several.kind).toBe('ambiguous_match');
    expect(several.data.candidates).toEqual([1, 3]);
  });
});

describe('Aider blocks match whole lines, in a repository', () => {
  it('a block is applied to whole lines, not inside a longer one; str_replace still replaces text inside a line', async () => {
    const dir = repoWith({ 'w.py': 'def f():\r\n    total = 1\r\n    return total\r\n' });
    const repo = await openRepository({ dir });
    const missing = await rejection(repo.apply(block('w.py', 'al = 1\n', 'al = 2\n')));
    expect(missing.kind).toBe('context_not_found');
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('files');
    await repo.apply(block('w.py', 'return total\n', 'total += 1\nreturn total\n'));
    expect(git(dir, 'show', 'HEAD:w.py')).toBe('def f():\r\n    total = 1\r\n    total += 1\r\n    return total\r\n');
    await repo.edit({ op: 'str_replace', path: 'w.py', old: 'al = 1', new: 'al = 2' });
    expect(git(dir, 'show', 'HEAD:w.py')).toBe('def f():\r\n    total = 2\r\n    total += 1\r\n    return total\r\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
