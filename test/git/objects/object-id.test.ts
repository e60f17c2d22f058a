import { describe, expect, it } from 'vitest';
import { isObjectId } from '../../../src/git/objects/object-id.js';
import { hashBlob } from '../../../src/git/objects/hash.js';

describe('isObjectId', () => {
  it('takes 40 lowercase hex digits and nothing else', () => {
    const id = hashBlob(Buffer.from('x\n'));
    expect(isObjectId(id)).toBe(true);
    expect(isObjectId('0123456789abcdef0123456789abcdef01234567')).toBe(true);
    for (const bad of [
      '',
      id.slice(1),
      `${id}0`,
      id.toUpperCase(),
      `${id.slice(0, 39)}g`,
      `${id.slice(0, 39)}/`,
      `${id.slice(0, 39)}:`,
      `${id.slice(0, 39)}\``,
      `${id.slice(0, 39)}é`,
      `${id.slice(0, 39)}\u0131`,
      `${id.slice(0, 20)}\n${id.slice(21)}`,
    ]) {
      expect(isObjectId(bad)).toBe(false);
    }
  });
});
