// `patchtx export` and its replay: a history of transactions made in one repository (adds, an
// update, a move, a delete, a file with CRLF line endings) comes back in a clone of its base with
// the same trees, and with --keep-metadata as the very same commits. Every result is read back
// with git (rev-parse, log, cat-file, fsck).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, patchtx, patchtxJson } from '../helpers/cli.js';
import { git, gitTry, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a, withEnv } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

interface History {
  dir: string;
  base: string;
  /** the transactions, oldest first */
  commits: string[];
}

/** Applies `patch` in `dir` with fixed dates in two zones, so a replay made later differs unless it keeps them. */
async function applyAt(dir: string, patch: string, when: string, ...args: string[]): Promise<string> {
  const r = await withEnv({ GIT_AUTHOR_DATE: `${when} +0530`, GIT_COMMITTER_DATE: `${when} -0700` }, () =>
    patchtx('apply', '--repo', dir, ...args, patchFile(patch)),
  );
  expect(r.code, r.err).toBe(0);
  return rev(dir);
}

/** Repository A: a base commit made by git (a file with CRLF line endings in it), then five transactions. */
async function historyA(): Promise<History> {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'History Maker');
  git(dir, 'config', 'user.email', 'maker@tests.invalid');
  writeFileSync(path.join(dir, 'app.txt'), 'alpha\nbeta\ngamma\n');
  writeFileSync(path.join(dir, 'old.txt'), 'to be moved\n');
  writeFileSync(path.join(dir, 'win.txt'), 'one\r\ntwo\r\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  const base = rev(dir);
  const commits = [
    await applyAt(dir, v4a('*** Add File: docs/readme.txt', '+read me'), '2021-03-04T05:06:07'),
    await applyAt(
      dir,
      v4a('*** Update File: app.txt', '@@', ' alpha', '-beta', '+BETA', ' gamma'),
      '2021-03-04T05:07:00',
      '-m',
      'Shout beta',
      '--trailer',
      'Ticket=T-1',
    ),
    await applyAt(dir, v4a('*** Update File: old.txt', '*** Move to: lib/new.txt', '@@', '-to be moved', '+moved'), '2021-03-04T05:08:00'),
    await applyAt(dir, v4a('*** Update File: win.txt', '@@', ' one', '-two', '+TWO'), '2021-03-04T05:09:00', '--author', 'Other Author <other@tests.invalid>'),
    await applyAt(dir, v4a('*** Delete File: docs/readme.txt'), '2021-03-04T05:10:00'),
  ];
  return { dir, base, commits };
}

/** A clone of `from` holding `base` and nothing newer (the later commits pruned). */
function cloneAt(from: string, base: string): string {
  const dir = tempDir();
  git(dir, 'clone', '-q', from, '.');
  git(dir, 'config', 'user.name', 'Replayer');
  git(dir, 'config', 'user.email', 'replayer@tests.invalid');
  git(dir, 'reset', '-q', '--hard', base);
  git(dir, 'remote', 'remove', 'origin');
  git(dir, 'reflog', 'expire', '--expire=now', '--all');
  git(dir, 'gc', '-q', '--prune=now');
  return dir;
}

/** The export of `dir` in a file; its records, parsed. */
async function exportOf(dir: string, ...args: string[]): Promise<{ file: string; records: any[]; err: string }> {
  const r = await patchtx('export', '--repo', dir, ...args);
  expect(r.code, r.err).toBe(0);
  const file = path.join(tempDir(), 'log.jsonl');
  writeFileSync(file, r.out);
  return {
    file,
    records:
      r.out.trim() === ''
        ? []
        : r.out
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
    err: r.err,
  };
}

/** The first-parent commits of `dir` after `base`, oldest first. */
const commitsAfter = (dir: string, base: string): string[] =>
  git(dir, 'rev-list', '--first-parent', '--reverse', `${base}..HEAD`).trim().split('\n').filter(Boolean);
const treeOfCommit = (dir: string, commit: string): string => rev(dir, `${commit}^{tree}`);

