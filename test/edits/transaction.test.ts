// Edit operations in a transaction on real repositories: V4A steps and edit operations mixed in one
// library transaction land as one commit; a failing operation leaves HEAD, index and files as they
// were and names its index; `patchtx apply --ops` and `check --ops` do the same from a JSON file.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { cleanupBuiltCli, patchtx, patchtxJson, requireBuiltCli, runBin } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
  cleanupScratch();
});

const read = (dir: string, p: string): string => readFileSync(path.join(dir, p), 'utf8');

describe('edit operations in one transaction', () => {
  it('a V4A update of A, str_replace on the new A, create B, move B to C: one commit', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const count = commitCount(dir);
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.apply(v4a('*** Update File: src/math.js', '@@', ' export function add(a, b) {', '-  return a + b;', '+  return a + b; // sum'));
    // sees the V4A step's result: the comment exists only after it
    await tx.edit({ op: 'str_replace', path: 'src/math.js', old: '// sum', new: '// the sum of a and b' });
    await tx.edit([
      { op: 'create', path: 'docs/b.txt', content: 'bee\n' },
      { op: 'move', from: 'docs/b.txt', to: 'docs/c.txt' },
    ]);
    const preview = await tx.preview();
    expect(rev(dir)).toBe(before);
    const done = await tx.commit({ message: 'Mixed' });

    expect(commitCount(dir)).toBe(count + 1);
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(done.commit).toBe(rev(dir));
    expect(preview.tree).toBe(done.tree);
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('A\tdocs/c.txt\nM\tsrc/math.js\n');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return a + b; // the sum of a and b\n}\n');
    expect(read(dir, 'docs/c.txt')).toBe('bee\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // the note is a V4A patch that re-applies onto the parent to the same tree
    const note = git(dir, 'notes', '--ref=refs/notes/patchtx', 'show', 'HEAD');
    expect(note).toMatch(/^\*\*\* Begin Patch\n/);
    const replay = await repo.check(note, { ref: 'refs/heads/replay', base: before });
    expect(replay.tree).toBe(done.tree);
    // undo takes the whole transaction back
    await repo.undo();
    expect(rev(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a result V4A cannot say exactly (no final newline, a mode change) gets a note in git diff form that re-applies', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.edit([
      { op: 'create', path: 'docs/no-newline.txt', content: 'one\ntwo' },
      { op: 'str_replace', path: 'README.md', old: 'tests.\n', new: 'tests.' },
      { op: 'move', from: 'docs/notes.txt', to: 'docs/moved.txt' },
    ]);
    await tx.apply('diff --git a/src/math.js b/src/math.js\nold mode 100644\nnew mode 100755\n');
    const done = await tx.commit();
    expect(git(dir, 'ls-tree', 'HEAD', 'src/math.js')).toMatch(/^100755 /);
    const note = git(dir, 'notes', '--ref=refs/notes/patchtx', 'show', 'HEAD');
    expect(note).toMatch(/^diff --git /);
    expect(note).toContain('rename from docs/notes.txt');
    const replay = await repo.check(note, { ref: 'refs/heads/replay', base: before });
    expect(replay.tree).toBe(done.tree);
    expect(replay.files).toEqual(done.files);
    // log reads the move from that note
    const [entry] = await repo.log({ maxCount: 1 });
    expect(entry!.files).toContainEqual({ op: 'R', path: 'docs/moved.txt', from: 'docs/notes.txt' });
  });

  it('a binary file moved beside a text edit gets a note in git diff form that re-applies (a rename without a body)', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'logo.bin'), Buffer.from([0, 1, 2, 255, 0, 10]));
    git(dir, 'add', 'logo.bin');
    git(dir, 'commit', '-q', '-m', 'a binary file');
    const before = rev(dir);
    const repo = await openRepository({ dir });
    const done = await repo.edit([
      { op: 'move', from: 'logo.bin', to: 'assets/logo.bin' },
      { op: 'str_replace', path: 'README.md', old: '# Sample', new: '# Example' },
    ]);
    const note = git(dir, 'notes', '--ref=refs/notes/patchtx', 'show', 'HEAD');
    expect(note).toContain('rename from logo.bin');
    const replay = await repo.check(note, { ref: 'refs/heads/replay', base: before });
    expect(replay.tree).toBe(done.tree);
    expect(replay.files).toEqual(done.files);
    // so is one that deletes it: a V4A note, a deletion needing no content
    const deleted = await repo.edit([
      { op: 'delete', path: 'assets/logo.bin' },
      { op: 'str_replace', path: 'README.md', old: '# Example', new: '# Sample' },
    ]);
    const deleteNote = git(dir, 'notes', '--ref=refs/notes/patchtx', 'show', 'HEAD');
    expect(deleteNote).toContain('*** Delete File: assets/logo.bin');
    const again = await repo.check(deleteNote, { ref: 'refs/heads/replay2', base: done.commit! });
    expect(again.tree).toBe(deleted.tree);
  });

  it('a failing third operation leaves HEAD, index and files untouched, and names its index', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const e = await rejection(
      repo.edit([
        { op: 'create', path: 'new.txt', content: 'one\n' },
        { op: 'str_replace', path: 'README.md', old: '# Sample', new: '# Example' },
        { op: 'str_replace', path: 'src/math.js', old: 'return a - b;', new: 'return b - a;' },
        { op: 'delete', path: 'docs/notes.txt' },
      ]),
    );
    expect(e.kind).toBe('context_not_found');
    expect(e.data.operation).toBe(2);
    expect(e.data.path).toBe('src/math.js');
    expect(e.message).toMatch(/^operations\[2\] \(str_replace\): Failed to find the old text in src\/math\.js/);
    // the closest region is named, as for a V4A chunk
    expect(e.data.candidates).toEqual([2]);
    expect(e.message).toContain('Closest match: line 2');
    expectUntouched(dir, before);
  });

  it('a failing edit step in a begin() transaction is dropped; the transaction goes on', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const tx = await repo.begin();
    await tx.edit({ op: 'create', path: 'a.txt', content: 'a\n' });
    const e = await rejection(
      tx.edit([
        { op: 'insert', path: 'a.txt', line: 1, text: 'b' },
        { op: 'create', path: 'a.txt', content: 'again\n' },
      ]),
    );
    expect(e.kind).toBe('already_exists');
    expect(e.data.operation).toBe(1);
    expect(tx.steps).toBe(1);
    await tx.edit({ op: 'insert', path: 'a.txt', line: 0, text: 'zero' });
    await tx.commit();
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('zero\na\n');
  });

  it('str_replace keeps CRLF line endings, tab indentation and the executable bit', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'tabs.go'), 'func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n');
    git(dir, 'add', 'tabs.go');
    git(dir, 'commit', '-q', '-m', 'tabs');
    const repo = await openRepository({ dir });
    await repo.edit([
      // written with \n as models write it: matched and replaced with the file's \r\n
      { op: 'str_replace', path: 'docs/crlf.txt', old: 'line one\nline two', new: 'line one\nline 1.5\nline two' },
      { op: 'insert', path: 'docs/crlf.txt', line: 4, text: 'line four' },
      { op: 'str_replace', path: 'tabs.go', old: '\t\treturn 1\n', new: '\t\treturn 2\n\t\t// two\n' },
      { op: 'str_replace', path: 'bin/run.sh', old: 'echo hello', new: 'echo "$& $1"' },
    ]);
    expect(git(dir, 'show', 'HEAD:docs/crlf.txt')).toBe('line one\r\nline 1.5\r\nline two\r\nline three\r\nline four\r\n');
    expect(git(dir, 'show', 'HEAD:tabs.go')).toBe('func f() {\n\tif x {\n\t\treturn 2\n\t\t// two\n\t}\n}\n');
    expect(git(dir, 'show', 'HEAD:bin/run.sh')).toBe('#!/bin/sh\necho "$& $1"\n');
    expect(git(dir, 'ls-tree', 'HEAD', 'bin/run.sh')).toMatch(/^100755 /);
    expect(statSync(path.join(dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('str_replace errors: several matches list their lines, old === new, an empty old, a missing file, a binary file', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'dup.txt'), 'x = 1\ny = 2\nx = 1\n');
    git(dir, 'add', 'dup.txt');
    git(dir, 'commit', '-q', '-m', 'dup');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });

    const many = await rejection(repo.edit({ op: 'str_replace', path: 'dup.txt', old: 'x = 1', new: 'x = 3' }));
    expect(many.kind).toBe('ambiguous_match');
    expect(many.data.candidates).toEqual([1, 3]);
    expect(many.message).toContain('occurs 2 times in dup.txt, at lines 1, 3');

    const same = await rejection(
      repo.edit([
        { op: 'delete', path: 'dup.txt' },
        { op: 'str_replace', path: 'dup.txt', old: 'a', new: 'a' },
      ]),
    );
    expect(same.kind).toBe('parse_error');
    expect(same.data.operation).toBe(1);

    const empty = await rejection(repo.edit({ op: 'str_replace', path: 'dup.txt', old: '', new: 'a' }));
    expect(empty.kind).toBe('parse_error');

    const missing = await rejection(
      repo.edit([
        { op: 'delete', path: 'dup.txt' },
        { op: 'str_replace', path: 'dup.txt', old: 'x', new: 'y' },
      ]),
    );
    expect(missing.kind).toBe('file_not_found');
    expect(missing.data.operation).toBe(1);

    const binary = await rejection(repo.edit({ op: 'str_replace', path: 'docs/blob.bin', old: 'binary', new: 'text' }));
    expect(binary.kind).toBe('binary_or_encoding');

    const unknown = await rejection(repo.edit({ op: 'rename', from: 'a', to: 'b' } as never));
    expect(unknown.kind).toBe('parse_error');
    expect(unknown.message).toContain("'op' must be one of str_replace, insert, create, delete, move");

    const outside = await rejection(repo.edit({ op: 'create', path: '../x', content: '' }));
    expect(outside.kind).toBe('path_rejected');
    // a symbolic link is refused by the transaction, which names the operation (it has no patch line)
    const link = await rejection(
      repo.edit([
        { op: 'create', path: 'z', content: '' },
        { op: 'str_replace', path: 'docs/src-link', old: 'src', new: 'lib' },
      ]),
    );
    expect(link.kind).toBe('path_rejected');
    expect(link.data).toMatchObject({ path: 'docs/src-link', operation: 1, reason: 'symlink' });
    expect(link.data.line).toBeUndefined();
    // so is a file created below a file, in the operation's words
    const below = await rejection(
      repo.edit([
        { op: 'create', path: 'z', content: '' },
        { op: 'create', path: 'src/math.js/x', content: '' },
      ]),
    );
    expect(below.kind).toBe('path_rejected');
    expect(below.message).toMatch(/^operations\[1\] \(create\): /);
    expect(below.data).toMatchObject({ path: 'src/math.js/x', operation: 1, reason: 'file_prefix' });
    expect(below.data.line).toBeUndefined();
    expectUntouched(dir, before);

    // with replaceAll every occurrence is replaced
    const all = await repo.edit({ op: 'str_replace', path: 'dup.txt', old: 'x = 1', new: 'x = 3', replaceAll: true });
    expect(git(dir, 'show', 'HEAD:dup.txt')).toBe('x = 3\ny = 2\nx = 3\n');
    // the same operations sent again at once are a re-run of the tip: nothing is written
    const again = await repo.edit({ op: 'str_replace', path: 'dup.txt', old: 'x = 1', new: 'x = 3', replaceAll: true });
    expect(again.alreadyApplied).toBe(all.commit);
    expect(rev(dir)).toBe(all.commit);
  });

  it('create refuses an existing file unless overwrite; move refuses an existing destination', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const exists = await rejection(repo.edit({ op: 'create', path: 'README.md', content: 'x' }));
    expect(exists.kind).toBe('already_exists');
    const onto = await rejection(repo.edit({ op: 'move', from: 'README.md', to: 'src/math.js' }));
    expect(onto.kind).toBe('already_exists');
    expectUntouched(dir, before);
    await repo.edit([
      { op: 'create', path: 'README.md', content: 'no newline', overwrite: true },
      { op: 'move', from: 'src/util/name.js', to: 'src/math.js', overwrite: true },
    ]);
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('no newline');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export const name = "util";\n');
  });
});

