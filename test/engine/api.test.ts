import { describe, expect, it } from 'vitest';
import { applyPatch, parsePatch } from '../../src/index.js';
import { failure, patchOf } from './support.js';

describe('applyPatch (library face)', () => {
  it('applies a patch to files held in an object', () => {
    const input = { 'src/a.txt': 'one\ntwo\n', 'old.txt': 'bye\n' };
    const r = applyPatch(patchOf('*** Update File: src/a.txt', '@@', '-two', '+TWO', '*** Delete File: old.txt', '*** Add File: new/n.txt', '+hi'), input);
    expect(r.files).toEqual({ 'src/a.txt': 'one\nTWO\n', 'old.txt': null, 'new/n.txt': 'hi\n' });
    expect(r.changes).toEqual([
      { op: 'M', path: 'src/a.txt' },
      { op: 'D', path: 'old.txt' },
      { op: 'A', path: 'new/n.txt' },
    ]);
    expect(r.summary).toEqual(['M src/a.txt', 'D old.txt', 'A new/n.txt']);
    expect(r.warnings).toEqual([]);
    expect(r.diffs['src/a.txt']).toBe('--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
    expect(r.diffs['old.txt']).toContain('+++ /dev/null');
    expect(r.diffs['new/n.txt']).toContain('--- /dev/null');
    // the input is not modified
    expect(input).toEqual({ 'src/a.txt': 'one\ntwo\n', 'old.txt': 'bye\n' });
  });

  it('accepts a Map and Uint8Array contents; binary passes through as bytes', () => {
    const png = new Uint8Array([0x89, 0x50, 0x00, 0xff]);
    const r = applyPatch(patchOf('*** Update File: a.png', '*** Move to: b.png'), new Map([['a.png', png]]));
    expect(r.files['b.png']).toBeInstanceOf(Uint8Array);
    expect(r.files['b.png']).toEqual(png);
    expect(r.files['a.png']).toBeNull();
    expect(r.changes).toEqual([{ op: 'R', path: 'b.png', from: 'a.png' }]);
    expect(r.diffs['b.png']).toBe('Binary files a/a.png and b/b.png differ\n');
  });

  it('updates string and byte inputs alike; text comes back as strings', () => {
    const patch = patchOf('*** Update File: w.txt', '@@', ' one', '-two', '+TWO', '+2\u00bd');
    const text = '\ufeffone\r\ntwo\r\nthree';
    const fromString = applyPatch(patch, { 'w.txt': text });
    const fromBytes = applyPatch(patch, { 'w.txt': new TextEncoder().encode(text) });
    expect(fromString.files['w.txt']).toBe('\ufeffone\r\nTWO\r\n2\u00bd\r\nthree\r\n');
    expect(fromBytes.files).toEqual(fromString.files);
    expect(fromBytes.changes).toEqual([{ op: 'M', path: 'w.txt' }]);
    expect(fromString.changes).toEqual([{ op: 'M', path: 'w.txt' }]);
    expect(fromString.diffs['w.txt']).toBe(fromBytes.diffs['w.txt']);
    // a string with NUL is not text: refused for an update
    const e = failure(() => applyPatch(patch, { 'w.txt': 'one\ntwo\0\n' }));
    expect(e.kind).toBe('binary_or_encoding');
    expect(e.message).toContain('NUL');
  });

  it('content that a patch makes binary (a NUL) comes back as bytes', () => {
    const r = applyPatch(patchOf('*** Update File: a', '@@', '-x', '+x\0y'), { a: 'x\n' });
    expect(r.files.a).toEqual(new TextEncoder().encode('x\0y\n'));
  });

  it('no change when an update restores the original text', () => {
    const r = applyPatch(patchOf('*** Update File: a', '@@', '-x', '+x'), { a: 'x\n' });
    expect(r.changes).toEqual([]);
    expect(r.files).toEqual({ a: 'x\n' });
    expect(Object.keys(r.diffs)).toEqual([]);
  });

  it('infers directories from the keys', () => {
    const e = failure(() => applyPatch(patchOf('*** Delete File: src'), { 'src/a/b.txt': 'x' }));
    expect(e.kind).toBe('is_directory');
  });

  it('strict option', () => {
    const e = failure(() => applyPatch(patchOf('*** Add File: a', '+x'), { a: 'y' }, { strict: true }));
    expect(e.kind).toBe('already_exists');
    expect(applyPatch(patchOf('*** Add File: a', '+x'), { a: 'y' }).warnings[0]).toMatchObject({ kind: 'overwrite' });
  });

  it('throws PatchtxError for patches that do not apply, with a code alias', () => {
    const e = failure(() => applyPatch(patchOf('*** Update File: a', '@@', '-zzz'), { a: 'x\n' }));
    expect(e.kind).toBe('context_not_found');
    expect(e.code).toBe('context_not_found');
    expect(e.data).toMatchObject({ path: 'a', chunk: 1 });
  });

  it('usage errors for wrong argument types', () => {
    const bad: [unknown, unknown, unknown][] = [
      [42, {}, undefined],
      ['x', null, undefined],
      ['x', ['a'], undefined],
      ['x', 'files', undefined],
      ['x', { a: 5 }, undefined],
      ['x', new Map([[1, 'a']]), undefined],
      ['x', {}, 'strict'],
      ['x', {}, { strict: 'yes' }],
    ];
    for (const [patch, files, options] of bad) {
      const e = failure(() => (applyPatch as (...a: unknown[]) => unknown)(patch, files, options));
      expect(e.kind).toBe('usage');
      expect(e.message).toMatch(/^applyPatch: /);
    }
    expect(failure(() => (applyPatch as (...a: unknown[]) => unknown)(42, {})).message).toContain('got a number');
  });

  it('refuses an option it does not know, naming it, rather than ignoring a misspelt one', () => {
    const e = failure(() => (applyPatch as (...a: unknown[]) => unknown)('x', {}, { strcit: true }));
    expect(e.kind).toBe('usage');
    expect(e.message).toBe('applyPatch: options.strcit is not an option (strict, limits)');
    expect(e.data).toMatchObject({ option: 'strcit' });
  });
});

describe('parsePatch (library face)', () => {
  it('parses, and refuses a non-string', () => {
    expect(parsePatch(patchOf('*** Delete File: a')).hunks).toEqual([{ kind: 'delete', path: 'a', line: 2 }]);
    const e = failure(() => (parsePatch as (x: unknown) => unknown)(undefined));
    expect(e.kind).toBe('usage');
    expect(e.message).toBe('parsePatch: the patch text must be a string, got undefined');
  });
});

describe('a `cd DIR && apply_patch <<EOF` wrapper (library face)', () => {
  const wrapped = (dir: string, ...hunk: string[]): string => [`cd ${dir} && apply_patch <<'EOF'`, patchOf(...hunk), 'EOF'].join('\n');

  it('parsePatch exposes the directory; paths stay as written', () => {
    const p = parsePatch(wrapped('"my dir"', '*** Delete File: a.txt'));
    expect(p.cwd).toBe('my dir');
    expect(p.hunks).toEqual([{ kind: 'delete', path: 'a.txt', line: 2 }]);
    expect(parsePatch(patchOf('*** Delete File: a.txt')).cwd).toBeUndefined();
  });

  it('applyPatch applies the paths below the directory, not at the root', () => {
    const files = { 'a.txt': 'root\n', 'pkg/a.txt': 'one\ntwo\n' };
    const r = applyPatch(wrapped('pkg', '*** Update File: a.txt', '@@', '-two', '+TWO', '*** Add File: b.txt', '+new'), files);
    expect(r.files).toEqual({ 'pkg/a.txt': 'one\nTWO\n', 'pkg/b.txt': 'new\n' });
    expect(r.changes).toEqual([
      { op: 'M', path: 'pkg/a.txt' },
      { op: 'A', path: 'pkg/b.txt' },
    ]);
    expect(r.summary).toEqual(['M pkg/a.txt', 'A pkg/b.txt']);
    expect(Object.keys(r.diffs)).toEqual(['pkg/a.txt', 'pkg/b.txt']);
    // `cd pkg/../pkg` is the same directory; `cd ..` leaves the files given
    expect(applyPatch(wrapped('pkg/../pkg', '*** Delete File: a.txt'), files).files).toEqual({ 'pkg/a.txt': null });
    expect(failure(() => applyPatch(wrapped('..', '*** Delete File: a.txt'), files)).kind).toBe('path_rejected');
    // an absolute directory has no meaning for files held in memory
    const e = failure(() => applyPatch(wrapped('/srv/app', '*** Delete File: a.txt'), files));
    expect(e.kind).toBe('path_rejected');
    expect(e.message).toContain('/srv/app');
  });
});
