// The edit operations as the pure engine applies them (no repository): each verb's placement and
// line-ending rules, and the checks of the operations' JSON, each error naming the operation.
import { describe, expect, it } from 'vitest';
import { opsPatch, readOps } from '../../src/edits/ops.js';
import { parseStep } from '../../src/edits/step.js';
import { applyPatch, planPatch, PatchtxError } from '../../src/index.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The operations applied to `files`: the final text of every touched path (null: removed). */
function run(files: Record<string, string>, ops: unknown): Record<string, string | null> {
  const plan = planPatch(opsPatch(readOps(ops)), {
    read: (p) => (files[p] === undefined ? undefined : enc.encode(files[p])),
    isDirectory: (p) => Object.keys(files).some((f) => f.startsWith(p + '/')),
  });
  return Object.fromEntries([...plan.files].map(([p, b]) => [p, b === null ? null : dec.decode(b)]));
}

function thrown(fn: () => unknown): PatchtxError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error('expected an error');
}

describe('str_replace', () => {
  it('takes $ patterns in the new text literally', () => {
    expect(run({ f: 'a b a\n' }, { op: 'str_replace', path: 'f', old: 'b', new: "$& $' $1 $$" })).toEqual({ f: "a $& $' $1 $$ a\n" });
  });

  it('replaces every occurrence with replaceAll, and sees the operations before it', () => {
    const ops = [
      { op: 'str_replace', path: 'f', old: 'x', new: 'yx', replaceAll: true },
      { op: 'str_replace', path: 'f', old: 'yxyx', new: 'z' },
    ];
    expect(run({ f: 'xx\n' }, ops)).toEqual({ f: 'z\n' });
  });

  it('matches old text written with \\n in a CRLF file, and writes new lines with \\r\\n', () => {
    expect(run({ f: 'a\r\nb\r\nc\r\n' }, { op: 'str_replace', path: 'f', old: 'a\nb\n', new: 'A\nB\nB2\n' })).toEqual({ f: 'A\r\nB\r\nB2\r\nc\r\n' });
    // an LF file stays LF
    expect(run({ f: 'a\nb\n' }, { op: 'str_replace', path: 'f', old: 'a', new: 'x\ny' })).toEqual({ f: 'x\ny\nb\n' });
  });

  it('names the closest region and the first difference when the old text is not there', () => {
    const e = thrown(() =>
      run({ f: 'one\n\ttwo\nthree\n' }, [
        { op: 'delete', path: 'g' },
        { op: 'str_replace', path: 'f', old: 'one\n  two\n', new: 'x' },
      ]),
    );
    // the first operation fails first: g does not exist
    expect(e.kind).toBe('file_not_found');
    expect(e.data.operation).toBe(0);
    const e2 = thrown(() => run({ f: 'one\n\ttwo\nthree\n' }, { op: 'str_replace', path: 'f', old: 'one\n  two\n', new: 'x' }));
    expect(e2.kind).toBe('context_not_found');
    expect(e2.data.candidates).toEqual([1]);
    expect(e2.message).toContain('First difference at line 2:');
    expect(e2.message).toContain('file: →two');
  });
});

describe('insert', () => {
  const file = 'a\nb\n';
  it.each([
    [0, 'x', 'x\na\nb\n'],
    [1, 'x\n', 'a\nx\nb\n'],
    [2, 'x\ny', 'a\nb\nx\ny\n'],
  ])('after line %i', (line, text, want) => {
    expect(run({ f: file }, { op: 'insert', path: 'f', line, text })).toEqual({ f: want });
  });

  it('keeps a missing final newline missing, and CRLF line endings', () => {
    expect(run({ f: 'a\nb' }, { op: 'insert', path: 'f', line: 2, text: 'c\n' })).toEqual({ f: 'a\nb\nc' });
    expect(run({ f: 'a\r\nb\r\n' }, { op: 'insert', path: 'f', line: 1, text: 'x\ny' })).toEqual({ f: 'a\r\nx\r\ny\r\nb\r\n' });
  });

  it('a line beyond the end is an error naming the line count', () => {
    const e = thrown(() => run({ f: file }, { op: 'insert', path: 'f', line: 3, text: 'x' }));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toBe('operations[0] (insert): cannot insert after line 3 of f: the file has 2 lines');
  });
});

describe('create, delete, move', () => {
  it('a file created, moved and deleted within the list', () => {
    const ops = [
      { op: 'create', path: 'd/new', content: 'no final newline' },
      { op: 'move', from: 'd/new', to: 'e/new' },
      { op: 'delete', path: 'old' },
    ];
    expect(run({ old: 'x\n' }, ops)).toEqual({ 'd/new': null, 'e/new': 'no final newline', old: null });
  });

  it('create refuses a directory and a path below a file', () => {
    expect(thrown(() => run({ 'd/f': 'x' }, { op: 'create', path: 'd', content: '' })).kind).toBe('is_directory');
    expect(thrown(() => run({ f: 'x' }, { op: 'create', path: 'f/g', content: '' })).kind).toBe('already_exists');
  });
});

describe('reading the operations', () => {
  it.each([
    [[], 'the list of operations is empty: there is nothing to do'],
    [[42], "operations[0]: an operation must be an object with an 'op' field, got number 42"],
    [[{ op: 'str_replace', path: 'f', old: 'a' }], "operations[0] (str_replace): 'new' must be a string, got nothing"],
    [[{ op: 'create', path: 'f', content: '', mode: 'x' }], "operations[0] (create): unknown field 'mode' (create takes path, content, overwrite)"],
    [
      [
        { op: 'delete', path: 'f' },
        { op: 'insert', path: 'f', line: -1, text: '' },
      ],
      "operations[1] (insert): 'line' must be a whole number (0 or more), got number -1",
    ],
    [[{ op: 'move', from: 'a', to: 'a' }], "operations[0] (move): 'from' and 'to' are the same path: the move would change nothing"],
    [
      [{ op: 'str_replace', path: 'f', old: 'a', new: 'a' }],
      "operations[0] (str_replace): 'old' and 'new' are the same text: the operation would change nothing",
    ],
  ])('%j: %s', (ops, message) => {
    const e = thrown(() => readOps(ops));
    expect(e.kind).toBe('parse_error');
    expect(e.message).toBe(message);
  });

  it('refuses paths a patch could not name', () => {
    for (const p of ['/abs', 'a/../b', '.git/config', '']) {
      const e = thrown(() => readOps([{ op: 'delete', path: p }]));
      expect(e.kind).toBe('path_rejected');
      expect(e.data.operation).toBe(0);
    }
  });
});

describe('bounds and the in-memory library', () => {
  it('a list beyond the operations limit is limit_exceeded naming the first operation over', () => {
    const ops = Array.from({ length: 4 }, (_, i) => ({ op: 'delete' as const, path: `f${i}` }));
    const e = thrown(() => parseStep({ ops }, { limits: { operations: 3 } }));
    expect(e.kind).toBe('limit_exceeded');
    expect(e.data).toMatchObject({ limit: 'operations', max: 3, operation: 3 });
    expect(parseStep({ ops }, { limits: { operations: 4 } }).patch.hunks).toHaveLength(4);
  });

  it('applyPatch takes a unified diff and Aider blocks as well as V4A', () => {
    const diff = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n';
    expect(applyPatch(diff, { f: 'a\nb\n' }).files).toEqual({ f: 'a\nB\n' });
    const blocks = 'f\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n';
    expect(applyPatch(blocks, { f: 'a\nb\n' }).files).toEqual({ f: 'a\nc\n' });
  });
});
