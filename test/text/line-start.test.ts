// hasLineOf answers what the multiline regular expressions telling patch formats apart answer,
// wherever the line starts (after \n, \r, U+2028, U+2029, or at the text's start).
import { describe, expect, it } from 'vitest';
import { hasLineOf } from '../../src/text/line-start.js';
import { isAiderBlocks } from '../../src/edits/aider.js';
import { isUnifiedDiff } from '../../src/edits/unified.js';
import { prng } from '../helpers/schedule.js';

const aider = (t: string): boolean => /^<{5,9} SEARCH[ \t]*\r?$/m.test(t);
const diff = (t: string): boolean => /^diff --git /m.test(t) || /^--- [^\n]*\r?\n\+\+\+ [^\n]*\r?\n@@ -/m.test(t);

const texts = [
  '',
  '<<<<<<< SEARCH',
  '<<<<<<< SEARCH\n',
  'a.txt\n<<<<<<< SEARCH \t\r\nold\n=======\nnew\n>>>>>>> REPLACE\n',
  ' <<<<<<< SEARCH\n',
  '<<<< SEARCH\n',
  '<<<<<<<<<< SEARCH\n',
  'x<<<<<<< SEARCH\n<<<<<<<SEARCH\n',
  'x\r<<<<<<< SEARCH',
  'x\u2028<<<<<<< SEARCH\u2029y',
  '+<<<<<<< SEARCH\n',
  '<<<<<<< SEARCH x\n<<<<<<< SEARCH\n',
  'diff --git a/x b/x\n',
  ' diff --git a/x b/x\n',
  'x\rdiff --git a',
  '--- a/x\n+++ b/x\n@@ -1 +1 @@\n',
  '--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n',
  '--- a/x\n+++ b/x\n@@ +1 @@\n',
  'y\n--- a\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n',
  '*** Begin Patch\n*** Update File: a\n@@\n--- old\n+++ new\n@@ -x\n*** End Patch\n',
  '*** Begin Patch\n*** Update File: a\n@@\n---- x\n*** End Patch\n',
];

describe('hasLineOf', () => {
  it.each(texts.map((t) => [t]))('tells the formats of %j as the regular expressions do', (t) => {
    expect(isAiderBlocks(t)).toBe(aider(t));
    expect(isUnifiedDiff(t)).toBe(diff(t));
  });

  it('agrees with them on random texts made of their pieces', () => {
    const rand = prng(20);
    const pieces = [
      '<<<<<',
      '<<',
      ' SEARCH',
      ' ',
      '\t',
      '\r',
      '\n',
      '\u2028',
      'diff --git ',
      'diff',
      ' --git ',
      '--git ',
      '--- ',
      '+++ ',
      '@@ -',
      'x',
      '-',
      '+',
    ];
    for (let i = 0; i < 3000; i++) {
      let t = '';
      const n = Math.floor(rand() * 12);
      for (let k = 0; k < n; k++) t += pieces[Math.floor(rand() * pieces.length)]!;
      expect([isAiderBlocks(t), isUnifiedDiff(t)]).toEqual([aider(t), diff(t)]);
    }
  });

  it('finds a line by its start alone, only where a line starts', () => {
    expect(hasLineOf('ab\ncd', 'cd')).toBe(true);
    expect(hasLineOf('ab cd', 'cd')).toBe(false);
    expect(hasLineOf('cd', 'cd')).toBe(true);
    expect(hasLineOf('xcd\u2029cd', 'cd')).toBe(true);
    // searched for by a part of it
    expect(hasLineOf('ab\ncd ef', 'cd ef', undefined, ' ef')).toBe(true);
    expect(hasLineOf('x ef\nd ef\ncd eg', 'cd ef', undefined, ' ef')).toBe(false);
    expect(hasLineOf(' ef', 'cd ef', undefined, ' ef')).toBe(false);
  });
});
