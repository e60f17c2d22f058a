// A list of edit operations (the JSON of `patchtx apply --ops`, the library's tx.edit, the MCP
// `edit` tool) read into a Patch: each operation becomes hunks that the engine applies in order
// over the same overlay as V4A hunks, so each operation sees the ones before it, and the whole
// list is one commit or nothing. A hunk remembers its operation's index, which its errors name.
import { PatchtxError } from '../errors.js';
import type { Patch } from '../patch/types.js';
import { createHunks, readCreate, type CreateOp } from './create.js';
import { deleteHunks, readDelete, type DeleteOp } from './delete.js';
import { describe, OpFields } from './fields.js';
import { insertHunks, readInsert, type InsertOp } from './insert.js';
import { moveHunks, readMove, type MoveOp } from './move.js';
import { readStrReplace, strReplaceHunks, type StrReplaceOp } from './str-replace.js';

export type { CreateOp, DeleteOp, InsertOp, MoveOp, StrReplaceOp };
export type EditOp = StrReplaceOp | InsertOp | CreateOp | DeleteOp | MoveOp;

const VERBS = {
  str_replace: { fields: ['path', 'old', 'new', 'replaceAll'], read: readStrReplace },
  insert: { fields: ['path', 'line', 'text'], read: readInsert },
  create: { fields: ['path', 'content', 'overwrite'], read: readCreate },
  delete: { fields: ['path'], read: readDelete },
  move: { fields: ['from', 'to', 'overwrite'], read: readMove },
} as const;

export const EDIT_VERBS = Object.keys(VERBS) as (keyof typeof VERBS)[];

/** Operations given as JSON values (one object, or an array of them), checked. */
export function readOps(value: unknown): EditOp[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw new PatchtxError('parse_error', 'the list of operations is empty: there is nothing to do', { format: 'ops' });
  return list.map((item, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new PatchtxError('parse_error', `operations[${index}]: an operation must be an object with an 'op' field, got ${describe(item)}`, {
        operation: index,
        format: 'ops',
      });
    }
    const o = item as Record<string, unknown>;
    const name = o.op;
    if (typeof name !== 'string' || !Object.hasOwn(VERBS, name)) {
      throw new PatchtxError('parse_error', `operations[${index}]: 'op' must be one of ${EDIT_VERBS.join(', ')}, got ${describe(name)}`, {
        operation: index,
        format: 'ops',
        field: 'op',
      });
    }
    const verb = VERBS[name as keyof typeof VERBS];
    return verb.read(new OpFields(index, name, o, verb.fields));
  });
}

/** JSON text of operations (`--ops FILE`), read and checked. */
export function parseOpsText(text: string): EditOp[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PatchtxError('parse_error', `the operations are not valid JSON: ${(e as Error).message}`, { format: 'ops' });
  }
  return readOps(value);
}

/** The operations as one patch, in order. */
export function opsPatch(ops: readonly EditOp[]): Patch {
  const hunks = ops.flatMap((op, index) => {
    switch (op.op) {
      case 'str_replace':
        return strReplaceHunks(op, index);
      case 'insert':
        return insertHunks(op, index);
      case 'create':
        return createHunks(op, index);
      case 'delete':
        return deleteHunks(op, index);
      case 'move':
        return moveHunks(op, index);
    }
  });
  return { hunks, text: JSON.stringify(ops) };
}