describe('patchtx export', () => {
  it('prints one record per transaction, oldest first, with what git says of each commit', async () => {
    const a = await historyA();
    const { records, err } = await exportOf(a.dir);
    // the base commit is where a replay starts: not a transaction, and not worth a warning
    expect(err).toBe('');
    expect(records.map((r) => r.commit)).toEqual(a.commits);
    for (const [i, r] of records.entries()) {
      const c = a.commits[i]!;
      expect(r.type).toBe('patchtx_transaction');
      expect(r.base).toBe(i === 0 ? a.base : a.commits[i - 1]);
      expect(r.tree).toBe(treeOfCommit(a.dir, c));
      expect(r.baseTree).toBe(treeOfCommit(a.dir, r.base));
      expect(r.message).toBe(git(a.dir, 'cat-file', 'commit', c).split('\n\n').slice(1).join('\n\n'));
      expect(r.patch).toBe(git(a.dir, 'notes', '--ref=refs/notes/patchtx', 'show', c));
      expect(r.patchId).toBe(git(a.dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)', c).trim());
      const [an, ae, at, cn, ce, ct] = git(a.dir, 'log', '-1', '--format=%an%n%ae%n%ad%n%cn%n%ce%n%cd', '--date=raw', c).trim().split('\n');
      expect([r.author.name, r.author.email, `${r.author.timestamp} ${r.author.timezone}`]).toEqual([an, ae, at]);
      expect([r.committer.name, r.committer.email, `${r.committer.timestamp} ${r.committer.timezone}`]).toEqual([cn, ce, ct]);
      expect(r.author.date).toBe(git(a.dir, 'log', '-1', '--format=%aI', c).trim());
      expect(r.committer.date).toBe(git(a.dir, 'log', '-1', '--format=%cI', c).trim());
    }
    expect(records[1].trailers.map((t: any) => `${t.key}: ${t.value}`)).toEqual([
      'Ticket: T-1',
      `Patchtx-Tree: ${records[1].tree}`,
      `Patch-Id: ${records[1].patchId}`,
    ]);
    expect(records[2].files).toEqual([{ op: 'R', path: 'lib/new.txt', from: 'old.txt' }]);
    expect(git(a.dir, 'cat-file', 'blob', `${a.commits[3]}:win.txt`)).toBe('one\r\nTWO\r\n');
    expect(records.map((r) => r.files.map((f: any) => f.op).join())).toEqual(['A', 'M', 'R', 'M', 'D']);
  });

  it('takes a range A..B, and show --json prints the same record as the export', async () => {
    const a = await historyA();
    const { records } = await exportOf(a.dir, `${a.commits[1]}..${a.commits[3]}`);
    expect(records.map((r) => r.commit)).toEqual([a.commits[2], a.commits[3]]);
    const shown = await patchtxJson('show', '--repo', a.dir, a.commits[2]!);
    expect(shown.code).toBe(0);
    expect(shown.json).toEqual(records[0]);
  });

  it('names a commit between transactions that was not made by patchtx', async () => {
    const a = await historyA();
    writeFileSync(path.join(a.dir, 'manual.txt'), 'by hand\n');
    git(a.dir, 'add', 'manual.txt');
    git(a.dir, 'commit', '-q', '-m', 'by hand');
    const manual = rev(a.dir);
    await applyAt(a.dir, v4a('*** Add File: later.txt', '+later'), '2021-03-04T06:00:00');
    const { records, err } = await exportOf(a.dir);
    expect(records).toHaveLength(6);
    expect(err).toContain(`warning: ${manual.slice(0, 12)} was not made by patchtx`);
  });

  it('refuses a symmetric range and a revision that does not resolve', async () => {
    const a = await historyA();
    const sym = await patchtx('export', '--repo', a.dir, 'main...main');
    expect(sym.code).toBe(2);
    expect(sym.err).toMatch(/symmetric range/);
    const bad = await patchtx('export', '--repo', a.dir, 'nope..main');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
  });
});

describe('patchtx replay of an export', () => {
  it('makes the same trees in a clone of the base, and a second run changes nothing', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const b = cloneAt(a.dir, a.base);
    const r = await patchtx('replay', '--repo', b, file);
    expect(r.code, r.err).toBe(0);
    const made = commitsAfter(b, a.base);
    expect(made.map((c) => treeOfCommit(b, c))).toEqual(a.commits.map((c) => treeOfCommit(a.dir, c)));
    // new commits (the replay's date and committer), naming where they came from
    expect(made.filter((c) => a.commits.includes(c))).toEqual([]);
    expect(git(b, 'log', '-1', '--format=%(trailers:key=Replayed-Commit,valueonly)', made[4]!).trim()).toBe(a.commits[4]);
    expect(git(b, 'cat-file', 'blob', `${made[3]}:win.txt`)).toBe('one\r\nTWO\r\n');
    expect(git(b, 'status', '--porcelain')).toBe('');
    const head = rev(b);
    const again = await patchtxJson('replay', '--repo', b, file);
    expect(again.code).toBe(0);
    expect(rev(b)).toBe(head);
    expect(again.json).toMatchObject({ applied: 0, skipped: 5 });
    expectFsckClean(b);
  });

  it('with --keep-metadata makes the very same commits, and a second run changes nothing', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const b = cloneAt(a.dir, a.base);
    // the replay makes them: the clone does not hold them
    expect(a.commits.map((c) => gitTry(b, 'cat-file', '-e', c).status)).toEqual([1, 1, 1, 1, 1]);
    const r = await patchtx('replay', '--keep-metadata', '--repo', b, file);
    expect(r.code, r.err).toBe(0);
    expect(commitsAfter(b, a.base)).toEqual(a.commits);
    expect(git(b, 'log', '-1', '--format=%B', a.commits[1]!)).toBe(git(a.dir, 'log', '-1', '--format=%B', a.commits[1]!));
    const before = rev(b);
    const again = await patchtxJson('replay', '--keep-metadata', '--repo', b, file);
    expect(again.json).toMatchObject({ applied: 0, skipped: 5 });
    expect(rev(b)).toBe(before);
    expectFsckClean(b);
  });

  it('with --keep-metadata onto another parent: other commit ids, the recorded metadata, and a second run changes nothing', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const b = cloneAt(a.dir, a.base);
    writeFileSync(path.join(b, 'unrelated.txt'), 'not in A\n');
    git(b, 'add', 'unrelated.txt');
    git(b, 'commit', '-q', '-m', 'a commit A does not have');
    const parent = rev(b);
    const r = await patchtx('replay', '--keep-metadata', '--repo', b, file);
    expect(r.code, r.err).toBe(0);
    const made = commitsAfter(b, parent);
    expect(made).toHaveLength(5);
    expect(made.filter((c) => a.commits.includes(c))).toEqual([]);
    // the recorded identities, dates, message and trailers; Patchtx-Tree names the commit's own tree
    const meta = (dir: string, c: string): string =>
      git(dir, 'log', '-1', '--format=%an %ae %ad %cn %ce %cd %B', '--date=raw', c).replace(/^Patchtx-Tree: .*$/m, '');
    expect(made.map((c) => meta(b, c))).toEqual(a.commits.map((c) => meta(a.dir, c)));
    for (const c of made) expect(git(b, 'log', '-1', '--format=%(trailers:key=Patchtx-Tree,valueonly)', c).trim()).toBe(rev(b, `${c}^{tree}`));
    const again = await patchtxJson('replay', '--keep-metadata', '--repo', b, file);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ applied: 0, skipped: 5 });
    expect(rev(b)).toBe(made[4]);
  });

  it('stops at an entry that fails, and --continue after the fix goes on to the same commits', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const good = readFileSync(file, 'utf8');
    const lines = good.trim().split('\n');
    // the third entry's patch no longer matches: its old line is spelt wrong
    const broken = JSON.parse(lines[2]!);
    broken.patch = broken.patch.replace('-to be moved', '-to be removed');
    writeFileSync(file, [...lines.slice(0, 2), JSON.stringify(broken), ...lines.slice(3)].join('\n') + '\n');
    const b = cloneAt(a.dir, a.base);
    const stopped = await patchtxJson('replay', '--keep-metadata', '--repo', b, file);
    expect(stopped.code).toBe(1);
    expect(stopped.json.error.kind).toBe('context_not_found');
    expect(stopped.json.error.entry).toBe(3);
    expect(commitsAfter(b, a.base)).toEqual(a.commits.slice(0, 2));
    writeFileSync(file, good);
    const resumed = await patchtx('replay', '--continue', '--keep-metadata', '--repo', b, file);
    expect(resumed.code, resumed.err).toBe(0);
    expect(commitsAfter(b, a.base)).toEqual(a.commits);
    const none = await patchtx('replay', '--continue', '--repo', b, file);
    expect(none.code).toBe(2);
    expectFsckClean(b);
  });

  it('refuses an entry whose patch makes another tree than the recorded one, writing nothing for it', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    // still applies, but adds other text than the transaction did
    const changed = JSON.parse(lines[0]!);
    changed.patch = changed.patch.replace('+read me', '+read me twice');
    writeFileSync(file, [JSON.stringify(changed), ...lines.slice(1)].join('\n') + '\n');
    const b = cloneAt(a.dir, a.base);
    const r = await patchtxJson('replay', '--repo', b, file);
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ kind: 'replay_mismatch', expected: changed.tree, entry: 1 });
    expect(rev(b)).toBe(a.base);
    expect(git(b, 'status', '--porcelain')).toBe('');
    expectFsckClean(b);
  });

  it('--dry-run checks every entry of an export and writes nothing', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const b = cloneAt(a.dir, a.base);
    const r = await patchtxJson('replay', '--dry-run', '--repo', b, file);
    expect(r.code, r.err).toBe(0);
    expect(r.lines.slice(0, -1).map((l) => l.status)).toEqual(['checked', 'checked', 'checked', 'checked', 'checked']);
    expect(rev(b)).toBe(a.base);
    expect(git(b, 'status', '--porcelain')).toBe('');
  });

  it('--keep-metadata wants an export, and no identity besides', async () => {
    const a = await historyA();
    const { file } = await exportOf(a.dir);
    const items = path.join(tempDir(), 'items.json');
    writeFileSync(
      items,
      JSON.stringify([{ type: 'apply_patch_call', call_id: 'c1', status: 'completed', operation: { type: 'delete_file', path: 'app.txt' } }]),
    );
    const notExport = await patchtx('replay', '--keep-metadata', '--repo', a.dir, items);
    expect(notExport.code).toBe(2);
    expect(notExport.err).toMatch(/--keep-metadata.*not a patchtx export/);
    const withAuthor = await patchtx('replay', '--keep-metadata', '--author', 'X <x@tests.invalid>', '--repo', a.dir, file);
    expect(withAuthor.code).toBe(2);
  });
});

