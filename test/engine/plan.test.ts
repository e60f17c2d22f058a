import { describe, expect, it } from 'vitest';
import { planPatch } from '../../src/engine/plan.js';
import type { Patch } from '../../src/patch/types.js';
import { applyPlan, bytes, failure, lookupOf, patchOf, plan, run, text, treeOf } from './support.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in latin-1: not UTF-8

describe('planPatch: Add File', () => {
  it('creates a file, parents implied', () => {
    const p = plan(patchOf('*** Add File: a/b/new.txt', '+hello', '+world'), {});
    expect(text(p.files.get('a/b/new.txt'))).toBe('hello\nworld\n');
    expect(p.changes).toEqual([{ op: 'A', path: 'a/b/new.txt' }]);
    expect(p.summary).toEqual(['A a/b/new.txt']);
    expect(p.warnings).toEqual([]);
  });

  it('overwrites an existing file with a warning; strict refuses', () => {
    const p = plan(patchOf('*** Add File: x.txt', '+new'), { 'x.txt': 'old\n' });
    expect(text(p.files.get('x.txt'))).toBe('new\n');
    expect(p.changes).toEqual([{ op: 'M', path: 'x.txt' }]);
    expect(p.warnings).toEqual([expect.objectContaining({ kind: 'overwrite', path: 'x.txt', line: 2 })]);
    const e = failure(() => plan(patchOf('*** Add File: x.txt', '+new'), { 'x.txt': 'old\n' }, { strict: true }));
    expect(e.kind).toBe('already_exists');
    expect(e.data).toMatchObject({ path: 'x.txt', line: 2 });
  });

  it('cannot write onto a directory, or below a file', () => {
    const e = failure(() => plan(patchOf('*** Add File: dir', '+x'), { 'dir/f.txt': 'f' }));
    expect(e.kind).toBe('is_directory');
    expect(e.data).toMatchObject({ path: 'dir', line: 2 });
    const f = failure(() => plan(patchOf('*** Add File: file.txt/child', '+x'), { 'file.txt': 'f' }));
    expect(f.kind).toBe('already_exists');
    expect(f.data).toMatchObject({ path: 'file.txt/child', conflictsWith: 'file.txt' });
  });

  it('an Add with no lines is an empty file', () => {
    const p = plan(patchOf('*** Add File: empty.txt'), {});
    expect(p.files.get('empty.txt')).toEqual(new Uint8Array());
  });
});

describe('planPatch: Delete File', () => {
  it('deletes a file', () => {
    const p = plan(patchOf('*** Delete File: gone.txt'), { 'gone.txt': 'x', 'kept.txt': 'y' });
    expect(p.files).toEqual(new Map([['gone.txt', null]]));
    expect(p.changes).toEqual([{ op: 'D', path: 'gone.txt' }]);
    expect(p.summary).toEqual(['D gone.txt']);
  });

  it('fails for a missing file or a directory, in the reference wording', () => {
    const missing = failure(() => plan(patchOf('*** Delete File: nope.txt'), {}));
    expect(missing.kind).toBe('file_not_found');
    expect(missing.message).toMatch(/^Failed to delete file nope\.txt: No such file or directory/);
    expect(missing.data).toEqual({ path: 'nope.txt', line: 2 });
    const dir = failure(() => plan(patchOf('*** Delete File: dir'), { 'dir/a.txt': 'a' }));
    expect(dir.kind).toBe('is_directory');
    expect(dir.message).toMatch(/^Failed to delete file dir/);
  });

  it('deletes a binary or non-UTF-8 file without reading it as text', () => {
    const p = plan(patchOf('*** Delete File: logo.png', '*** Delete File: old.txt'), { 'logo.png': PNG, 'old.txt': LATIN1 });
    expect(p.files.get('logo.png')).toBeNull();
    expect(p.files.get('old.txt')).toBeNull();
  });
});

