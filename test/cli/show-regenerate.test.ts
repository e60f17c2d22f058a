// `patchtx show --regenerate` of a commit without a note: the patch it prints must make the very
// change the commit made when applied onto its parent (a missing final newline, a mode change
// included), and a change no patch patchtx reads can say (a symbolic link) is refused.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { git } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir } from '../helpers/scratch.js';

beforeAll(() => {
  requireBuiltCli();
  isolateGitEnv();
});
afterAll(cleanupScratch);

/** A repository whose HEAD (made with git, so without a note) is `change` applied to `base`. */
function repoWith(base: Record<string, string>, change: (dir: string) => void): string {
  const dir = path.join(tempDir(), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@example.invalid');
  for (const [p, text] of Object.entries(base)) writeFileSync(path.join(dir, p), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  change(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'change');
  return dir;
}

describe('show --regenerate', () => {
  it('prints a patch that makes the same tree on the parent: a file without a final newline, a mode change', async () => {
    const dir = repoWith({ 'n.txt': 'x\ny', 's.sh': 'echo\n', 'plain.txt': 'a\n' }, (d) => {
      writeFileSync(path.join(d, 'n.txt'), 'x\nY');
      git(d, 'update-index', '--chmod=+x', 's.sh');
      writeFileSync(path.join(d, 'plain.txt'), 'b\n');
    });
    const shown = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err).toMatch(/regenerated/);
    git(dir, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    const again = await patchtxJson('apply', '--repo', dir, patchFile(shown.out));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(dir, 'rev-parse', 'again^{tree}')).toBe(git(dir, 'rev-parse', 'main^{tree}'));
  });

  it('refuses a commit that adds a symbolic link, instead of printing it as a regular file', async () => {
    const dir = repoWith({ 'n.txt': 'x\n' }, (d) => symlinkSync('n.txt', path.join(d, 'link')));
    const plain = await patchtx('show', '--repo', dir, '--regenerate', 'HEAD');
    expect(plain.code, plain.out).toBe(1);
    expect(plain.err).toMatch(/link/);
    expect(plain.out).toBe('');
  });
});

describe('show --json --regenerate', () => {
  it('prints the record of a patchtx commit whose note is missing, with the regenerated patch, marked', async () => {
    const dir = repoWith({ 'a.txt': 'one\n' }, (d) => writeFileSync(path.join(d, 'b.txt'), 'b\n'));
    const applied = await patchtxJson('apply', '--repo', dir, patchFile('*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n'));
    expect(applied.code, applied.err).toBe(0);
    const stored = await patchtxJson('show', '--repo', dir, '--json', 'HEAD');
    expect(stored.json.regenerated).toBeUndefined();
    git(dir, 'notes', '--ref', 'patchtx', 'remove', 'HEAD');
    const r = await patchtxJson('show', '--repo', dir, '--json', '--regenerate', 'HEAD');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.err).toMatch(/regenerated/);
    expect(r.json).toMatchObject({ commit: stored.json.commit, regenerated: true, message: stored.json.message, files: stored.json.files });
    git(dir, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    const again = await patchtxJson('apply', '--repo', dir, patchFile(r.json.patch));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(dir, 'rev-parse', 'again^{tree}')).toBe(git(dir, 'rev-parse', 'main^{tree}'));
  });
});
