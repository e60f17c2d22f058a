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
  /** told each path whose file-system entry the answer depends on, before it is looked at (and
   * each path a realpath resolved to, after): what a caller keeping the answer checks (tx/warm.ts) */
  seen?: Seen;
}

/** See OpenRepositoryOptions.seen. */
export type Seen = (file: string) => void;

const none: Seen = () => undefined;

async function realpathSeen(p: string, seen: Seen): Promise<string> {
  seen(p);
  const real = await realpath(p);
  seen(real);
  return real;
}

async function kindOf(p: string, seen: Seen): Promise<'file' | 'dir' | null> {
  seen(p);
  try {
    const s = await stat(p);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

/** The common dir of `gitdir` (its `commondir` file, relative to gitdir), or gitdir itself. */
async function commonDirOf(gitdir: string, seen: Seen): Promise<string> {
  seen(path.join(gitdir, 'commondir'));
  try {
    const text = (await readFile(path.join(gitdir, 'commondir'), 'utf8')).trim();
    if (text !== '') return realpathSeen(path.resolve(gitdir, text), seen);
  } catch {
    // no commondir file: not a linked worktree
  }
  return gitdir;
}

/** git's test for a git directory: HEAD, plus objects/ and refs/ in its common dir. */
async function isGitDir(dir: string, seen: Seen): Promise<boolean> {
  if ((await kindOf(path.join(dir, 'HEAD'), seen)) !== 'file') return false;
  const common = await commonDirOf(dir, seen).catch(() => null);
  if (common === null) return false;
  return (await kindOf(path.join(common, 'objects'), seen)) === 'dir' && (await kindOf(path.join(common, 'refs'), seen)) === 'dir';
}

/** Reads a gitfile (`gitdir: <path>`) and returns the absolute git dir it names. */
async function readGitFile(file: string, seen: Seen): Promise<string> {
  seen(file);
  const text = await readFile(file, 'utf8');
  const m = /^gitdir: (.+?)\s*$/m.exec(text);
  if (!m) throw new PatchtxError('not_a_repository', `invalid gitfile format: ${file}`, { file });
  const target = path.resolve(path.dirname(file), m[1]!);
  if (!(await isGitDir(target, seen))) {
    throw new PatchtxError('not_a_repository', `${file} points to ${target}, which is not a git directory`, { file, gitdir: target });
  }
  return realpathSeen(target, seen);
}

async function repoConfig(commonDir: string, seen: Seen): Promise<GitConfig> {
  seen(path.join(commonDir, 'config'));
  try {
    return new GitConfig(parseConfig(await readFile(path.join(commonDir, 'config'), 'utf8'), path.join(commonDir, 'config')));
  } catch {
    return new GitConfig();
  }
}

/** core.worktree, when set, moves the working tree (git resolves it relative to the git dir). */
async function configuredWorkdir(gitdir: string, commonDir: string, seen: Seen): Promise<string | null | undefined> {
  if (gitdir !== commonDir) return undefined; // linked worktrees ignore the main checkout's core.worktree
  const config = await repoConfig(commonDir, seen);
  const worktree = config.get('core.worktree');
  if (worktree !== undefined) return realpathSeen(path.resolve(gitdir, worktree), seen).catch(() => path.resolve(gitdir, worktree));
  return undefined;
}

async function make(gitdir: string, workdir: string | null, seen: Seen): Promise<Repository> {
  const commonDir = await commonDirOf(gitdir, seen);
  const configured = workdir === null ? undefined : await configuredWorkdir(gitdir, commonDir, seen);
  return { gitdir, commonDir, workdir: configured ?? workdir };
}

async function fromGitDirEnv(start: string, env: NodeJS.ProcessEnv, seen: Seen): Promise<Repository> {
  const given = path.resolve(start, env.GIT_DIR!);
  let gitdir = given;
  if ((await kindOf(given, seen)) === 'file') gitdir = await readGitFile(given, seen);
  else if (!(await isGitDir(given, seen))) {
    throw new PatchtxError('not_a_repository', `not a git repository: GIT_DIR=${env.GIT_DIR}`, { dir: given });
  }
  gitdir = await realpathSeen(gitdir, seen);
  const commonDir = await commonDirOf(gitdir, seen);
  if (env.GIT_WORK_TREE) return { gitdir, commonDir, workdir: await realpathSeen(path.resolve(start, env.GIT_WORK_TREE), seen) };
  const config = await repoConfig(commonDir, seen);
  if (config.getBool('core.bare')) return { gitdir, commonDir, workdir: null };
  const worktree = config.get('core.worktree');
  // with GIT_DIR and no work tree named anywhere, git takes the current directory as the top
  return { gitdir, commonDir, workdir: worktree !== undefined ? path.resolve(gitdir, worktree) : start };
}

export async function openRepository(opts: OpenRepositoryOptions): Promise<Repository> {
  const env = opts.env ?? process.env;
  const seen = opts.seen ?? none;
  const requested = path.resolve(opts.cwd, opts.repoDir ?? '.');
  if ((await kindOf(requested, seen)) !== 'dir') {
    throw new PatchtxError('not_a_repository', `not a git repository: ${requested} is not a directory`, { dir: requested });
  }
  const start = await realpathSeen(requested, seen);
  if (env.GIT_DIR) return fromGitDirEnv(start, env, seen);

  for (let dir = start; ;) {
    const dotgit = path.join(dir, '.git');
    const kind = await kindOf(dotgit, seen);
    if (kind === 'dir' && (await isGitDir(dotgit, seen))) return make(dotgit, dir, seen);
    if (kind === 'file') return make(await readGitFile(dotgit, seen), dir, seen);
    if (await isGitDir(dir, seen)) {
      // inside a git dir: bare, unless it is a checkout's .git (then the checkout is the parent)
      const nonBareDotGit = path.basename(dir) === '.git' && (await repoConfig(dir, seen)).getBool('core.bare') === false;
      return make(dir, nonBareDotGit ? path.dirname(dir) : null, seen);
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new PatchtxError('not_a_repository', `not a git repository (or any of the parent directories): ${start}`, { dir: start });
}
