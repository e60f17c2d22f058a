// `create {path, content, overwrite?}`: a new file with exactly this content (no newline added).
// An existing file is an error (`already_exists`) unless overwrite is set: a model that means to
// replace a file says so, and one that does not know the file is there does not lose it.
import type { Hunk } from '../patch/types.js';
import type { OpFields } from './fields.js';

export interface CreateOp {
  op: 'create';
  path: string;
  content: string;
  overwrite?: boolean;
}

export function readCreate(f: OpFields): CreateOp {
  const op: CreateOp = { op: 'create', path: f.path('path'), content: f.string('content') };
  if (f.optionalBoolean('overwrite')) op.overwrite = true;
  return op;
}

export function createHunks(op: CreateOp, index: number): Hunk[] {
  return [{ kind: 'add', path: op.path, contents: op.content, line: 0, exclusive: op.overwrite !== true, origin: { index, name: 'create' } }];
}
