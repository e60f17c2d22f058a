// Moves in `patchtx log` come from the stored patch (src/commands/moves.ts).
import { describe, expect, it } from 'vitest';
import type { FileChange } from '../../src/engine/types.js';
import { movedFrom, withMoves } from '../../src/commands/moves.js';

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

describe('movedFrom', () => {
  it('follows a chain of moves to where the content started', () => {
    const text = patch('*** Update File: a', '*** Move to: b', '*** Update File: b', '*** Move to: c');
    expect(movedFrom(text)).toEqual(new Map([['c', 'a']]));
  });

  it('forgets a destination that a later hunk deletes, and ignores a move onto itself', () => {
    const text = patch('*** Update File: a', '*** Move to: b', '*** Delete File: b', '*** Update File: x', '*** Move to: x', '@@', '-1', '+2');
    expect(movedFrom(text)).toEqual(new Map());
  });

  it('knows nothing from text that is not a patch', () => {
    expect(movedFrom('not a patch')).toEqual(new Map());
  });
});

describe('withMoves', () => {
  it('merges the D of the source and the A or M of the destination into one R, in place of the A', () => {
    const changes: FileChange[] = [
      { op: 'D', path: 'a' },
      { op: 'A', path: 'b' },
      { op: 'M', path: 'd' },
      { op: 'D', path: 'c' },
      { op: 'M', path: 'e' },
    ];
    expect(
      withMoves(
        changes,
        new Map([
          ['b', 'a'],
          ['d', 'c'],
        ]),
      ),
    ).toEqual([
      { op: 'R', path: 'b', from: 'a' },
      { op: 'R', path: 'd', from: 'c' },
      { op: 'M', path: 'e' },
    ]);
  });

  it('leaves D + A alone when the source was not deleted (a new file took its place)', () => {
    const changes: FileChange[] = [
      { op: 'M', path: 'a' },
      { op: 'A', path: 'b' },
    ];
    expect(withMoves(changes, new Map([['b', 'a']]))).toEqual(changes);
  });
});