describe('patchtx apply --ops and check --ops', () => {
  it('applies a JSON file of operations as one commit; check writes nothing; a failure names the index', async () => {
    const dir = makeRepo('basic');
    const ops = [
      { op: 'str_replace', path: 'README.md', old: '# Sample', new: '# Sample!' },
      { op: 'create', path: 'docs/new.md', content: 'new\n' },
    ];
    const file = patchFile(JSON.stringify(ops));
    const before = snapshot(dir);
    const checked = await patchtxJson('check', '--repo', dir, '--ops', file);
    expect(checked.code).toBe(0);
    expect(checked.json.files).toEqual([
      { path: 'README.md', op: 'M', from: null },
      { path: 'docs/new.md', op: 'A', from: null },
    ]);
    expectUntouched(dir, before);

    const applied = await patchtxJson('apply', '--repo', dir, '--ops', file);
    expect(applied.code).toBe(0);
    expect(applied.json.commit).toBe(rev(dir));
    expect(git(dir, 'show', 'HEAD:docs/new.md')).toBe('new\n');

    const after = snapshot(dir);
    const bad = patchFile(
      JSON.stringify([
        { op: 'delete', path: 'docs/new.md' },
        { op: 'delete', path: 'docs/new.md' },
      ]),
    );
    const failed = await patchtxJson('apply', '--repo', dir, '--ops', bad);
    expect(failed.code).toBe(1);
    expect(failed.json.error.kind).toBe('file_not_found');
    expect(failed.json.error.operation).toBe(1);
    expectUntouched(dir, after);

    const both = await patchtx('apply', '--repo', dir, '--ops', file, file);
    expect(both.code).toBe(2);
    const notJson = await patchtx('apply', '--repo', dir, '--ops', patchFile('[{"op": "create",'));
    expect(notJson.code).toBe(3);
    expect(notJson.err).toContain('the operations are not valid JSON');
    expectUntouched(dir, after);
  });

  it('reads the operations from standard input with --ops -', () => {
    const dir = makeRepo('basic');
    const input = JSON.stringify([{ op: 'insert', path: 'README.md', line: 0, text: '<!-- top -->' }]);
    const r = runBin('patchtx', ['apply', '--repo', dir, '--ops', '-', '--json'], { input });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).commit).toBe(rev(dir));
    expect(git(dir, 'show', 'HEAD:README.md')).toMatch(/^<!-- top -->\n# Sample\n/);
  });
});
