// Everything a transaction needs to know about the repository it runs in, opened once per command:
// where it is, its configuration, its object store. Opening a session also finishes or drops
// whatever an interrupted earlier run left behind (see journal.ts), so every command starts from
// a repository that is at a committed state. A repository kept open between commands (warm.ts)
// lends its kept configuration and store to each session instead, checked before each.
import { PatchtxError } from '../errors.js';
import { openRepository } from '../git/repo/discover.js';
import { loadConfig, type GitConfig } from '../git/repo/config.js';
import { checkRepositorySupported } from '../git/repo/features.js';
import { fsyncPolicy } from '../git/repo/fsync-policy.js';
import { looseCompression, ObjectStore, promisorRemote } from '../git/objects/store.js';
import type { Repository } from '../git/repo/repository.js';
import { recoverInterrupted, type RecoveryReport } from './recover.js';
import type { WarmParts, WarmRepository } from './warm.js';

export interface Session {
  repo: Repository;
  config: GitConfig;
  store: ObjectStore;
  env: NodeJS.ProcessEnv;
  /** what recovery did on open (null: nothing to recover) */
  recovered: RecoveryReport | null;
  /** ends the session: closes its store's pack files, or gives a kept store back */
  close: () => void;
}

export interface SessionOptions {
  cwd?: string;
  repoDir?: string;
  env?: NodeJS.ProcessEnv;
  /** skip recovery (used by read-only commands that must not take locks) */
  noRecover?: boolean;
  /** the ref the command names, if any: a transaction under way on this checkout's working tree
   * is then left to the command to meet (see RecoveryScope in recover.ts) */
  ref?: string;
  /** a repository kept open between commands, whose configuration and store the session uses */
  warm?: WarmRepository;
}

/** The repository, configuration and store of a command of its own. */
async function coldParts(opts: SessionOptions, env: NodeJS.ProcessEnv): Promise<WarmParts> {
  const repo = await openRepository({ cwd: opts.cwd ?? process.cwd(), repoDir: opts.repoDir });
  const config = await loadConfig(repo, env);
  const store = new ObjectStore(repo, { compression: looseCompression(config), promisor: promisorRemote(config) });
  return { repo, config, store, release: () => store.close() };
}

export async function openSession(opts: SessionOptions = {}): Promise<Session> {
  const env = opts.env ?? process.env;
  const { repo, config, store, release } = opts.warm ? await opts.warm.acquire(opts.cwd ?? process.cwd(), opts.repoDir, env) : await coldParts(opts, env);
  const session: Session = { repo, config, store, env, recovered: null, close: release };
  try {
    await checkRepositorySupported(repo, config);
    repo.fsync = fsyncPolicy(config);
    // a signal that waited for the recovery to finish: the command itself is not started
    if (!opts.noRecover)
      session.recovered = await recoverInterrupted(session, { checkoutInUse: repo.workdir !== null && opts.ref === undefined, stopOnSignal: true });
  } catch (e) {
    release();
    throw e;
  }
  return session;
}

/** Opens a session, runs `fn` in it, then closes what the session keeps open (its pack files). */
export async function withSession<T>(opts: SessionOptions, fn: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(opts);
  try {
    return await fn(session);
  } catch (e) {
    // what recovery did before the command failed is news too (its warnings above all)
    if (session.recovered && e instanceof PatchtxError && e.data.recovered === undefined) {
      throw new PatchtxError(e.kind, e.message, { ...e.data, recovered: session.recovered });
    }
    throw e;
  } finally {
    session.close();
  }
}
