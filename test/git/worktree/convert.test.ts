// The pure conversions against git itself: for every attribute line × core.autocrlf × core.eol ×
// content, toGit must give what `git hash-object --path` stores and toWorktree what
// `git checkout-index` writes; core.safecrlf and the index rule are checked with `git add`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attributesOf, parseAttributes } from '../../../src/git/repo/attributes.js';
import { GitConfig } from '../../../src/git/repo/config.js';
import { conversionConfig, conversionFor, hasCrlfText, toGit, toWorktree, type Conversion } from '../../../src/git/worktree/convert.js';
import { gitEnv } from '../../helpers/repos.js';

const ATTRIBUTES = [
  '',
  'text',
  '-text',
  'text=auto',
  'text eol=lf',
  'text eol=crlf',
  'text=auto eol=lf',
  'text=auto eol=crlf',
  'eol=crlf',
  'eol=lf',
  '-text eol=crlf',
  'crlf=input',
  'ident',
  'text ident eol=crlf',
  'binary',
];
const CONTENTS: Record<string, string> = {
  lf: 'one\ntwo\nthree\n',
  crlf: 'one\r\ntwo\r\nthree\r\n',
  mixed: 'one\r\ntwo\nthree\r\n',
  noeol: 'one\ntwo',
  empty: '',
  nul: 'one\n\0two\n',
  lonecr: 'one\rtwo\n',
  control: 'one\x01\ntwo\n',
  // git's guess counts: one control character in 100 printable ones is binary, in 300 it is text
  control100: `${'x'.repeat(48)}\r\n\x01${'y'.repeat(50)}\r\n`,
  control300: `${'x'.repeat(148)}\r\n\x01${'y'.repeat(150)}\n`,
  ctrlz: 'one\ntwo\n\x1a',
  ident: 'a $Id$ b\r\nc $Id: old $\nd $Id: x y z $\ne $Id: broken\n$\n',
};
const CONFIGS: [string, string | undefined][] = [
  ['false', undefined],
  ['false', 'crlf'],
  ['true', undefined],
  ['input', undefined],
  ['input', 'crlf'],
  ['true', 'lf'],
];

function gitAt(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv, input, encoding: 'latin1', maxBuffer: 1 << 24 });
}

function conversionOf(file: string, attrLine: string, config: GitConfig): Conversion {
  const attrs = attributesOf(file, [parseAttributes(attrLine === '' ? '' : `${file} ${attrLine}\n`, '', '.gitattributes', true)]);
  return conversionFor(new Map([...attrs].map(([k, v]) => [k, v.value])), conversionConfig(config));
}

const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