describe('planPatch: Update File', () => {
  it('updates in place', () => {
    const p = plan(patchOf('*** Update File: m.txt', '@@', ' a', '-b', '+B'), { 'm.txt': 'a\nb\nc\n' });
    expect(text(p.files.get('m.txt'))).toBe('a\nB\nc\n');
    expect(p.changes).toEqual([{ op: 'M', path: 'm.txt' }]);
    expect(p.summary).toEqual(['M m.txt']);
  });

  it('fails for a missing file or a directory', () => {
    const missing = failure(() => plan(patchOf('*** Update File: missing.txt', '@@', '-old', '+new'), {}));
    expect(missing.kind).toBe('file_not_found');
    expect(missing.message).toBe('Failed to read file to update missing.txt: No such file or directory');
    expect(missing.data).toEqual({ path: 'missing.txt', line: 2 });
    const dir = failure(() => plan(patchOf('*** Update File: d', '@@', '-old'), { 'd/x': 'old\n' }));
    expect(dir.kind).toBe('is_directory');
  });

  it('refuses to update a binary or non-UTF-8 file', () => {
    const cases: [Uint8Array, string][] = [
      [PNG, 'stream did not contain valid UTF-8'],
      [LATIN1, 'stream did not contain valid UTF-8'],
      [new Uint8Array([0x63, 0x61, 0x66, 0x00, 0x0a]), 'NUL'],
    ];
    for (const [content, reason] of cases) {
      const e = failure(() => plan(patchOf('*** Update File: f', '@@', '-caf', '+x'), { f: content }));
      expect(e.kind).toBe('binary_or_encoding');
      expect(e.message).toMatch(/^Failed to read file to update f: /);
      expect(e.message).toContain(reason);
      expect(e.data).toEqual({ path: 'f', line: 2 });
    }
  });

  it('chunk errors carry path, chunk and patch line', () => {
    const e = failure(() => plan(patchOf('*** Update File: m.txt', '@@', '-a', '+A', '@@', '-zzz', '+Z'), { 'm.txt': 'a\nb\n' }));
    expect(e.kind).toBe('context_not_found');
    expect(e.data).toMatchObject({ path: 'm.txt', chunk: 2, line: 6 });
  });

  it('passes ambiguity warnings through, strict makes them errors', () => {
    const patch = patchOf('*** Update File: m.txt', '@@', '-x', '+y');
    const p = plan(patch, { 'm.txt': 'x\nx\n' });
    expect(text(p.files.get('m.txt'))).toBe('y\nx\n');
    expect(p.warnings).toEqual([expect.objectContaining({ kind: 'ambiguous_match', path: 'm.txt', chunk: 1, line: 3, candidates: [2] })]);
    const e = failure(() => plan(patch, { 'm.txt': 'x\nx\n' }, { strict: true }));
    expect(e.kind).toBe('ambiguous_match');
    expect(e.data).toEqual({ path: 'm.txt', chunk: 1, line: 3, candidates: [1, 2] });
  });

  it('an update that restores the original bytes is not a change', () => {
    const p = plan(patchOf('*** Update File: m.txt', '@@', '-a', '+a'), { 'm.txt': 'a\n' });
    expect(p.changes).toEqual([]);
    expect(p.summary).toEqual(['M m.txt']);
    expect(p.files.has('m.txt')).toBe(true);
  });
});

