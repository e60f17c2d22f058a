// A repository whose first commit patchtx made: the start of the tests of undo back to an unborn
// branch (the user's own untracked file beside it, which no transaction touches).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { patchtxJson } from './cli.js';
import { git } from './repos.js';
import { patchFile, tempDir, v4a } from './scratch.js';

/** The repository (main a loose ref), its first commit, and `git status` before that commit. */
export async function firstByPatchtx(): Promise<{ dir: string; first: string; statusBefore: string }> {
  const dir = path.join(tempDir(), 'repo');
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  git(dir, 'config', 'user.name', 'First User');
  git(dir, 'config', 'user.email', 'first@fixtures.invalid');
  writeFileSync(path.join(dir, 'own.txt'), 'own\n');
  const statusBefore = git(dir, 'status', '--porcelain', '--untracked-files=all');
  const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a', '*** Add File: d/b.txt', '+b')));
  expect(r.code, r.out).toBe(0);
  return { dir, first: r.json.commit as string, statusBefore };
}
