// Finding the repository a command runs in, the way git does: from the start directory upwards, the
// first directory that has a `.git` entry, or that is itself a git directory (a bare repository).
//   .git directory             an ordinary checkout: gitdir = .git, workdir = its parent
//   .git file "gitdir: <path>" a linked worktree or a submodule: gitdir = <path> (relative to the file)
//   HEAD + objects/ + refs/    a git directory entered directly: bare, no workdir (unless it is the
//                              `.git` of a checkout whose config says core.bare=false)
// A gitdir with a `commondir` file (linked worktrees) shares objects, refs and config with that
// common dir. $GIT_DIR (and $GIT_WORK_TREE) are honoured as git honours them.
import { readFile, realpath, stat } from '../fs/fsx.js';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { GitConfig, parseConfig } from './config.js';
import type { Repository } from './repository.js';

export interface OpenRepositoryOptions {
  cwd: string;
  /** start here instead of cwd (relative to cwd), like `git -C` */
  repoDir?: string;
  /** for GIT_DIR / GIT_WORK_TREE; defaults to process.env */
  env?: NodeJS.ProcessEnv;
}

async function kindOf(p: string): Promise<'file' | 'dir' | null> {
  try {
    const s = await stat(p);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

/** The common dir of `gitdir` (its `commondir` file, relative to gitdir), or gitdir itself. */
async function commonDirOf(gitdir: string): Promise<string> {
  try {
    const text = (await readFile(path.join(gitdir, 'commondir'), 'utf8')).trim();
    if (text !== '') return realpath(path.resolve(gitdir, text));
  } catch {
    // no commondir file: not a linked worktree
  }
  return gitdir;
}

/** git's test for a git directory: HEAD, plus objects/ and refs/ in its common dir. */
async function isGitDir(dir: string): Promise<boolean> {
  if ((await kindOf(path.join(dir, 'HEAD'))) !== 'file') return false;
  const common = await commonDirOf(dir).catch(() => null);
  if (common === null) return false;
  return (await kindOf(path.join(common, 'objects'))) === 'dir' && (await kindOf(path.join(common, 'refs'))) === 'dir';
}

/** Reads a gitfile (`gitdir: <path>`) and returns the absolute git dir it names. */
async function readGitFile(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  const m = /^gitdir: (.+?)\s*$/m.exec(text);
  if (!m) throw new PatchtxError('not_a_repository', `invalid gitfile format: ${file}`, { file });
  const target = path.resolve(path.dirname(file), m[1]!);
  if (!(await isGitDir(target))) {
    throw new PatchtxError('not_a_repository', `${file} points to ${target}, which is not a git directory`, { file, gitdir: target });
  }
  return realpath(target);
}

async function repoConfig(commonDir: string): Promise<GitConfig> {
  try {
    return new GitConfig(parseConfig(await readFile(path.join(commonDir, 'config'), 'utf8'), path.join(commonDir, 'config')));
  } catch {
    return new GitConfig();
  }
}

/** core.worktree, when set, moves the working tree (git resolves it relative to the git dir). */
async function configuredWorkdir(gitdir: string, commonDir: string): Promise<string | null | undefined> {
  if (gitdir !== commonDir) return undefined; // linked worktrees ignore the main checkout's core.worktree
  const config = await repoConfig(commonDir);
  const worktree = config.get('core.worktree');
  if (worktree !== undefined) return realpath(path.resolve(gitdir, worktree)).catch(() => path.resolve(gitdir, worktree));
  return undefined;
}

async function make(gitdir: string, workdir: string | null): Promise<Repository> {
  const commonDir = await commonDirOf(gitdir);
  const configured = workdir === null ? undefined : await configuredWorkdir(gitdir, commonDir);
  return { gitdir, commonDir, workdir: configured ?? workdir };
}

async function fromGitDirEnv(start: string, env: NodeJS.ProcessEnv): Promise<Repository> {
  const given = path.resolve(start, env.GIT_DIR!);
  let gitdir = given;
  if ((await kindOf(given)) === 'file') gitdir = await readGitFile(given);
  else if (!(await isGitDir(given))) {
    throw new PatchtxError('not_a_repository', `not a git repository: GIT_DIR=${env.GIT_DIR}`, { dir: given });
  }
  gitdir = await realpath(gitdir);
  const commonDir = await commonDirOf(gitdir);
  if (env.GIT_WORK_TREE) return { gitdir, commonDir, workdir: await realpath(path.resolve(start, env.GIT_WORK_TREE)) };
  const config = await repoConfig(commonDir);
  if (config.getBool('core.bare')) return { gitdir, commonDir, workdir: null };
  const worktree = config.get('core.worktree');
  // with GIT_DIR and no work tree named anywhere, git takes the current directory as the top
  return { gitdir, commonDir, workdir: worktree !== undefined ? path.resolve(gitdir, worktree) : start };
}

export async function openRepository(opts: OpenRepositoryOptions): Promise<Repository> {
  const env = opts.env ?? process.env;
  const requested = path.resolve(opts.cwd, opts.repoDir ?? '.');
  if ((await kindOf(requested)) !== 'dir') {
    throw new PatchtxError('not_a_repository', `not a git repository: ${requested} is not a directory`, { dir: requested });
  }
  const start = await realpath(requested);
  if (env.GIT_DIR) return fromGitDirEnv(start, env);

  for (let dir = start; ;) {
    const dotgit = path.join(dir, '.git');
    const kind = await kindOf(dotgit);
    if (kind === 'dir' && (await isGitDir(dotgit))) return make(dotgit, dir);
    if (kind === 'file') return make(await readGitFile(dotgit), dir);
    if (await isGitDir(dir)) {
      // inside a git dir: bare, unless it is a checkout's .git (then the checkout is the parent)
      const nonBareDotGit = path.basename(dir) === '.git' && (await repoConfig(dir)).getBool('core.bare') === false;
      return make(dir, nonBareDotGit ? path.dirname(dir) : null);
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new PatchtxError('not_a_repository', `not a git repository (or any of the parent directories): ${start}`, { dir: start });
}
