// The zlib level of a transaction's pack follows the user's config as git's loose objects do
// (store.ts looseCompression): core.looseCompression, else core.compression, else 1. Checked on the
// pack itself: every entry's zlib header records its level class, and level 0 leaves the data in
// stored (uncompressed) deflate blocks; git must read the pack, verify it and repack it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../src/index.js';
import { GitConfig } from '../../../src/git/repo/config.js';
import { looseCompression } from '../../../src/git/objects/store.js';
import { patchtx } from '../../helpers/cli.js';
import { cleanupRepos, git, gitTry, makeRepo } from '../../helpers/repos.js';
import type { PatchtxError } from '../../../src/errors.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../../helpers/scratch.js';
import { expectFsckClean } from '../../helpers/snapshot.js';

beforeAll(isolateGitEnv);
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const config = (text: string) => looseCompression(GitConfig.fromText(text));

describe('looseCompression', () => {
  it('takes core.looseCompression, else core.compression, else 1, as git does for loose objects', () => {
    expect(config('')).toBe(1);
    expect(config('[core]\n\tcompression = 0\n')).toBe(0);
    expect(config('[core]\n\tcompression = -1\n')).toBe(-1);
    expect(config('[core]\n\tcompression = 9\n\tlooseCompression = 3\n')).toBe(3);
    expect(config('[core]\n\tlooseCompression = 0\n\tcompression = 9\n')).toBe(0);
    // the last value of a key counts
    expect(config('[core]\n\tcompression = 2\n\tcompression = 7\n')).toBe(7);
  });

  it('reads a value as git reads an integer: base prefixes, leading blanks, k/m/g units', () => {
    expect(config('[core]\n\tcompression = 0x5\n')).toBe(5);
    expect(config('[core]\n\tcompression = 010\n')).toBe(8);
    expect(config('[core]\n\tcompression = +3\n')).toBe(3);
    expect(config('[core]\n\tcompression = 0k\n')).toBe(0);
    expect(config('[core]\n\tcompression = "  4"\n')).toBe(4);
  });

  it('refuses a value git refuses, with the message git gives (usage)', () => {
    const refusal = (text: string) => {
      try {
        config(text);
      } catch (e) {
        return e as PatchtxError;
      }
      throw new Error(`no refusal for ${JSON.stringify(text)}`);
    };
    const cases: Array<[string, string]> = [
      ['[core]\n\tcompression = 10\n', 'bad zlib compression level 10'],
      ['[core]\n\tlooseCompression = -2\n\tcompression = 4\n', 'bad zlib compression level -2'],
      ['[core]\n\tlooseCompression = 1k\n', 'bad zlib compression level 1024'],
      ['[core]\n\tcompression = fast\n', "bad numeric config value 'fast' for 'core.compression': invalid unit"],
      ['[core]\n\tlooseCompression =\n\tcompression = 4\n', "bad numeric config value '' for 'core.loosecompression': invalid unit"],
      ['[core]\n\tlooseCompression\n', "bad numeric config value '' for 'core.loosecompression': invalid unit"],
      ['[core]\n\tcompression = "5 "\n', "bad numeric config value '5 ' for 'core.compression': invalid unit"],
      ['[core]\n\tcompression = 9g\n', "bad numeric config value '9g' for 'core.compression': out of range"],
    ];
    for (const [text, message] of cases) {
      const e = refusal(text);
      expect(e.kind, text).toBe('usage');
      expect(e.message, text).toBe(message);
    }
    // every value counts, not only the last one of a key (git dies on the first bad one it reads)
    expect(refusal('[core]\n\tcompression = foo\n\tcompression = 1\n').message).toBe("bad numeric config value 'foo' for 'core.compression': invalid unit");
    // git's range check is on the magnitude
    expect(refusal('[core]\n\tcompression = -2147483648\n').message).toBe("bad numeric config value '-2147483648' for 'core.compression': out of range");
    // git reads both settings and refuses a bad one even where the other would decide
    expect(refusal('[core]\n\tlooseCompression = 3\n\tcompression = 12\n').message).toBe('bad zlib compression level 12');
  });

  it('refuses each value git refuses, and takes each value git takes (checked against git)', () => {
    const dir = makeRepo('basic');
    for (const value of [
      '10',
      'abc',
      '-2',
      '',
      '1k',
      '9g',
      '5 ',
      '0x5',
      '010',
      ' 5',
      '0k',
      '9',
      '+3',
      '-1',
      '-',
      ' ',
      'k',
      '08',
      '0x',
      '99999999999',
      '-2147483648',
      '-2g',
      '2147483647',
    ]) {
      const byGit = gitTry(dir, '-c', `core.looseCompression=${value}`, 'rev-parse', 'HEAD');
      let ours: string | null = null;
      try {
        looseCompression(GitConfig.fromText(`[core]\n\tlooseCompression = "${value}"\n`));
      } catch (e) {
        ours = (e as Error).message;
      }
      expect(ours === null, `${JSON.stringify(value)}: git says ${byGit.stderr}`).toBe(byGit.status === 0);
      if (ours !== null) expect(byGit.stderr).toContain(ours);
    }
  });
});

