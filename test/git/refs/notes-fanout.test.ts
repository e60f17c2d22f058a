// The notes tree fans out as git's does: once every next hex digit at a level has two notes or
// more, that level's notes move into directories named by their next two hex digits (`ab/cdef…`,
// then `ab/cd/ef…`). Cross-checked by building the same notes with `git notes add` (the trees must
// be the same objects) and by letting git rewrite a tree patchtx laid out (git keeps the layout).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addNote, readNote } from '../../../src/git/refs/notes.js';
import { cleanupRepos, git } from '../../helpers/repos.js';
import { openFixture } from '../util.js';

afterAll(cleanupRepos);

const identity = { name: 'Patch Tx', email: 'patchtx@example.com', timestamp: 1700000000, timezoneOffset: 0 };
const NOTES = 'refs/notes/patchtx';
const HEX = '0123456789abcdef';

/** `count` blobs written with git, in a fixed order (their ids do not depend on the run). */
function blobs(dir: string, count: number): string[] {
  const scratch = mkdtempSync(path.join(tmpdir(), 'patchtx-fanout-'));
  const files = Array.from({ length: count }, (_, i) => {
    const f = path.join(scratch, `b${i}`);
    writeFileSync(f, `annotated object ${i}\n`);
    return f;
  });
  return git(dir, 'hash-object', '-w', ...files)
    .trim()
    .split('\n');
}

const names = (dir: string, treeish: string): string[] => git(dir, 'ls-tree', '--name-only', treeish).trim().split('\n');

describe('notes fan-out', () => {
  it('gives the tree git notes would give: flat while small, by two hex digits once large', async () => {
    const fx = await openFixture('basic');
    const targets = blobs(fx.dir, 200);
    for (const [i, oid] of targets.entries()) {
      await addNote(fx.store, fx.repo, { notesRef: NOTES, target: oid, text: `note ${i}\n`, identity });
      git(fx.dir, 'notes', '--ref=bygit', 'add', '-m', `note ${i}`, oid);
      // the same tree object after every note: flat, the step to two-digit directories, and after
      const [ours, byGit] = git(fx.dir, 'rev-parse', `${NOTES}^{tree}`, 'refs/notes/bygit^{tree}').trim().split('\n');
      expect(ours, `after ${i + 1} notes`).toBe(byGit);
    }
    // fanned out: the root holds directories named by two hex digits only
    const root = names(fx.dir, NOTES);
    expect(root.every((n) => /^[0-9a-f]{2}$/.test(n))).toBe(true);
    expect(root.length).toBeLessThanOrEqual(256);
    for (const [i, oid] of targets.entries()) {
      expect(await readNote(fx.store, fx.repo, NOTES, oid)).toBe(`note ${i}\n`);
    }
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', targets[123]!)).toBe('note 123\n');
    expect(git(fx.dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  });

  it('fans a two-digit directory out again by the next two digits when it is large, as git does', async () => {
    const fx = await openFixture('basic');
    const fake = (prefix: string, i: number): string => (prefix + i.toString(16).padStart(8, '0')).padEnd(40, '7');
    // two notes under every first digit (the root fans out), and under `ab`, two for every third digit
    const targets = [...HEX].flatMap((d) => [fake(`${d}0`, 1), fake(`${d}1`, 2)]);
    for (const d of HEX) targets.push(fake(`ab${d}0`, 3), fake(`ab${d}1`, 4));
    for (const [i, t] of targets.entries()) await addNote(fx.store, fx.repo, { notesRef: NOTES, target: t, text: `n${i}\n`, identity });
    const ours = git(fx.dir, 'ls-tree', '-r', '--name-only', NOTES).trim().split('\n');
    expect(ours).toContain(`ab/${targets.at(-1)!.slice(2, 4)}/${targets.at(-1)!.slice(4)}`);
    expect(ours).toContain(`c0/${targets[24]!.slice(2)}`);
    // git rewrites the whole tree with its own layout when it adds a note: it keeps ours
    const head = git(fx.dir, 'rev-parse', 'HEAD').trim();
    git(fx.dir, 'notes', '--ref=patchtx', 'add', '-m', 'by git', head);
    const rewritten = git(fx.dir, 'ls-tree', '-r', '--name-only', NOTES).trim().split('\n');
    expect(rewritten.filter((p) => p.replace(/\//g, '') !== head).sort()).toEqual([...ours].sort());
    for (const [i, t] of targets.entries()) expect(await readNote(fx.store, fx.repo, NOTES, t)).toBe(`n${i}\n`);
  });

  it('adds to a tree git fanned out where git would, keeping entries that are not notes', async () => {
    const fx = await openFixture('basic');
    const targets = blobs(fx.dir, 200);
    for (const [i, oid] of targets.entries()) git(fx.dir, 'notes', '--ref=patchtx', 'add', '-m', `note ${i}`, oid);
    const head = git(fx.dir, 'rev-parse', 'HEAD').trim();
    await addNote(fx.store, fx.repo, {
      notesRef: NOTES,
      target: head,
      text: 'on head\n',
      identity,
      attach: { path: 'patchtx-saved/ab/cd', tree: git(fx.dir, 'rev-parse', 'HEAD^{tree}').trim() },
    });
    const ours = git(fx.dir, 'rev-parse', `${NOTES}^{tree}`).trim();
    expect(git(fx.dir, 'ls-tree', '-r', '--name-only', NOTES, head.slice(0, 2)).trim().split('\n')).toContain(`${head.slice(0, 2)}/${head.slice(2)}`);
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', head)).toBe('on head\n');
    expect(git(fx.dir, 'log', '-1', '--notes=patchtx', '--format=%N', head)).toBe('on head\n\n');
    // the same note added by git to the same tree gives the same tree, the extra entry kept
    git(fx.dir, 'update-ref', NOTES, `${NOTES}^`);
    git(fx.dir, 'notes', '--ref=patchtx', 'add', '-m', 'on head', head);
    const byGit = git(fx.dir, 'rev-parse', `${NOTES}^{tree}`).trim();
    expect(git(fx.dir, 'diff-tree', '-r', '--name-only', byGit, ours).trim()).toMatch(/^patchtx-saved\/ab\/cd\//);
  });
});