describe('line-ending and ident conversion agree with git', () => {
  for (const [autocrlf, eol] of CONFIGS) {
    it(`core.autocrlf=${autocrlf}${eol ? ` core.eol=${eol}` : ''}: add and checkout of every attribute and content`, () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-convert-'));
      gitAt(dir, ['init', '-q']);
      gitAt(dir, ['config', 'core.autocrlf', autocrlf]);
      if (eol) gitAt(dir, ['config', 'core.eol', eol]);
      const config = GitConfig.fromText(`[core]\n\tautocrlf = ${autocrlf}\n${eol ? `\teol = ${eol}\n` : ''}`);
      const files: { name: string; attr: string; content: string }[] = [];
      ATTRIBUTES.forEach((attr, a) => {
        for (const [label, content] of Object.entries(CONTENTS)) files.push({ name: `f${a}-${label}.txt`, attr, content });
      });
      writeFileSync(
        path.join(dir, '.gitattributes'),
        files
          .filter((f) => f.attr !== '')
          .map((f) => `${f.name} ${f.attr}\n`)
          .join(''),
      );

      // add: git hash-object --path applies the conversions of the path to the given file
      for (const f of files) writeFileSync(path.join(dir, f.name), f.content, 'latin1');
      const stored = gitAt(dir, ['hash-object', '-w', '--stdin-paths'], files.map((f) => f.name).join('\n') + '\n')
        .trim()
        .split('\n');
      files.forEach((f, i) => {
        const c = conversionOf(f.name, f.attr, config);
        const ours = toGit(Buffer.from(f.content, 'latin1'), c);
        expect(latin1(ours.data), `${f.name} (${f.attr || 'no attributes'}) stored`).toBe(gitAt(dir, ['cat-file', 'blob', stored[i]!]));
      });

      // checkout: the raw contents as blobs, written out by git checkout-index
      const info = files.map((f) => `100644 ${gitAt(dir, ['hash-object', '-w', '--no-filters', f.name]).trim()}\t${f.name}`).join('\n') + '\n';
      gitAt(dir, ['update-index', '--index-info'], info);
      gitAt(dir, ['checkout-index', '-f', '-a']);
      for (const f of files) {
        const c = conversionOf(f.name, f.attr, config);
        expect(latin1(toWorktree(Buffer.from(f.content, 'latin1'), c)), `${f.name} (${f.attr || 'no attributes'}) checked out`).toBe(
          readFileSync(path.join(dir, f.name), 'latin1'),
        );
      }
    });
  }

  it('core.safecrlf=true refuses what checkout would not give back, as git add does', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-safecrlf-'));
    gitAt(dir, ['init', '-q']);
    let refused = 0;
    for (const [autocrlf, eol] of CONFIGS) {
      const config = GitConfig.fromText(`[core]\n\tautocrlf = ${autocrlf}\n\tsafecrlf = true\n${eol ? `\teol = ${eol}\n` : ''}`);
      for (const attr of ['', 'text', 'text=auto', 'text eol=lf', 'text eol=crlf', '-text']) {
        writeFileSync(path.join(dir, '.gitattributes'), attr === '' ? '' : `f.txt ${attr}\n`);
        for (const [label, content] of Object.entries(CONTENTS)) {
          writeFileSync(path.join(dir, 'f.txt'), content, 'latin1');
          const args = ['-c', `core.autocrlf=${autocrlf}`, '-c', 'core.safecrlf=true', ...(eol ? ['-c', `core.eol=${eol}`] : []), 'hash-object', '-w', 'f.txt'];
          const gitRefuses = spawnSync('git', args, { cwd: dir, env: gitEnv }).status !== 0;
          const c = conversionOf('f.txt', attr, config);
          expect(c.safecrlf).toBe('die');
          expect(toGit(Buffer.from(content, 'latin1'), c).lost !== null, `${autocrlf}/${eol}/${attr}/${label}`).toBe(gitRefuses);
          if (gitRefuses) refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('text=auto and core.autocrlf leave CRLF alone when the index entry already has it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-index-crlf-'));
    gitAt(dir, ['init', '-q']);
    writeFileSync(path.join(dir, 'f.txt'), 'a\r\nb\r\n');
    gitAt(dir, ['add', 'f.txt']);
    writeFileSync(path.join(dir, '.gitattributes'), 'f.txt text=auto\ng.txt text\n');
    writeFileSync(path.join(dir, 'f.txt'), 'a\r\nb\r\nc\n');
    gitAt(dir, ['add', 'f.txt']);
    const indexed = gitAt(dir, ['cat-file', 'blob', ':f.txt']);
    const config = new GitConfig();
    const c = conversionOf('f.txt', 'text=auto', config);
    expect(hasCrlfText(Buffer.from('a\r\nb\r\n'))).toBe(true);
    expect(latin1(toGit(Buffer.from('a\r\nb\r\nc\n'), c, true).data)).toBe(indexed);
    expect(indexed).toBe('a\r\nb\r\nc\n');
    // without it, or with text set, the CRs go
    expect(latin1(toGit(Buffer.from('a\r\nb\r\nc\n'), c, false).data)).toBe('a\nb\nc\n');
    expect(latin1(toGit(Buffer.from('a\r\nb\r\n'), conversionOf('g.txt', 'text', config), true).data)).toBe('a\nb\n');
    // binary-looking content with CRLF does not count
    expect(hasCrlfText(Buffer.from('a\r\nb\0\r\n'))).toBe(false);
  });
});
