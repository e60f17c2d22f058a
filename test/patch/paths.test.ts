import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { checkPatchPath, pathProblem, lengthProblem, PATH_MAX } from '../../src/patch/paths.js';

function rejection(path: string): PatchtxError {
  try {
    checkPatchPath(path);
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error(`accepted: ${JSON.stringify(path)}`);
}

describe('checkPatchPath', () => {
  it.each([
    'a.txt',
    'src/patch/parse.ts',
    '.gitignore',
    '.github/workflows/ci.yml',
    'sub/.gitmodules',
    'a b/c d.txt',
    'naïve/café ✅.md',
    '.git2/x',
    'x.git',
    'git~2',
    '...',
    '.hidden/..x',
  ])('accepts %j and returns it', (p) => {
    expect(checkPatchPath(p)).toBe(p);
  });

  it.each([
    ['', /empty/],
    ['/etc/passwd', /absolute/],
    ['C:/Windows/x', /Windows drive/],
    ['c:x', /Windows drive/],
    ['\\\\server\\share', /UNC/],
    ['a\\b', /backslash/],
    ['../x', /'\.\.' segment/],
    ['a/../../x', /'\.\.' segment/],
    ['a/..', /'\.\.' segment/],
    ['./a', /'\.' segment/],
    ['a/./b', /'\.' segment/],
    ['a//b', /empty segment/],
    ['a/', /names a directory \(it ends with '\/'\)/],
    ['a/.', /names a directory \(it ends with '\.'\)/],
    ['./', /names a directory/],
    ['a\0b', /U\+0000 \(NUL\)/],
    ['a\tb', /U\+0009 \(TAB\)/],
    ['a\nb', /U\+000A \(LF/],
    ['a\rb', /U\+000D \(CR/],
    ['a\u0001b', /U\+0001/],
    ['a\u007fb', /U\+007F \(DEL\)/],
    ['a\u0085b', /U\+0085/],
  ])('rejects %j', (p, reason) => {
    const e = rejection(p);
    expect(e.kind).toBe('path_rejected');
    expect(e.data.path).toBe(p);
    expect(e.message).toMatch(reason);
    expect(e.message).toMatch(/^Path '.*' is rejected: /s);
  });

  it.each([
    '.git',
    '.git/config',
    '.GIT/hooks/pre-commit',
    '.Git/config',
    'sub/.git/x',
    'sub/.git',
    '.git./config',
    '.git /config',
    '.git. . /x',
    'GIT~1/config',
    'git~1',
    '.git::$INDEX_ALLOCATION/config',
    '.g\u200cit/config',
    '.\ufeffgit/hooks/x',
    // an ignorable code point in front: the segment does not start with '.' or 'g' as written
    '\u200c.git/config',
    '\ufeffGit~1/x',
  ])('rejects %j as the .git directory', (p) => {
    const e = rejection(p);
    expect(e.kind).toBe('path_rejected');
    expect(e.message).toMatch(/names the \.git directory/);
  });

  it('shows control characters escaped in the message', () => {
    expect(rejection('a\u0000b').message).toBe("Path 'a\\u0000b' is rejected: it contains the control character U+0000 (NUL)");
  });

  it('lengthProblem counts UTF-8 bytes, of each component and of the whole with a prefix', () => {
    expect(lengthProblem('€'.repeat(85))).toBeNull(); // 255 bytes
    expect(lengthProblem('€'.repeat(86))).toMatch(/258 bytes long; file systems take at most 255/);
    expect(lengthProblem(`a/${'€'.repeat(85)}`)).toBeNull();
    expect(lengthProblem('n'.repeat(255))).toBeNull();
    expect(lengthProblem('n'.repeat(256))).toMatch(/256 bytes/);
    const short = 'src/a.txt'; // 9 bytes
    expect(lengthProblem(short, PATH_MAX - 10)).toBeNull();
    expect(lengthProblem(short, PATH_MAX - 9)).toMatch(/4096 bytes long with the working tree's directory in front/);
    expect(lengthProblem('é', PATH_MAX - 3)).toBeNull(); // 2 bytes
    expect(lengthProblem('é', PATH_MAX - 2)).toMatch(/4096 bytes long/);
  });

  it('pathProblem returns null for a good path', () => {
    expect(pathProblem('ok/fine.txt')).toBeNull();
  });
});
