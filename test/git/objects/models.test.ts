import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hashObject } from '../../../src/git/objects/hash.js';
import { appendTrailers, parseCommit, readTrailers, serializeCommit } from '../../../src/git/objects/model/commit.js';
import { formatIdentity, formatTimezone, parseIdentity, parseTimezone } from '../../../src/git/objects/model/identity.js';
import {
  editParsedTree,
  editTreeBytes,
  entryKey,
  parseTree,
  parseTreeObject,
  serializeTree,
  type TreeEntry,
  type TreeMode,
} from '../../../src/git/objects/model/tree.js';
import { cleanupRepos, git, makeRepo } from '../../helpers/repos.js';
import { gitInput } from '../util.js';

afterAll(cleanupRepos);

describe('tree model', () => {
  it("sorts like git (a directory compares as name + '/') and hashes to git's oid", () => {
    const dir = makeRepo('empty');
    const blob = gitInput(dir, 'x\n', 'hash-object', '-w', '--stdin').trim();
    const sub = gitInput(dir, `100644 blob ${blob}\tinner\n`, 'mktree').trim();
    const entries: TreeEntry[] = [
      { mode: '100644', name: 'a.txt', oid: blob },
      { mode: '40000', name: 'a', oid: sub },
      { mode: '100755', name: 'a-b', oid: blob },
      { mode: '120000', name: 'a0', oid: blob },
      { mode: '160000', name: 'b', oid: '1111111111111111111111111111111111111111' },
      { mode: '100644', name: 'A', oid: blob },
      { mode: '100644', name: 'é', oid: blob },
      { mode: '40000', name: 'z', oid: sub },
    ];
    const mktreeInput = entries
      .map((e) => `${e.mode === '40000' ? '040000' : e.mode} ${e.mode === '40000' ? 'tree' : e.mode === '160000' ? 'commit' : 'blob'} ${e.oid}\t${e.name}\n`)
      .join('');
    const gitOid = gitInput(dir, mktreeInput, 'mktree').trim();
    const bytes = serializeTree(entries);
    expect(hashObject('tree', bytes)).toBe(gitOid);
    // and reading git's tree back gives the same entries in git's order
    const order = git(dir, '-c', 'core.quotePath=false', 'ls-tree', gitOid)
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1]);
    expect(parseTree(bytes).map((e) => e.name)).toEqual(order);
  });

  it('keeps non-UTF-8 names byte-exact and canonicalises modes as git does', () => {
    const raw = Buffer.concat([Buffer.from('100664 '), Buffer.from([0x66, 0xff, 0x6f]), Buffer.from([0]), Buffer.alloc(20, 0xab)]);
    const [entry] = parseTree(raw);
    expect(entry!.mode).toBe('100644');
    expect(Buffer.from(entry!.rawName!)).toEqual(Buffer.from([0x66, 0xff, 0x6f]));
    const again = serializeTree([entry!]);
    expect(Buffer.from(again).subarray(7)).toEqual(raw.subarray(7));
  });

  it('reads UTF-8 and ASCII names, every git mode, and refuses malformed records', () => {
    const record = (mode: string, name: Buffer | string, oidByte = 0xcd) =>
      Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.alloc(20, oidByte)]);
    const tree = Buffer.concat([
      record('100644', 'plain.txt'),
      record('100755', 'run.sh'),
      record('120000', 'link'),
      record('160000', 'sub'),
      record('040000', 'old-style-dir'),
      record('40000', 'caf\u00e9'),
    ]);
    const entries = parseTree(tree);
    expect(entries.map((e) => [e.mode, e.name, e.rawName])).toEqual([
      ['100644', 'plain.txt', undefined],
      ['100755', 'run.sh', undefined],
      ['120000', 'link', undefined],
      ['160000', 'sub', undefined],
      ['40000', 'old-style-dir', undefined],
      ['40000', 'caf\u00e9', undefined],
    ]);
    expect(entries[0]!.oid).toBe('cd'.repeat(20));
    for (const bad of [record('10o644', 'x'), record('', 'x'), record('100000000644', 'x'), record('060000', 'x')]) {
      expect(() => parseTree(bad)).toThrow(/has an entry with mode/);
    }
    expect(() => parseTree(Buffer.from('100644 no-nul'))).toThrow(/malformed tree object/);
    expect(() => parseTree(record('100644', 'x').subarray(0, 20))).toThrow(/malformed tree object/);
  });

  it('an edited tree is byte for byte the tree serialised anew from the edited entries', () => {
    // names built from pieces that meet at git's awkward spots: a.txt < a (tree, as 'a/') < a0, and
    // '-' and '.' below '/'
    const name = fc.array(fc.constantFrom('a', 'b', '-', '.', '0', 'txt', 'Z', '_'), { minLength: 1, maxLength: 3 }).map((p) => p.join(''));
    const entry = fc.record({
      mode: fc.constantFrom<TreeMode>('100644', '100755', '120000', '40000', '160000'),
      name,
      oid: fc.integer({ min: 0, max: 255 }).map((b) => b.toString(16).padStart(2, '0').repeat(20)),
    });
    const unique = (list: TreeEntry[]) => [...new Map(list.map((e) => [e.name, e])).values()];
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 12 }).map(unique),
        fc.array(entry, { maxLength: 6 }).map(unique),
        fc.array(name, { maxLength: 4 }),
        (base, put, drop) => {
          const changes = new Map<string, TreeEntry | null>();
          for (const n of drop) changes.set(n, null);
          for (const e of put) changes.set(e.name, e);
          const edited = new Map(base.map((e) => [e.name, e]));
          for (const [n, e] of changes) {
            if (e === null) edited.delete(n);
            else edited.set(n, e);
          }
          const bytes = editTreeBytes(parseTreeObject(serializeTree(base)), changes);
          expect(Buffer.from(bytes).equals(Buffer.from(serializeTree([...edited.values()])))).toBe(true);
          // the edited tree as a store keeps it: what parsing its bytes back would give
          const parsed = editParsedTree(parseTreeObject(serializeTree(base)), changes);
          const reparsed = parseTreeObject(parsed.bytes);
          expect(parsed.bytes.equals(Buffer.from(bytes))).toBe(true);
          expect(parsed.entries.map((e) => ({ ...e }))).toEqual(reparsed.entries);
          expect([...parsed.ends]).toEqual([...reparsed.ends]);
          expect(parsed.copyable).toBe(reparsed.copyable);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an edited tree rewrites the entries around a change when a name or a mode is not as git writes it', () => {
    const oid = 'ab'.repeat(20);
    const record = (mode: string, name: Buffer | string) =>
      Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.from(oid, 'hex')]);
    const change = new Map<string, TreeEntry | null>([['m.txt', { mode: '100644', name: 'm.txt', oid }]]);
    // 100664 and 040000 become 100644 and 40000, as git's index would write them
    const oddModes = parseTreeObject(Buffer.concat([record('100664', 'a.txt'), record('040000', 'z')]));
    expect(oddModes.copyable).toBe(false);
    expect(
      Buffer.from(editTreeBytes(oddModes, change)).equals(Buffer.concat([record('100644', 'a.txt'), record('100644', 'm.txt'), record('40000', 'z')])),
    ).toBe(true);
    // a name that is not valid UTF-8 keeps its bytes and its place in byte order
    const odd = Buffer.from([0x6e, 0xff]);
    const oddName = parseTreeObject(Buffer.concat([record('100644', 'a.txt'), record('100644', odd)]));
    expect(oddName.copyable).toBe(false);
    const edited = editTreeBytes(oddName, new Map([...change, [entryKey(oddName.entries[1]!), null]]));
    expect(Buffer.from(edited).equals(Buffer.concat([record('100644', 'a.txt'), record('100644', 'm.txt')]))).toBe(true);
    const kept = editTreeBytes(oddName, change);
    expect(Buffer.from(kept).equals(Buffer.concat([record('100644', 'a.txt'), record('100644', 'm.txt'), record('100644', odd)]))).toBe(true);
  });

  it('an edited tree that git would not have written (disorder, a name twice) is rewritten from its entries', () => {
    const oid = 'ab'.repeat(20);
    const record = (name: string) => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(oid, 'hex')]);
    const add = new Map<string, TreeEntry | null>([['b', { mode: '100644', name: 'b', oid }]]);
    const edit = (...names: string[]) => {
      const tree = parseTreeObject(Buffer.concat(names.map(record)));
      expect(tree.copyable).toBe(false);
      return Buffer.from(editTreeBytes(tree, add));
    };
    // a name twice: once in the result; out of order: sorted
    expect(edit('a', 'a').equals(Buffer.concat([record('a'), record('b')]))).toBe(true);
    expect(edit('c', 'a').equals(Buffer.concat([record('a'), record('b'), record('c')]))).toBe(true);
    // a name git cannot store is refused, not copied
    expect(() => edit('a', 'x/y')).toThrow(/invalid tree entry name/);
    expect(parseTreeObject(Buffer.concat([record('a'), record('c')])).copyable).toBe(true);
  });

  it('refuses duplicate names', () => {
    const oid = 'ab'.repeat(20);
    expect(() =>
      serializeTree([
        { mode: '100644', name: 'x', oid },
        { mode: '40000', name: 'x', oid },
      ]),
    ).toThrow(/duplicate/);
  });
});

