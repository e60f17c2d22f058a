import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/engine/diff.js';
import { bytes } from './support.js';

describe('unifiedDiff', () => {
  it('a modification with a/ b/ headers', () => {
    expect(unifiedDiff('src/a.txt', bytes('one\ntwo\n'), bytes('one\nTWO\n'))).toBe('--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
  });

  it('additions and deletions use /dev/null', () => {
    expect(unifiedDiff('n.txt', null, bytes('x\n'))).toBe('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+x\n');
    expect(unifiedDiff('d.txt', bytes('x\n'), null)).toBe('--- a/d.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n');
  });

  it('a rename names both sides', () => {
    expect(unifiedDiff('new.txt', bytes('a\n'), bytes('b\n'), 'old.txt')).toBe('--- a/old.txt\n+++ b/new.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n');
    expect(unifiedDiff('new.txt', bytes('a\n'), bytes('a\n'), 'old.txt')).toBe('--- a/old.txt\n+++ b/new.txt\n');
  });

  it('marks a missing final newline', () => {
    expect(unifiedDiff('f', bytes('a'), bytes('a\n'))).toContain('\\ No newline at end of file');
  });

  it('binary content is one line', () => {
    expect(unifiedDiff('logo.png', null, new Uint8Array([0x89, 0, 1]))).toBe('Binary files /dev/null and b/logo.png differ\n');
    expect(unifiedDiff('f', new Uint8Array([0xff]), bytes('x'))).toBe('Binary files a/f and b/f differ\n');
  });

  it('nothing for identical content', () => {
    expect(unifiedDiff('f', bytes('same\n'), bytes('same\n'))).toBe('');
    expect(unifiedDiff('f', null, null)).toBe('');
  });
});