describe('planPatch: Move to', () => {
  it('moves and edits: R even when the content changed; the source is gone', () => {
    const p = plan(patchOf('*** Update File: old/name.txt', '*** Move to: new/name.txt', '@@', '-a', '+b'), {
      'old/name.txt': 'a\n',
      'old/other.txt': 'o\n',
    });
    expect(p.files.get('old/name.txt')).toBeNull();
    expect(text(p.files.get('new/name.txt'))).toBe('b\n');
    expect(p.changes).toEqual([{ op: 'R', path: 'new/name.txt', from: 'old/name.txt' }]);
    expect(p.summary).toEqual(['M new/name.txt']);
  });

  it('overwrites an existing destination with a warning; strict refuses', () => {
    const files = { 'a.txt': 'a\n', 'b.txt': 'b\n' };
    const patch = patchOf('*** Update File: a.txt', '*** Move to: b.txt', '@@', '-a', '+A');
    const p = plan(patch, files);
    expect(text(p.files.get('b.txt'))).toBe('A\n');
    expect(p.warnings).toEqual([expect.objectContaining({ kind: 'overwrite', path: 'b.txt' })]);
    expect(p.changes).toEqual([{ op: 'R', path: 'b.txt', from: 'a.txt' }]);
    const e = failure(() => plan(patch, files, { strict: true }));
    expect(e.kind).toBe('already_exists');
    expect(e.data).toMatchObject({ path: 'b.txt', from: 'a.txt' });
  });

  it('refuses a destination that is a directory, or below a file', () => {
    const dir = failure(() => plan(patchOf('*** Update File: a.txt', '*** Move to: d', '@@', '-a'), { 'a.txt': 'a\n', 'd/x': 'x' }));
    expect(dir.kind).toBe('is_directory');
    const under = failure(() => plan(patchOf('*** Update File: a.txt', '*** Move to: b.txt/c', '@@', '-a'), { 'a.txt': 'a\n', 'b.txt': 'b' }));
    expect(under.kind).toBe('already_exists');
  });

  it('a move onto itself is a plain update (the reference would lose the file)', () => {
    const p = plan(patchOf('*** Update File: a.txt', '*** Move to: a.txt', '@@', '-a', '+b'), { 'a.txt': 'a\n' });
    expect(text(p.files.get('a.txt'))).toBe('b\n');
    expect(p.changes).toEqual([{ op: 'M', path: 'a.txt' }]);
    expect(p.summary).toEqual(['M a.txt']);
    expect(p.warnings).toEqual([]);
  });

  it('a pure rename moves the bytes as they are, binary included', () => {
    const p = plan(patchOf('*** Update File: img/logo.png', '*** Move to: assets/logo.png'), { 'img/logo.png': PNG });
    expect(p.files.get('assets/logo.png')).toEqual(PNG);
    expect(p.files.get('img/logo.png')).toBeNull();
    expect(p.changes).toEqual([{ op: 'R', path: 'assets/logo.png', from: 'img/logo.png' }]);
    // no decoding at all: an unterminated, CRLF, latin-1 text stays byte for byte
    const q = plan(patchOf('*** Update File: a', '*** Move to: b'), { a: LATIN1 });
    expect(q.files.get('b')).toEqual(LATIN1);
  });

  it('rename chains collapse to one R; a move back is no change', () => {
    const chain = plan(patchOf('*** Update File: a', '*** Move to: b', '@@', '-1', '+2', '*** Update File: b', '*** Move to: c', '@@', '-2', '+3'), {
      a: '1\n',
    });
    expect(chain.changes).toEqual([{ op: 'R', path: 'c', from: 'a' }]);
    expect(chain.summary).toEqual(['M b', 'M c']);
    const back = plan(patchOf('*** Update File: a', '*** Move to: b', '*** Update File: b', '*** Move to: a'), { a: 'x\n' });
    expect(back.changes).toEqual([]);
  });

  it('a moved-away file re-created at the source: the destination is an addition', () => {
    const p = plan(patchOf('*** Update File: a', '*** Move to: b', '*** Add File: a', '+fresh'), { a: 'x\n' });
    expect(p.changes).toEqual([
      { op: 'M', path: 'a' },
      { op: 'A', path: 'b' },
    ]);
  });
});

