// Reading unified diffs (no repository): what is told apart from V4A and Aider blocks, and what is
// refused with a clear error instead of being half understood.
import { describe, expect, it } from 'vitest';
import { stepFormat } from '../../src/edits/step.js';
import { parseUnifiedDiff } from '../../src/edits/unified.js';
import { planPatch } from '../../src/engine/plan.js';
import { PatchtxError } from '../../src/index.js';

function thrown(fn: () => unknown): PatchtxError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error('expected an error');
}

const gitHeader = (a: string, b: string, extra: string[]): string => [`diff --git a/${a} b/${b}`, ...extra].join('\n') + '\n';

describe('telling the formats apart', () => {
  it.each([
    ['*** Begin Patch\n*** Delete File: a\n*** End Patch\n', 'v4a'],
    ["apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n", 'v4a'],
    ['diff --git a/x b/x\nold mode 100644\nnew mode 100755\n', 'unified'],
    ['--- x.orig\n+++ x\n@@ -1 +1 @@\n-a\n+b\n', 'unified'],
    ['x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n', 'aider'],
    ['something else\n', 'v4a'],
    // each format's markers inside another format's content
    ['diff --git a/p b/p\n--- a/p\n+++ b/p\n@@ -1,2 +1,2 @@\n *** Begin Patch\n-*** Delete File: a\n+*** Delete File: b\n', 'unified'],
    ['*** Begin Patch\n*** Add File: d.diff\n+diff --git a/x b/x\n+<<<<<<< SEARCH\n+>>>>>>> REPLACE\n*** End Patch\n', 'v4a'],
    ['d.diff\n<<<<<<< SEARCH\ndiff --git a/x b/x\n=======\ndiff --git a/y b/y\n>>>>>>> REPLACE\n', 'aider'],
  ])('%j is %s', (text, format) => {
    expect(stepFormat(text)).toBe(format);
  });
});

describe('unified diffs that are refused', () => {
  it('a binary patch, with or without --binary', () => {
    const withData = gitHeader('b', 'b', [
      'new file mode 100644',
      'index 0000000..bdc955b',
      'GIT binary patch',
      'literal 2',
      'JcmZQzWB>pF',
      '',
      'literal 0',
      'HcmV?d00001',
      '',
    ]);
    expect(thrown(() => parseUnifiedDiff(withData)).message).toBe('line 4: the diff holds a binary patch, which patchtx does not apply');
    const summary = gitHeader('b', 'b', ['index 1111111..2222222 100644', 'Binary files a/b and b/b differ']);
    expect(thrown(() => parseUnifiedDiff(summary)).kind).toBe('parse_error');
  });

  it('a symbolic link or submodule mode, a copy, and a path out of the repository', () => {
    expect(
      thrown(() => parseUnifiedDiff(gitHeader('l', 'l', ['new file mode 120000', '--- /dev/null', '+++ b/l', '@@ -0,0 +1 @@', '+target']))).message,
    ).toContain('file mode 120000 is not supported');
    expect(thrown(() => parseUnifiedDiff(gitHeader('a', 'c', ['similarity index 100%', 'copy from a', 'copy to c']))).message).toBe(
      'the diff copies a file, which patchtx does not apply',
    );
    expect(thrown(() => parseUnifiedDiff('--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n')).kind).toBe('path_rejected');
  });

  it('hunk line counts that do not add up', () => {
    const e = thrown(() => parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n'));
    expect(e.kind).toBe('parse_error');
    expect(e.message).toMatch(/^the unified diff does not parse: /);
  });
});

describe('the summary of a diff', () => {
  it('is one line per file of the diff: a rename with changes, a deletion, a new executable file', () => {
    const diff =
      gitHeader('a.txt', 'b.txt', [
        'similarity index 50%',
        'rename from a.txt',
        'rename to b.txt',
        '--- a/a.txt',
        '+++ b/b.txt',
        '@@ -1,2 +1,2 @@',
        ' one',
        '-two',
        '+TWO',
      ]) +
      gitHeader('gone.txt', 'gone.txt', ['deleted file mode 100644', '--- a/gone.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-bye']) +
      gitHeader('run.sh', 'run.sh', ['new file mode 100755', '--- /dev/null', '+++ b/run.sh', '@@ -0,0 +1 @@', '+echo']);
    const files = new Map([
      ['a.txt', new TextEncoder().encode('one\ntwo\n')],
      ['gone.txt', new TextEncoder().encode('bye\n')],
    ]);
    const plan = planPatch(parseUnifiedDiff(diff), { read: (p) => files.get(p), isDirectory: () => false });
    expect(plan.summary).toEqual(['M b.txt', 'D gone.txt', 'A run.sh']);
  });
});
