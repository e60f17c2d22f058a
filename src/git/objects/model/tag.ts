// Annotated tag objects, only as far as peeling needs: `object <oid>\ntype <type>\n...`.
import { PatchtxError } from '../../../errors.js';
import type { ObjectType } from '../hash.js';

export interface TagTarget {
  object: string;
  type: ObjectType;
}

export function parseTagTarget(data: Uint8Array, oid = '(tag)'): TagTarget {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 200)).toString('latin1');
  const m = /^object ([0-9a-f]{40})\ntype (blob|tree|commit|tag)\n/.exec(head);
  if (!m) throw new PatchtxError('corrupt_repository', `malformed tag object ${oid}`, { oid });
  return { object: m[1]!, type: m[2] as ObjectType };
}
