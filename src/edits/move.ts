// `move {from, to, overwrite?}`: a file renamed with its bytes and mode as they are (a binary file
// too). A destination that exists is an error (`already_exists`) unless overwrite is set.
import type { Hunk } from '../patch/types.js';
import type { OpFields } from './fields.js';

export interface MoveOp {
  op: 'move';
  from: string;
  to: string;
  overwrite?: boolean;
}

export function readMove(f: OpFields): MoveOp {
  const op: MoveOp = { op: 'move', from: f.path('from'), to: f.path('to') };
  if (op.from === op.to) throw f.error(`'from' and 'to' are the same path: the move would change nothing`, 'to');
  if (f.optionalBoolean('overwrite')) op.overwrite = true;
  return op;
}

export function moveHunks(op: MoveOp, index: number): Hunk[] {
  return [{ kind: 'update', path: op.from, moveTo: op.to, chunks: [], line: 0, exclusive: op.overwrite !== true, origin: { index, name: 'move' } }];
}
