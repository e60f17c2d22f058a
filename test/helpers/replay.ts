// What the replay tests share: the log fixtures (written from the formats, in test/logs/fixtures)
// and a repository whose first commit holds given files, made with the git CLI.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { git } from './repos.js';
import { tempDir } from './scratch.js';

/** The path of a log fixture. */
export const logFixture = (name: string): string => path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'logs', 'fixtures', name);

/** A repository on main whose one commit holds `files`, with an identity configured (default: Replay Tester). */
export function repoWith(files: Record<string, string>, who = { name: 'Replay Tester', email: 'replay@tests.invalid' }): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', who.name);
  git(dir, 'config', 'user.email', who.email);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}