describe('identity model', () => {
  it("uses isomorphic-git's offset convention (minutes, positive west) and keeps -0000", () => {
    expect(parseTimezone('+0200')).toBe(-120);
    expect(parseTimezone('-0530')).toBe(330);
    expect(Object.is(parseTimezone('+0000'), 0)).toBe(true);
    expect(Object.is(parseTimezone('-0000'), -0)).toBe(true);
    expect(formatTimezone(-120)).toBe('+0200');
    expect(formatTimezone(330)).toBe('-0530');
    expect(formatTimezone(0)).toBe('+0000');
    expect(formatTimezone(-0)).toBe('-0000');
    const line = 'Jane Q. Doe <jane@example.com> 1700000000 -0000';
    expect(formatIdentity(parseIdentity(line))).toBe(line);
  });
});

describe('commit model', () => {
  it('round-trips commits git made, byte for byte', () => {
    const dir = makeRepo('basic');
    for (const rev of ['HEAD', 'HEAD~1']) {
      const oid = git(dir, 'rev-parse', rev).trim();
      const bytes = Buffer.from(git(dir, 'cat-file', 'commit', oid));
      const commit = parseCommit(bytes);
      expect(hashObject('commit', serializeCommit(commit))).toBe(oid);
    }
  });

  it('round-trips signed commits, extra headers and messages without a final newline', () => {
    const dir = makeRepo('empty');
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
    const text =
      `tree ${tree}\n` +
      `author A <a@x> 1700000000 +0530\n` +
      `committer C <c@x> 1700000001 -0000\n` +
      `encoding UTF-8\n` +
      `gpgsig -----BEGIN PGP SIGNATURE-----\n \n wsBcBAABCAAQBQJ\n -----END PGP SIGNATURE-----\n` +
      `\nSubject with ünïcode\n\n  indented body\nno final newline`;
    const oid = gitInput(dir, text, 'hash-object', '-t', 'commit', '-w', '--stdin', '--literally').trim();
    const commit = parseCommit(Buffer.from(text));
    expect(commit.gpgsig).toBe('-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJ\n-----END PGP SIGNATURE-----');
    expect(commit.extraHeaders).toEqual([{ key: 'encoding', value: 'UTF-8' }]);
    expect(commit.committer.timezoneOffset).toBe(-0);
    expect(commit.message).toBe('Subject with ünïcode\n\n  indented body\nno final newline');
    expect(hashObject('commit', serializeCommit(commit))).toBe(oid);
  });

  it('refuses identities that would corrupt the header', () => {
    const id = { name: 'Bad <name>', email: 'e', timestamp: 1, timezoneOffset: 0 };
    expect(() => serializeCommit({ tree: 'a'.repeat(40), parents: [], author: id, committer: id, message: '' })).toThrow();
  });
});

