// The normal form a Patch-Id is hashed from: a patch written in it reads back as itself, whatever
// kinds of hunks it holds, so ids already stored in commits keep meaning the same patches.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalisePatch, patchId } from '../../src/commands/patch-id.js';
import { parsePatch } from '../../src/patch/parse.js';

const NORMAL = [
  '*** Begin Patch',
  '*** Add File: empty.txt',
  '*** Add File: blank.txt',
  '+',
  '*** Add File: src/three.txt',
  '+a',
  '+',
  '+b',
  '*** Update File: old.py',
  '*** Move to: new.py',
  '@@ class A',
  '@@ def b',
  ' a',
  '-b',
  '+c',
  '*** End of File',
  '*** Update File: z.txt',
  '@@',
  '-q',
  '+r',
  '@@ second',
  ' s',
  '+t',
  '*** Delete File: gone.txt',
  '*** End Patch',
  '',
].join('\n');

describe('normalisePatch', () => {
  it('writes a patch in the normal form back as it was, for every kind of hunk', () => {
    expect(normalisePatch(parsePatch(NORMAL))).toBe(NORMAL);
  });

  it('drops the spelling a patch may vary in (CRLF, padding around the envelope), not its meaning', () => {
    const spelled = '\n\n' + NORMAL.replaceAll('\n', '\r\n') + '\n';
    expect(normalisePatch(parsePatch(spelled))).toBe(NORMAL);
  });

  it('hashes the normal form into the Patch-Id', () => {
    expect(patchId(parsePatch(NORMAL))).toBe(createHash('sha256').update(NORMAL).digest('hex').slice(0, 40));
  });
});