describe('planPatch: several hunks', () => {
  it('later hunks see earlier results', () => {
    const p = plan(
      patchOf('*** Add File: n.txt', '+one', '+two', '*** Update File: n.txt', '@@', '-two', '+TWO', '*** Update File: n.txt', '@@', ' one', '+1.5'),
      {},
    );
    expect(text(p.files.get('n.txt'))).toBe('one\n1.5\nTWO\n');
    expect(p.changes).toEqual([{ op: 'A', path: 'n.txt' }]);
    expect(p.summary).toEqual(['A n.txt', 'M n.txt', 'M n.txt']);
  });

  it('add then delete of a new path is no change at all', () => {
    const p = plan(patchOf('*** Add File: tmp.txt', '+x', '*** Delete File: tmp.txt'), {});
    expect(p.changes).toEqual([]);
    expect(p.files.get('tmp.txt')).toBeNull();
    expect(p.summary).toEqual(['A tmp.txt', 'D tmp.txt']);
  });

  it('delete then add of the same path is a modification', () => {
    const p = plan(patchOf('*** Delete File: f', '*** Add File: f', '+new'), { f: 'old\n' });
    expect(p.changes).toEqual([{ op: 'M', path: 'f' }]);
    expect(p.warnings).toEqual([]);
  });

  it('a deleted file frees its path for a directory', () => {
    const p = plan(patchOf('*** Delete File: x', '*** Add File: x/y', '+z'), { x: 'file' });
    expect(p.changes).toEqual([
      { op: 'D', path: 'x' },
      { op: 'A', path: 'x/y' },
    ]);
  });

  it('fails atomically: nothing of a failing patch is returned', () => {
    const files = treeOf({ 'keep.txt': 'k\n' });
    const e = failure(() =>
      planPatch(
        {
          hunks: [
            { kind: 'add', path: 'created.txt', contents: 'hello\n', line: 2 },
            { kind: 'update', path: 'missing.txt', moveTo: null, chunks: [], line: 4 },
          ],
          text: '',
        },
        lookupOf(files),
      ),
    );
    expect(e.kind).toBe('file_not_found');
    expect(e.data.path).toBe('missing.txt');
    expect([...files.keys()]).toEqual(['keep.txt']);
  });

  it('an empty hunk list is "No files were modified."', () => {
    const empty: Patch = { hunks: [], text: '' };
    const e = failure(() => planPatch(empty, lookupOf(new Map())));
    expect(e.kind).toBe('no_changes');
    expect(e.message).toBe('No files were modified.');
  });

  it('changes list paths in order of first touch', () => {
    const p = plan(patchOf('*** Update File: z', '@@', '-z', '+Z', '*** Add File: a', '+a', '*** Delete File: m'), { z: 'z\n', m: 'm\n' });
    expect(p.changes.map((c) => c.path)).toEqual(['z', 'a', 'm']);
  });

  it('only touched paths are in the plan; untouched files stay as they are', () => {
    const files = treeOf({ 'a.txt': 'a\r\nb\r\n', 'bin.dat': PNG });
    const p = planPatch({ hunks: [{ kind: 'delete', path: 'a.txt', line: 2 }], text: '' }, lookupOf(files));
    expect([...p.files.keys()]).toEqual(['a.txt']);
    const out = applyPlan(files, p);
    expect([...out.keys()]).toEqual(['bin.dat']);
    expect(out.get('bin.dat')).toBe(PNG);
  });
});

