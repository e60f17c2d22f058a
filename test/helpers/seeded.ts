// The smallest history most command tests start from: a repository whose main has one commit,
// made by git, of a.txt holding the line `one`, with an identity configured; and the patch that
// adds a line after it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from './repos.js';
import { patchFile, tempDir, v4a } from './scratch.js';

/** The repository's directory; `identity`: the user.name and user.email configured there (none: null). */
export function seededRepo(identity: { name: string; email: string } | null): string {
  const dir = path.join(tempDir(), 'repo');
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  if (identity !== null) {
    git(dir, 'config', 'user.name', identity.name);
    git(dir, 'config', 'user.email', identity.email);
  }
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '--no-gpg-sign', '-m', 'seed');
  return dir;
}

/** A patch file adding `line` after the seeded `one` of a.txt. */
export const addLine = (line: string): string => patchFile(v4a('*** Update File: a.txt', '@@', ' one', `+${line}`));
