// The journal stays small whatever the size of the patch: it names the blob that holds the patch
// text (the note), written with the commit, instead of holding the text. Recovery of a run killed
// after its commit point still attaches that note, also when the notes ref has moved meanwhile.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

/** A patch adding one file of about `kb` KB, every line distinct. */
function bigPatch(dir: string, kb: number): { file: string; text: string } {
  const lines = Array.from({ length: kb * 16 }, (_, i) => `+line ${i} of a large added file, padded out ${'x'.repeat(30)}`);
  const text = ['*** Begin Patch', '*** Add File: big.txt', ...lines, '*** End Patch', ''].join('\n');
  const file = path.join(dir, '..', 'big.patch');
  writeFileSync(file, text);
  return { file, text };
}

describe('the journal of a large patch', () => {
  it('names the note blob instead of holding the patch text, and the note is the text', async () => {
    const dir = makeRepo('basic');
    const { file, text } = bigPatch(dir, 512);
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    const release = path.join(dir, '..', 'go');
    const run = runCli(['apply', '--repo', dir, file], { env: { PATCHTX_TEST_PAUSE_AT: 'after-publish-journal', PATCHTX_TEST_PAUSE_UNTIL: release } });
    await waitFor(() => existsSync(journal) && readFileSync(journal, 'utf8').includes('"published"'), 'the run published its journal');
    const size = statSync(journal).size;
    const held = readFileSync(journal, 'utf8');
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stderr).toBe(0);
    expect(held).not.toContain('line 1000 of a large added file');
    expect(size).toBeLessThan(4096);
    const note = JSON.parse(held).note;
    expect(git(dir, 'cat-file', 'blob', note.blob)).toBe(text);
    expect(git(dir, 'notes', '--ref=patchtx', 'show', 'HEAD')).toBe(text);
  });

  it('killed after its commit point: recovery attaches the note from the blob, also after the notes ref moved', async () => {
    const dir = makeRepo('basic');
    const { file, text } = bigPatch(dir, 64);
    const killed = await runCli(['apply', '--repo', dir, file], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const landed = git(dir, 'rev-parse', 'HEAD').trim();
    // someone else adds a note meanwhile: the notes commit the run wrote no longer fits
    git(dir, 'notes', '--ref=patchtx', 'add', '-m', 'another note', 'HEAD~1');
    const r = await runCli(['recover', '--repo', dir, '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished', commit: landed });
    expect(git(dir, 'notes', '--ref=patchtx', 'show', landed)).toBe(text);
    expect(git(dir, 'notes', '--ref=patchtx', 'show', 'HEAD~1')).toBe('another note\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling').trim()).toBe('');
    expect(leftoverFiles(path.join(dir, '.git'))).toEqual([]);
  });
});