describe('planPatch: end to end through the parser', () => {
  it('stacked @@ headers and pure additions under a header', () => {
    const out = run(
      patchOf(
        '*** Update File: app.py',
        '@@ class B:',
        '@@ def run(self):',
        '+        log()',
        ' ',
        '@@ def other(self):',
        '-        pass',
        '+        return 2',
      ),
      { 'app.py': 'class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n\n    def other(self):\n        pass\n' },
    );
    expect(out['app.py']).toBe(
      'class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n        log()\n\n    def other(self):\n        return 2\n',
    );
  });

  it('a stacked @@ header the cursor has passed is found again as the scope of the next chunk', () => {
    const file = 'class Other:\n    def second():\n        pass\nclass Target:\n    def first():\n        pass\n\n    def second():\n        pass\n';
    const patch = patchOf(
      '*** Update File: t.py',
      '@@ class Target:',
      '@@     def first():',
      '-        pass',
      '+        return 1',
      '@@ class Target:',
      '@@     def second():',
      '-        pass',
      '+        return 2',
    );
    const p = plan(patch, { 't.py': file }, { strict: true });
    expect(text(p.files.get('t.py'))).toBe(
      'class Other:\n    def second():\n        pass\nclass Target:\n    def first():\n        return 1\n\n    def second():\n        return 2\n',
    );
    // a whole stack repeated, one level deeper each time
    const nested = 'class T:\n    def f():\n        if a:\n            x = 1\n        if b:\n            x = 1\n';
    const out = run(
      patchOf(
        '*** Update File: n.py',
        '@@ class T:',
        '@@ def f():',
        '@@ if a:',
        '-            x = 1',
        '+            x = 2',
        '@@ class T:',
        '@@ def f():',
        '@@ if b:',
        '-            x = 1',
        '+            x = 3',
      ),
      { 'n.py': nested },
    );
    expect(out['n.py']).toBe('class T:\n    def f():\n        if a:\n            x = 2\n        if b:\n            x = 3\n');
  });

  it('a passed @@ header is found again only as a scope an earlier chunk opened, outermost first', () => {
    const file = 'class A:\n    pass\nclass B:\n    def run():\n        pass\n';
    // `class A` was never a chunk's scope here: still out of file order
    const e = failure(() =>
      plan(patchOf('*** Update File: t.py', '@@ class B:', '@@ def run():', '-        pass', '+        x', '@@ class A:', '-    pass', '+    y'), {
        't.py': file,
      }),
    );
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain("Failed to find context 'class A:' in t.py");
    // nor is a header below the first of its stack that points back
    const e2 = failure(() =>
      plan(patchOf('*** Update File: t.py', '@@ class A:', '-    pass', '+    y', '@@ class B:', '@@ class A:', '-        pass', '+        x'), {
        't.py': file,
      }),
    );
    expect(e2.message).toContain("Failed to find context 'class A:' in t.py");
  });

  it("a header written '@@ def f(): @@' (hermes) is read as '@@ def f():' with a warning naming the form", () => {
    const file = 'def g():\n    return 1\ndef f():\n    return 1\n';
    const p = plan(patchOf('*** Update File: f.py', '@@ def f(): @@', '-    return 1', '+    return 2'), { 'f.py': file }, { strict: true });
    expect(text(p.files.get('f.py'))).toBe('def g():\n    return 1\ndef f():\n    return 2\n');
    expect(p.warnings).toEqual([expect.objectContaining({ kind: 'nonstandard_form', path: 'f.py', chunk: 1, line: 3 })]);
    expect(p.warnings[0]!.message).toContain("'@@ def f(): @@'");
    expect(p.warnings[0]!.message).toContain("'@@ def f():'");
    // a file line that really ends in ' @@' is found as written, without a warning
    const literal = plan(patchOf('*** Update File: n.md', '@@ title @@', '-x', '+y'), { 'n.md': 'x\ntitle @@\nx\n' });
    expect(text(literal.files.get('n.md'))).toBe('x\ntitle @@\ny\n');
    expect(literal.warnings).toEqual([]);
  });

  it('a BOM file keeps its BOM; CRLF stays CRLF', () => {
    const out = run(patchOf('*** Update File: w.txt', '@@', '-first', '+FIRST'), { 'w.txt': '\ufefffirst\r\nsecond\r\n' });
    expect(out['w.txt']).toBe('\ufeffFIRST\r\nsecond\r\n');
  });

  it('bytes helper round trip', () => {
    expect(text(bytes('é'))).toBe('é');
  });
});
