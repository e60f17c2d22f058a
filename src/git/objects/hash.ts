// Object ids are SHA-1 over "<type> <size>\0<content>" (patchtx refuses SHA-256 repositories).
import * as crypto from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** The framed object as stored (before deflate): header + content. */
export function frameObject(type: ObjectType, content: Uint8Array): Buffer {
  const header = Buffer.from(`${type} ${content.byteLength}\0`, 'latin1');
  return Buffer.concat([header, content]);
}

/**
 * Objects framed up to this size are hashed in one call over a buffer kept for the purpose: making
 * a Hash object and feeding it twice cost as much as hashing a small object's bytes, and a
 * transaction hashes thousands of them. Larger ones go through a Hash object, uncopied.
 */
const FRAMED_AT_ONCE_MAX = 64 * 1024;
let framing: Buffer | undefined;
// crypto.hash is there from Node 20.12 on; before, every object goes through a Hash object
const hashAtOnce = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function hashObject(type: ObjectType, content: Uint8Array): string {
  const header = `${type} ${content.byteLength}\0`;
  if (hashAtOnce !== undefined && header.length + content.byteLength <= FRAMED_AT_ONCE_MAX) {
    framing ??= Buffer.allocUnsafeSlow(FRAMED_AT_ONCE_MAX);
    const at = framing.write(header, 0, 'latin1');
    framing.set(content, at);
    return hashAtOnce('sha1', framing.subarray(0, at + content.byteLength), 'hex');
  }
  return crypto.createHash('sha1').update(header, 'latin1').update(content).digest('hex');
}

export function hashBlob(content: Uint8Array): string {
  return hashObject('blob', content);
}
