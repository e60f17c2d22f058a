// PatchedTree's view of directories: a path is a directory while a file the patch wrote lies
// below it (or the base says so), through any sequence of creates, replaces, removes and moves.
import { describe, expect, it } from 'vitest';
import { FileContent, type ContentLookup } from '../../src/engine/content.js';
import { PatchedTree } from '../../src/engine/patched-tree.js';
import { prng } from '../helpers/schedule.js';

const base: ContentLookup = { read: () => undefined, isDirectory: (p) => p === 'kept' };
const content = FileContent.ofText('x\n');

describe('PatchedTree.isDirectory', () => {
  it('follows the files written below a path as they are created, moved and removed', () => {
    const tree = new PatchedTree(base);
    tree.create('a/b/c.txt', content);
    expect([tree.isDirectory('a'), tree.isDirectory('a/b'), tree.isDirectory('a/b/c.txt')]).toEqual([true, true, false]);
    tree.move('a/b/c.txt', 'd/e.txt', content);
    expect([tree.isDirectory('a'), tree.isDirectory('a/b'), tree.isDirectory('d')]).toEqual([false, false, true]);
    tree.replace('d/e.txt', content);
    tree.remove('d/e.txt');
    tree.remove('d/e.txt');
    expect(tree.isDirectory('d')).toBe(false);
    // a directory of the base stays one, whatever the patch removed below it
    tree.create('kept/x', content);
    tree.remove('kept/x');
    expect(tree.isDirectory('kept')).toBe(true);
  });

  it('agrees with a look through every write, for random sequences of operations', () => {
    const rand = prng(17);
    const paths = ['a', 'a/b', 'a/b/c', 'a/d', 'e/f', 'e/f/g/h', 'e/i'];
    const dirs = ['a', 'a/b', 'a/b/c', 'e', 'e/f', 'e/f/g', 'x'];
    for (let round = 0; round < 200; round++) {
      const tree = new PatchedTree(base);
      const live = new Set<string>();
      // the counts are made at the first question: after a few writes, or none
      const firstQuestion = Math.floor(rand() * 12);
      for (let step = 0; step < 12; step++) {
        const p = paths[Math.floor(rand() * paths.length)]!;
        const op = Math.floor(rand() * 4);
        if (op === 0) {
          tree.create(p, content);
          live.add(p);
        } else if (op === 1) {
          tree.replace(p, content);
          live.add(p);
        } else if (op === 2) {
          tree.remove(p);
          live.delete(p);
        } else {
          const to = paths[Math.floor(rand() * paths.length)]!;
          tree.move(p, to, content);
          live.delete(p);
          live.add(to);
        }
        if (step < firstQuestion) continue;
        for (const d of dirs) expect(tree.isDirectory(d)).toBe([...live].some((f) => f.startsWith(`${d}/`)));
      }
    }
  });
});
