// `delete {path}`: the file is removed; a path with no file is an error (`file_not_found`), as
// V4A's Delete File is.
import type { Hunk } from '../patch/types.js';
import type { OpFields } from './fields.js';

export interface DeleteOp {
  op: 'delete';
  path: string;
}

export function readDelete(f: OpFields): DeleteOp {
  return { op: 'delete', path: f.path('path') };
}

export function deleteHunks(op: DeleteOp, index: number): Hunk[] {
  return [{ kind: 'delete', path: op.path, line: 0, origin: { index, name: 'delete' } }];
}
