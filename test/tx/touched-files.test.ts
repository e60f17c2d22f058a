// The transaction's in-memory overlay (a memfs volume holding the touched paths only).
import { describe, expect, it } from 'vitest';
import { TouchedFiles } from '../../src/tx/touched-files.js';

describe('TouchedFiles', () => {
  it('gives back exactly the bytes put in, for nested paths sharing directories', () => {
    const overlay = new TouchedFiles();
    const files = new Map<string, Uint8Array>([
      ['a.txt', new Uint8Array([1, 2, 3])],
      ['src/deep/er/x.ts', new TextEncoder().encode('export {};\n')],
      ['src/deep/er/y.ts', new Uint8Array(0)],
      ['src/bin.dat', new Uint8Array([0, 255, 0, 128])],
    ]);
    for (const [path, data] of files) overlay.putFile(path, data);
    for (const [path, data] of files) expect(overlay.read(path)).toEqual(data);
  });

  it('takes the bytes over without a copy: a read is a view of the very bytes put, exactly their length', () => {
    const overlay = new TouchedFiles();
    const backing = new Uint8Array([7, 10, 20, 30, 8]);
    const data = backing.subarray(1, 4);
    overlay.putFile('f', data);
    const read = overlay.read('f')!;
    expect(read).toEqual(new Uint8Array([10, 20, 30]));
    expect(read.byteLength).toBe(3);
    expect(read.buffer).toBe(backing.buffer);
    expect(read.byteOffset).toBe(1);
  });

  it('gives each file a node of its own: many files under one directory keep their own bytes', () => {
    const overlay = new TouchedFiles();
    const files = Array.from({ length: 50 }, (_, i) => [`d/f${i}`, new Uint8Array([i, i + 1, i + 2].slice(0, 1 + (i % 3)))] as const);
    for (const [path, data] of files) overlay.putFile(path, data);
    overlay.putFile('d/f7', new Uint8Array([99]));
    for (const [path, data] of files) expect(overlay.read(path)).toEqual(path === 'd/f7' ? new Uint8Array([99]) : data);
  });

  it('reads nothing for a missing path or a directory, and knows the base directories it was told', () => {
    const overlay = new TouchedFiles();
    overlay.putFile('src/a.ts', new Uint8Array([1]));
    overlay.markDirectory('lib');
    expect(overlay.read('missing.txt')).toBeUndefined();
    expect(overlay.read('src')).toBeUndefined(); // a directory of the volume, not a file
    expect(overlay.read('src/a.ts/b')).toBeUndefined();
    expect(overlay.isDirectory('lib')).toBe(true);
    expect(overlay.isDirectory('src/a.ts')).toBe(false);
  });

  it('replaces a file put again, and refuses a file where a directory is or the reverse', () => {
    const overlay = new TouchedFiles();
    overlay.putFile('d/f', new Uint8Array([1, 2]));
    overlay.putFile('d/f', new Uint8Array([3]));
    expect(overlay.read('d/f')).toEqual(new Uint8Array([3]));
    expect(() => overlay.putFile('d/f/g', new Uint8Array([4]))).toThrow(/d\/f is a file/);
    expect(() => overlay.putFile('d', new Uint8Array([5]))).toThrow(/d is a directory/);
    expect(overlay.read('d/f')).toEqual(new Uint8Array([3]));
  });
});
