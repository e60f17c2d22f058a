import { afterAll, describe, expect, it } from 'vitest';
import { addNote, readNote } from '../../../src/git/refs/notes.js';
import { cleanupRepos, git } from '../../helpers/repos.js';
import { FIXTURE_KINDS, gitInput, openFixture } from '../util.js';

afterAll(cleanupRepos);

const identity = { name: 'Patch Tx', email: 'patchtx@example.com', timestamp: 1700000000, timezoneOffset: 0 };
const NOTES = 'refs/notes/patchtx';

describe.each(FIXTURE_KINDS)('notes in a $kind repository', ({ kind, pick }) => {
  it('adds a note git shows, replaces it, and reads it back', async () => {
    const fx = await openFixture(kind, pick);
    const head = git(fx.dir, 'rev-parse', 'HEAD').trim();
    expect(await readNote(fx.store, fx.repo, NOTES, head)).toBeNull();

    const text = '*** Begin Patch\n*** Update File: README.md\n@@\n-old\n+new\n*** End Patch\n';
    const first = await addNote(fx.store, fx.repo, { notesRef: NOTES, target: head, text, identity });
    expect(git(fx.dir, 'rev-parse', NOTES).trim()).toBe(first);
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', head)).toBe(text);
    expect(git(fx.dir, 'log', '-1', '--notes=patchtx', '--format=%N', head)).toContain('*** Update File: README.md');
    expect(git(fx.dir, 'log', '-1', '--format=%an <%ae>%n%B', NOTES)).toBe("Patch Tx <patchtx@example.com>\nNotes added by 'patchtx'\n\n");
    expect(await readNote(fx.store, fx.repo, NOTES, head)).toBe(text);

    const second = await addNote(fx.store, fx.repo, { notesRef: NOTES, target: head, text: 'replaced\n', identity });
    expect(git(fx.dir, 'rev-parse', `${second}^`).trim()).toBe(first);
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', head)).toBe('replaced\n');
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'list').trim().split('\n')).toHaveLength(1);
    // a bare repository keeps no reflogs by default, as git does
    if (kind !== 'bare') expect(git(fx.dir, 'reflog', 'show', '--format=%gs', NOTES).split('\n')[0]).toBe("notes: Notes added by 'patchtx'");
    expect(git(fx.dir, 'fsck', '--full', '--no-dangling')).toBe('');
  });
});

describe('notes, special cases', () => {
  it('reads and replaces notes stored with fan-out directories', async () => {
    const fx = await openFixture('basic');
    const [head, parent] = git(fx.dir, 'rev-parse', 'HEAD', 'HEAD~1').trim().split('\n') as [string, string];
    // a notes tree laid out as git does for large note sets: ab/cdef... and ab/cd/ef...
    const blobA = gitInput(fx.dir, 'note on head\n', 'hash-object', '-w', '--stdin').trim();
    const blobB = gitInput(fx.dir, 'note on parent\n', 'hash-object', '-w', '--stdin').trim();
    const inner = gitInput(fx.dir, `100644 blob ${blobA}\t${head.slice(2)}\n`, 'mktree').trim();
    const deepest = gitInput(fx.dir, `100644 blob ${blobB}\t${parent.slice(4)}\n`, 'mktree').trim();
    const middle = gitInput(fx.dir, `040000 tree ${deepest}\t${parent.slice(2, 4)}\n`, 'mktree').trim();
    // the fixture is deterministic: its two commits live in different fan-out directories
    expect(head.slice(0, 2)).not.toBe(parent.slice(0, 2));
    const rootLines = `040000 tree ${inner}\t${head.slice(0, 2)}\n040000 tree ${middle}\t${parent.slice(0, 2)}\n`;
    const root = gitInput(fx.dir, rootLines, 'mktree').trim();
    const notesCommit = git(fx.dir, 'commit-tree', root, '-m', 'fanned out').trim();
    git(fx.dir, 'update-ref', NOTES, notesCommit);
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', head)).toBe('note on head\n');

    expect(await readNote(fx.store, fx.repo, NOTES, head)).toBe('note on head\n');
    expect(await readNote(fx.store, fx.repo, NOTES, parent)).toBe('note on parent\n');

    await addNote(fx.store, fx.repo, { notesRef: NOTES, target: head, text: 'new note on head\n', identity });
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', head)).toBe('new note on head\n');
    expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', parent)).toBe('note on parent\n');
    expect(git(fx.dir, 'ls-tree', '-r', '--name-only', NOTES).trim().split('\n').sort()).toEqual(
      // replaced where it was: in the directory the tree has for it
      [`${head.slice(0, 2)}/${head.slice(2)}`, `${parent.slice(0, 2)}/${parent.slice(2, 4)}/${parent.slice(4)}`].sort(),
    );
  });

  it('retries when concurrent writers race for the notes ref, losing no note', async () => {
    const fx = await openFixture('basic');
    const base = git(fx.dir, 'rev-parse', 'HEAD').trim();
    const commits = Array.from({ length: 8 }, (_, i) => git(fx.dir, 'commit-tree', `${base}^{tree}`, '-p', base, '-m', `c${i}`).trim());
    await Promise.all(commits.map((c, i) => addNote(fx.store, fx.repo, { notesRef: NOTES, target: c, text: `note ${i}\n`, identity })));
    for (const [i, c] of commits.entries()) expect(git(fx.dir, 'notes', '--ref=patchtx', 'show', c)).toBe(`note ${i}\n`);
    expect(git(fx.dir, 'rev-list', '--count', NOTES).trim()).toBe('8');
  });

  it('gives up with stale after its attempts when the ref stays locked', async () => {
    const fx = await openFixture('basic');
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(`${fx.repo.commonDir}/refs/notes`, { recursive: true });
    writeFileSync(`${fx.repo.commonDir}/refs/notes/patchtx.lock`, '');
    const head = git(fx.dir, 'rev-parse', 'HEAD').trim();
    await expect(addNote(fx.store, fx.repo, { notesRef: NOTES, target: head, text: 'x', identity, attempts: 3 })).rejects.toMatchObject({
      kind: 'stale',
    });
  });
});
