// Object ids are SHA-1 over "<type> <size>\0<content>" (patchtx refuses SHA-256 repositories).
import { createHash } from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** The framed object as stored (before deflate): header + content. */
export function frameObject(type: ObjectType, content: Uint8Array): Buffer {
  const header = Buffer.from(`${type} ${content.byteLength}\0`, 'latin1');
  return Buffer.concat([header, content]);
}

export function hashObject(type: ObjectType, content: Uint8Array): string {
  return createHash('sha1').update(`${type} ${content.byteLength}\0`, 'latin1').update(content).digest('hex');
}

export function hashBlob(content: Uint8Array): string {
  return hashObject('blob', content);
}