describe('a transaction that took in uncommitted content', () => {
  it('is marked in the export and refused by the replay, which says it cannot reproduce it', async () => {
    const a = await historyA();
    // an uncommitted edit of app.txt, taken in by the next patch
    writeFileSync(path.join(a.dir, 'app.txt'), 'alpha\nBETA\ngamma\nuncommitted\n');
    const taken = await applyAt(a.dir, v4a('*** Update File: app.txt', '@@', ' alpha', '-BETA', '+Beta'), '2021-03-04T07:00:00', '--dirty=include');
    expect(git(a.dir, 'show', `${taken}:app.txt`)).toBe('alpha\nBeta\ngamma\nuncommitted\n');
    const { records, err, file } = await exportOf(a.dir);
    expect(records[5].commit).toBe(taken);
    expect(records[5].uncommitted).toEqual(['app.txt']);
    expect(records.slice(0, 5).every((r) => r.uncommitted === undefined)).toBe(true);
    expect(err).toContain(`${taken.slice(0, 12)} took in uncommitted content`);
    const b = cloneAt(a.dir, a.base);
    const r = await patchtxJson('replay', '--repo', b, file);
    expect(r.code).toBe(8);
    expect(r.json.error).toMatchObject({ kind: 'replay_mismatch', reason: 'uncommitted', paths: ['app.txt'], entry: 6 });
    expect(commitsAfter(b, a.base)).toHaveLength(5);
    const dry = await patchtxJson('replay', '--dry-run', '--repo', cloneAt(a.dir, a.base), file);
    expect(dry.json.error.kind).toBe('replay_mismatch');
  });

  it('apply_patch taking in an uncommitted edit is marked too; one replacing the edit is not', async () => {
    const a = await historyA();
    writeFileSync(path.join(a.dir, 'app.txt'), 'alpha\nBETA\ngamma\nedited\n');
    const took = await applyPatch(a.dir, v4a('*** Update File: app.txt', '@@', '-alpha', '+ALPHA'));
    expect(took.code, took.err).toBe(0);
    // an uncommitted edit of a file the patch deletes is replaced, not committed: the patch makes the tree
    writeFileSync(path.join(a.dir, 'lib', 'new.txt'), 'moved, and edited\n');
    const replaced = await applyPatch(a.dir, v4a('*** Delete File: lib/new.txt'));
    expect(replaced.code, replaced.err).toBe(0);
    const { records } = await exportOf(a.dir);
    // both saved the edit beside their notes, as undo needs it
    const saved = git(a.dir, 'ls-tree', '-r', '--name-only', 'refs/notes/patchtx');
    for (const [r, p] of [
      [records[5], 'app.txt'],
      [records[6], 'lib/new.txt'],
    ] as const)
      expect(saved).toContain(`patchtx-saved/${r.commit.slice(0, 2)}/${r.commit.slice(2)}/worktree/${p}`);
    expect(records.slice(5).map((r) => [r.files.map((f: any) => f.path).join(), r.uncommitted])).toEqual([
      ['app.txt', ['app.txt']],
      ['lib/new.txt', undefined],
    ]);
  });
});
