// The comparison of a replayed result with the changes a log records (patch_apply_end): each
// kind of difference it must find, and the results it must let through.
import { describe, expect, it } from 'vitest';
import type { FileChange } from '../../src/engine/types.js';
import { PatchtxError } from '../../src/errors.js';
import type { RecordedChange } from '../../src/logs/types.js';
import { compareWithRecorded } from '../../src/commands/replay-verify.js';

const bytes = (t: string): Uint8Array => Buffer.from(t, 'utf8');
const toRepo = (w: string): string => w.replace(/^\/s\//, '');

/** A result: the files before and after (null: absent), and the changes between them. */
function result(before: Record<string, string | null>, after: Record<string, string | null>, changes: FileChange[]) {
  return {
    changes,
    before: (p: string) => (before[p] == null ? undefined : bytes(before[p]!)),
    after: (p: string) => (p in after ? (after[p] === null ? null : bytes(after[p]!)) : undefined),
  };
}

function mismatch(recorded: Record<string, RecordedChange>, files: ReturnType<typeof result>): PatchtxError {
  try {
    compareWithRecorded(new Map(Object.entries(recorded)), toRepo, files);
  } catch (e) {
    if (e instanceof PatchtxError) return e;
    throw e;
  }
  throw new Error('no mismatch was found');
}

const ok = (recorded: Record<string, RecordedChange>, files: ReturnType<typeof result>): void =>
  compareWithRecorded(new Map(Object.entries(recorded)), toRepo, files);

describe('compareWithRecorded', () => {
  it('lets through the same add, update (its hunks found before and after, CRLF or not), move and delete', () => {
    ok({ '/s/a.txt': { type: 'add', content: 'x\n' } }, result({}, { 'a.txt': 'x\r\n' }, [{ op: 'A', path: 'a.txt' }]));
    ok(
      { '/s/b.txt': { type: 'update', unifiedDiff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n' } },
      result({ 'b.txt': 'zero\none\ntwo\nthree\n' }, { 'b.txt': 'zero\none\nTWO\nthree\n' }, [{ op: 'M', path: 'b.txt' }]),
    );
    ok(
      { '/s/c.txt': { type: 'update', movePath: '/s/d/c.txt', unifiedDiff: '' } },
      result({ 'c.txt': 'c\n' }, { 'c.txt': null, 'd/c.txt': 'c\n' }, [{ op: 'R', path: 'd/c.txt', from: 'c.txt' }]),
    );
    ok({ '/s/e.txt': { type: 'delete' } }, result({ 'e.txt': 'e\n' }, { 'e.txt': null }, [{ op: 'D', path: 'e.txt' }]));
  });

  it('finds an add with other content, a delete that keeps the file, and a move that stays', () => {
    expect(mismatch({ '/s/a.txt': { type: 'add', content: 'x\n' } }, result({}, { 'a.txt': 'y\n' }, [{ op: 'A', path: 'a.txt' }])).data).toMatchObject({
      paths: ['a.txt'],
      reason: 'recorded_changes',
    });
    expect(mismatch({ '/s/e.txt': { type: 'delete' } }, result({ 'e.txt': 'e\n' }, {}, [])).kind).toBe('replay_mismatch');
    const stays = mismatch(
      { '/s/c.txt': { type: 'update', movePath: '/s/d.txt' } },
      result({ 'c.txt': 'c\n' }, { 'c.txt': 'C\n' }, [{ op: 'M', path: 'c.txt' }]),
    );
    expect(stays.data.paths).toEqual(['c.txt', 'd.txt']);
  });

  it('finds an update made at another place than the recorded hunk, and a change the log does not record', () => {
    const elsewhere = mismatch(
      { '/s/b.txt': { type: 'update', unifiedDiff: '@@ -2,2 +2,2 @@\n one\n-two\n+TWO\n' } },
      // the replay changed the other "two"
      result({ 'b.txt': 'one\ntwo\nx\ntwo\n' }, { 'b.txt': 'one\ntwo\nx\nTWO\n' }, [{ op: 'M', path: 'b.txt' }]),
    );
    expect(elsewhere.message).toMatch(/b\.txt: hunk 1 of the recorded diff/);
    const extra = mismatch(
      { '/s/a.txt': { type: 'add', content: 'x\n' } },
      result({}, { 'a.txt': 'x\n', 'b.txt': 'b\n' }, [
        { op: 'A', path: 'a.txt' },
        { op: 'A', path: 'b.txt' },
      ]),
    );
    expect(extra.data.paths).toEqual(['b.txt']);
    expect(extra.message).toMatch(/the log records no change to it/);
  });
});
