// Finding and running a repository's hooks as git does: in core.hooksPath (a relative path is
// taken from where hooks run: the working tree's root, or the git directory of a bare repository;
// `~/` is the home directory) or else in $GIT_COMMON_DIR/hooks; a hook that is not an executable
// file is not run (ignoredHook names it, for git's hint). A hook runs in that same directory (through run-program.ts, as the other
// programs git would run), with its standard input closed unless the hook takes one, and what it
// prints (on either stream) is collected, bounded, so that the caller can show it or put it in an error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expandHome, type GitConfig } from './config.js';
import type { Repository } from './repository.js';
import { runProgram } from './run-program.js';

export interface HookRun {
  /** exit status, or null when a signal ended the hook */
  status: number | null;
  output: string;
}

/** The directory hooks run in. */
export const hookCwd = (repo: Repository): string => repo.workdir ?? repo.gitdir;

function hooksDir(repo: Repository, config: GitConfig, env: NodeJS.ProcessEnv): string {
  const configured = config.get('core.hooksPath');
  if (configured === undefined || configured === '') return path.join(repo.commonDir, 'hooks');
  return path.resolve(hookCwd(repo), expandHome(configured, env.HOME ?? os.homedir()));
}

/** Whether `file` is a file; most hooks are not there, which is looked at without an exception. */
function isFile(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false; // a path the file system will not look up (ENOTDIR, EACCES): no hook there
  }
}

/** The hook's file when it would run: an executable file. */
export function findHook(repo: Repository, config: GitConfig, env: NodeJS.ProcessEnv, name: string): string | null {
  const file = path.join(hooksDir(repo, config, env), name);
  if (!isFile(file)) return null;
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return file;
  } catch {
    return null;
  }
}

/**
 * The hook's file when there is one that would not run (not executable), as git names it in its
 * hint: from the directory hooks run in when it is under it, else in full.
 */
export function ignoredHook(repo: Repository, config: GitConfig, env: NodeJS.ProcessEnv, name: string): string | null {
  const file = path.join(hooksDir(repo, config, env), name);
  if (!isFile(file) || findHook(repo, config, env, name) !== null) return null;
  const relative = path.relative(hookCwd(repo), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * Runs `file` with `args` in the directory hooks run in; the environment is `env` (the caller's,
 * completed for the hook), and `input`, when given, is what the hook reads on stdin.
 */
export async function runHook(repo: Repository, file: string, args: string[], env: NodeJS.ProcessEnv, input: string | null = null): Promise<HookRun> {
  const run = await runProgram(file, args, { input, env, cwd: hookCwd(repo), combined: true });
  // a hook that cannot be started (a bad #! line) fails as git's does: status 126 or 127
  if (run.error) return { status: run.error.code === 'ENOENT' ? 127 : 126, output: `${run.stderr}${file}: ${run.error.message}\n` };
  return { status: run.status, output: run.stderr };
}
