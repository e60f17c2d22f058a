// A repository kept open between commands (the library's repository object, the MCP server): what
// opening a session reads every time — the repository's configuration, its object store with the
// pack indexes, open packs and trees read so far, and the parsed index — is kept, and checked
// cheaply before every command, so that a change made meanwhile by git, the user or another
// process is always seen:
// - where the repository is, is kept with the stat data of every path its discovery looked at
//   (the directories by identity alone, since their times change with every file made in them),
//   and discovered again when any differs; found elsewhere, nothing kept is used;
// - the configuration is read again when any file it came from (includes and an `onbranch:`
//   condition's HEAD too) has other stat data, or the environment that selects and adds to it changed;
// - the store forgets which objects it found stored (a prune may have removed them), and looks at
//   the packs again when the pack directory changed (revalidate in store.ts);
// - the index is used again only when its file has the same stat data and checksum (IndexCache);
//   the index a transaction writes is kept as written, identified by the written file's own;
// - refs, HEAD, the journal (recovery) and the working tree are read every time, as in a command of
//   its own, and refs again under their locks.
// The store has a transaction's state while a command runs, so a command that starts while another
// holds it gets a store of its own, closed when it ends. Everything kept is bounded (ByteCache).
import { statSync } from 'node:fs';
import path from 'node:path';
import { statData } from '../git/fs/fsx.js';
import { openRepository as discover } from '../git/repo/discover.js';
import { loadConfig, type GitConfig } from '../git/repo/config.js';
import { IndexCache } from '../git/index/read.js';
import { looseCompression, ObjectStore, promisorRemote } from '../git/objects/store.js';
import type { Repository } from '../git/repo/repository.js';

/** What a session is opened with; `release` ends the command's hold on them. */
export interface WarmParts {
  repo: Repository;
  config: GitConfig;
  store: ObjectStore;
  release: () => void;
}

interface KeptConfig {
  config: GitConfig;
  /** each file the configuration was read from, with its stat data when it was about to be read */
  files: Map<string, string>;
  /** the environment variables that select configuration files or add to them */
  env: string;
}

/** A file's identity, size and times as one string ('' when it is not there). */
function fileStamp(file: string): string {
  try {
    const st = statSync(file, { bigint: true, throwIfNoEntry: false });
    return st ? statData(st) : '';
  } catch {
    return '';
  }
}

/** What the discovery of a repository depended on at a path: a directory's identity, a file's
 * identity, size and times, or '' when nothing is there. */
function pathStamp(file: string): string {
  try {
    const st = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (!st) return '';
    return st.isDirectory() ? `d:${st.dev}:${st.ino}` : `f:${statData(st)}`;
  } catch {
    return '?';
  }
}

interface KeptLocation {
  /** where discovery started, and the environment that can move it */
  key: string;
  found: Repository;
  /** each path discovery looked at, with its pathStamp from just before it looked */
  stamps: Map<string, string>;
}

/** The environment loadConfig depends on, as one string. */
function configEnv(env: NodeJS.ProcessEnv): string {
  const keys = Object.keys(env)
    .filter((k) => k.startsWith('GIT_CONFIG') || k === 'HOME' || k === 'XDG_CONFIG_HOME')
    .sort();
  return JSON.stringify(keys.map((k) => [k, env[k]]));
}

const sameLocation = (a: Repository, b: Repository): boolean => a.gitdir === b.gitdir && a.commonDir === b.commonDir && a.workdir === b.workdir;

export class WarmRepository {
  private repo: Repository | null = null;
  private location: KeptLocation | null = null;
  private config: KeptConfig | null = null;
  private store: ObjectStore | null = null;
  /** what the kept store was made with (looseCompression, promisorRemote) */
  private storeKey = '';
  /** whether a command holds the kept store */
  private held = false;

  /** The repository, configuration and store for a command starting at `cwd`, checked as above. */
  async acquire(cwd: string, repoDir: string | undefined, env: NodeJS.ProcessEnv): Promise<WarmParts> {
    const found = await this.locate(cwd, repoDir);
    if (this.repo === null || !sameLocation(this.repo, found)) {
      this.forget();
      this.repo = { ...found, indexCache: new IndexCache() };
    }
    const repo = this.repo;
    const config = await this.configOf(repo, env);
    const key = `${looseCompression(config)}:${promisorRemote(config)}`;
    if (this.held) {
      // another command of this repository is running: this one gets a store of its own
      const own = new ObjectStore(repo, { compression: looseCompression(config), promisor: promisorRemote(config) });
      return { repo, config, store: own, release: () => own.close() };
    }
    if (this.store !== null && this.storeKey !== key) this.dropStore();
    this.store ??= new ObjectStore(repo, { compression: looseCompression(config), promisor: promisorRemote(config) });
    this.storeKey = key;
    const store = this.store;
    store.revalidate();
    this.held = true;
    return {
      repo,
      config,
      store,
      release: () => {
        if (this.store === store) this.held = false;
        else store.close(); // dropped while the command ran (close())
      },
    };
  }

  /** Where the repository is: as found last time when nothing discovery looked at changed. */
  private async locate(cwd: string, repoDir: string | undefined): Promise<Repository> {
    const key = JSON.stringify([path.resolve(cwd, repoDir ?? '.'), process.env.GIT_DIR ?? null, process.env.GIT_WORK_TREE ?? null]);
    const kept = this.location;
    if (kept && kept.key === key && [...kept.stamps].every(([file, stamp]) => pathStamp(file) === stamp)) return kept.found;
    const stamps = new Map<string, string>();
    // stamped before each is looked at: a change after the stamp makes the next call look again
    const found = await discover({ cwd, repoDir, seen: (file) => void (stamps.has(file) || stamps.set(file, pathStamp(file))) });
    this.location = { key, found, stamps };
    return found;
  }

  /** The configuration, read again when anything it was read from changed. */
  private async configOf(repo: Repository, env: NodeJS.ProcessEnv): Promise<GitConfig> {
    const kept = this.config;
    const envNow = configEnv(env);
    if (kept && kept.env === envNow && [...kept.files].every(([file, stamp]) => fileStamp(file) === stamp)) return kept.config;
    const files = new Map<string, string>();
    // stamped before each file is read: a change after the stamp makes the next call read it again
    const config = await loadConfig(repo, env, (file) => files.set(file, fileStamp(file)));
    this.config = { config, files, env: envNow };
    return config;
  }

  private dropStore(): void {
    if (!this.held) this.store?.close();
    this.store = null;
    this.held = false;
  }

  /** Forgets everything kept and closes the open pack files (a command running keeps its own until it ends). */
  close(): void {
    this.forget();
    this.location = null;
  }

  /** Forgets what was kept of the repository (not where it was found: see locate). */
  private forget(): void {
    this.dropStore();
    this.repo?.indexCache?.clear();
    this.repo = null;
    this.config = null;
  }
}