describe('trailers', () => {
  const messages = [
    'Subject\n',
    'Subject\n\nBody\n',
    'Subject\n\nBody\n\n\n',
    'Subject\n\nSigned-off-by: A <a@b>\n',
    'Subject\n\nBody text\nSigned-off-by: A <a@b>\n',
    'Subject\n\nKey: v\n  cont\n\n',
    'Subject\n\nFoo: bar\n# comment\n',
    'Subject\n\nNot: a\nplain line\nanother plain\n',
    'Key: only a subject\n',
    '',
  ];
  it.each(messages)('appends where git interpret-trailers does: %j', (message) => {
    const dir = makeRepo('empty');
    const expected = gitInput(dir, message, 'interpret-trailers', '--trailer', 'Patchtx-Id: 123', '--trailer', 'Patch-Sha: abc');
    expect(
      appendTrailers(message, [
        { key: 'Patchtx-Id', value: '123' },
        { key: 'Patch-Sha', value: 'abc' },
      ]),
    ).toBe(expected);
  });

  it('reads the trailer block', () => {
    expect(readTrailers('Subject\n\nBody\n\nA: 1\nB-C: two\n  words\n')).toEqual([
      { key: 'A', value: '1' },
      { key: 'B-C', value: 'two words' },
    ]);
    expect(readTrailers('A: 1\n')).toEqual([]); // the subject is never a trailer
    expect(readTrailers('Subject\n\nplain\nA: 1\n')).toEqual([]);
  });
});
