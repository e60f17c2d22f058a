// `show` of a commit that carries a Patch-Id but has no patch note (amended or rebased by git, or
// its notes not fetched) says how to get on: --regenerate makes an equivalent patch from its diff,
// and notes.rewriteRef keeps the notes on the next amend or rebase, which git then does (checked
// here with git's own amend).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { git } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, v4a } from '../helpers/scratch.js';
import { addLine, seededRepo } from '../helpers/seeded.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const repo = (): string => seededRepo({ name: 'Shower', email: 'show@example.invalid' });

describe('show of a patchtx commit without its note', () => {
  it('names --regenerate and notes.rewriteRef, which keeps the note on the next amend', async () => {
    const dir = repo();
    expect((await patchtxJson('apply', '--repo', dir, addLine('two'))).code).toBe(0);
    git(dir, 'commit', '-q', '--amend', '-m', 'Reworded\n\nPatch-Id: kept by hand');
    const r = await patchtx('show', '--repo', dir, 'HEAD');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err).toContain('--regenerate');
    expect(r.err).toContain('git config notes.rewriteRef refs/notes/patchtx');
    expect((await patchtx('show', '--repo', dir, '--regenerate', 'HEAD')).out).toContain('+two');
    // the guidance holds: with it, git's amend carries the note over
    expect((await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: b.txt', '+b')))).code).toBe(0);
    git(dir, 'config', 'notes.rewriteRef', 'refs/notes/patchtx');
    git(dir, 'commit', '-q', '--amend', '-m', 'Reworded again');
    const shown = await patchtx('show', '--repo', dir, 'HEAD');
    expect(shown.code, shown.out + shown.err).toBe(0);
    expect(shown.out).toContain('*** Add File: b.txt');
  });
});