describe('a bad compression level stops a transaction before it writes anything', () => {
  it('the CLI refuses as git does (exit 2), and the branch, index and files stay as they were', async () => {
    const dir = makeRepo('basic');
    const head = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'config', 'core.compression', '12');
    const r = await patchtx('apply', '--repo', dir, patchFile(PATCH));
    expect(r.code).toBe(2);
    expect(r.err).toContain('bad zlib compression level 12');
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    git(dir, 'config', '--unset', 'core.compression'); // git refuses to run with it too
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

/** A source-like file that deflates well: a level above 0 shrinks it, level 0 stores it. */
const compressible = Array.from({ length: 200 }, (_, i) => `+export const value${i % 17} = compute(${i % 5}, 'same words again');`);

/** The entries of the packs in `dir` not in `before`: each one's zlib header and first deflate block type. */
function newEntries(dir: string, before: string[]): { type: string; size: number; packed: number; flevel: number; btype: number }[] {
  const packDir = path.join(dir, '.git/objects/pack');
  const added = readdirSync(packDir).filter((n) => n.endsWith('.idx') && !before.includes(n));
  expect(added).toHaveLength(1);
  const idx = path.join(packDir, added[0]!);
  const pack = readFileSync(idx.replace(/\.idx$/, '.pack'));
  return git(dir, 'verify-pack', '-v', idx)
    .split('\n')
    .map((l) => /^[0-9a-f]{40} (\w+) +(\d+) (\d+) (\d+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      let at = Number(m[4]);
      while (pack[at]! & 0x80) at++; // the entry header: type and size, base-128
      at++;
      const [cmf, flg, first] = [pack[at]!, pack[at + 1]!, pack[at + 2]!];
      expect(cmf & 0x0f).toBe(8); // deflate
      expect(((cmf << 8) | flg) % 31).toBe(0);
      return { type: m[1]!, size: Number(m[2]), packed: Number(m[3]), flevel: flg >> 6, btype: (first >> 1) & 3 };
    });
}

const packsOf = (dir: string) => readdirSync(path.join(dir, '.git/objects/pack'));

const PATCH = v4a('*** Add File: src/generated.ts', ...compressible);

describe("a transaction's pack is deflated at the configured level", () => {
  it('stores the objects uncompressed with core.compression=0 (CLI)', async () => {
    const dir = makeRepo('basic');
    git(dir, 'config', 'core.compression', '0');
    const before = packsOf(dir);
    const r = await patchtx('apply', '--repo', dir, patchFile(PATCH));
    expect(r.code, r.err).toBe(0);
    const entries = newEntries(dir, before);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) {
      expect(e.flevel).toBe(0);
      expect(e.btype).toBe(0); // a stored block
      expect(e.packed).toBeGreaterThan(e.size);
    }
    expectFsckClean(dir);
  });

  it('defaults to level 1, and core.looseCompression wins over core.compression (library)', async () => {
    const plain = makeRepo('basic');
    const before = packsOf(plain);
    await (await openRepository({ dir: plain })).apply(PATCH);
    const blob = newEntries(plain, before).find((e) => e.type === 'blob')!;
    expect(blob.flevel).toBe(0); // levels 0 and 1 share the class "fastest"
    expect(blob.btype).not.toBe(0);
    expect(blob.packed).toBeLessThan(blob.size / 2);

    const best = makeRepo('basic');
    git(best, 'config', 'core.compression', '0');
    git(best, 'config', 'core.looseCompression', '9');
    const bestBefore = packsOf(best);
    await (await openRepository({ dir: best })).apply(PATCH);
    const entries = newEntries(best, bestBefore);
    for (const e of entries) expect(e.flevel).toBe(3); // levels 7 to 9
    expectFsckClean(best);
    // git takes the pack in as it repacks
    git(best, 'gc', '-q', '--prune=now');
    expect(git(best, 'cat-file', '-p', 'HEAD:src/generated.ts')).toBe(compressible.map((l) => l.slice(1)).join('\n') + '\n');
    expectFsckClean(best);
  });
});
