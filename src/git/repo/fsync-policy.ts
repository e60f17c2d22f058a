// Which writes are fsynced, as git decides it from `core.fsync` (git >= 2.36): a comma-separated
// list of component names, each word naming every component whose name it starts with (so `pack`
// names pack and pack-metadata), aggregates (objects, derived-metadata, committed, added, all),
// a leading `-` removing, and `none` (as the whole rest of the value) clearing. The result is the
// default set without the removed components, plus the added ones. The older
// `core.fsyncObjectFiles` adds loose objects.
//
// git's default fsyncs the packs it writes and their indexes but none of the things a commit
// writes (refs, the index, loose objects): a killed process loses nothing that was written (the
// kernel has it); only a power loss can, exactly as for git. The pack a transaction writes holds
// what `git commit` would write as loose objects: see shouldFsyncTransactionPack. The transaction
// journal counts as a reference: it decides what the refs mean after a crash.
//
// The policy belongs to a repository (Repository.fsync, set when a session opens it from its
// configuration), not to the process: a program using the library may serve several repositories
// with different settings at once.
import type { GitConfig } from './config.js';
import type { Repository } from './repository.js';

export type FsyncComponent = 'loose-object' | 'pack' | 'pack-metadata' | 'commit-graph' | 'index' | 'reference';

const NAMES: [string, FsyncComponent[]][] = [
  ['loose-object', ['loose-object']],
  ['pack', ['pack']],
  ['pack-metadata', ['pack-metadata']],
  ['commit-graph', ['commit-graph']],
  ['index', ['index']],
  ['objects', ['loose-object', 'pack']],
  ['reference', ['reference']],
  ['derived-metadata', ['pack-metadata', 'commit-graph']],
  ['committed', ['loose-object', 'pack', 'reference']],
  ['added', ['loose-object', 'pack', 'reference', 'index']],
  ['all', ['loose-object', 'pack', 'pack-metadata', 'commit-graph', 'index', 'reference']],
];

const DEFAULT: readonly FsyncComponent[] = ['pack', 'pack-metadata', 'commit-graph'];

export interface FsyncPolicy {
  readonly enabled: ReadonlySet<FsyncComponent>;
  /** whether core.fsync was set at all (a set value keeps the default components unless it removes them) */
  readonly configured: boolean;
}

/** git's default, for a repository whose configuration was not read */
const DEFAULT_POLICY: FsyncPolicy = { enabled: new Set(DEFAULT), configured: false };

/** The components one `core.fsync` value names, read the way git reads it. */
export function parseFsyncComponents(value: string): Set<FsyncComponent> {
  let current = new Set<FsyncComponent>(DEFAULT);
  const positive = new Set<FsyncComponent>();
  const negative = new Set<FsyncComponent>();
  let rest = value;
  while (rest.length > 0) {
    rest = rest.replace(/^[, \t\n\r]+/, '');
    const comma = rest.indexOf(',');
    const end = comma < 0 ? rest.length : comma;
    let word = rest.slice(0, end);
    if (rest === 'none') {
      current = new Set();
    } else {
      const negated = word.startsWith('-');
      if (negated) word = word.slice(1);
      if (word.length === 0) break;
      for (const [name, components] of NAMES) {
        if (!name.startsWith(word)) continue;
        for (const c of components) (negated ? negative : positive).add(c);
      }
    }
    rest = rest.slice(end);
  }
  const result = new Set([...current].filter((c) => !negative.has(c)));
  for (const c of positive) result.add(c);
  return result;
}

/** The policy a repository's configuration sets. */
export function fsyncPolicy(config: GitConfig): FsyncPolicy {
  // like any single-valued git setting, the last value read (system, global, repository) wins
  const values = config.getAll('core.fsync');
  const value = values[values.length - 1];
  const set = value === undefined ? new Set<FsyncComponent>(DEFAULT) : parseFsyncComponents(value);
  if (config.getBool('core.fsyncObjectFiles')) set.add('loose-object');
  return { enabled: set, configured: value !== undefined };
}

/** Whether writes of `component` in `repo` are fsynced. */
export function shouldFsync(repo: Pick<Repository, 'fsync'>, component: FsyncComponent): boolean {
  return (repo.fsync ?? DEFAULT_POLICY).enabled.has(component);
}

/**
 * Whether a transaction's pack (`pack`) or its index (`pack-metadata`) is fsynced. The pack holds
 * the objects `git commit` would write loose, which git's default does not fsync; so by default
 * neither is the pack (an fsync of it cost 13-15 ms of a 10- or 100-file transaction here). The
 * loose-object component turns it on, and so does a core.fsync the user set that keeps the
 * component (`core.fsync=pack`, or `reference`, which keeps the default ones): someone who sets
 * core.fsync asks for durability.
 */
export function shouldFsyncTransactionPack(repo: Pick<Repository, 'fsync'>, component: 'pack' | 'pack-metadata'): boolean {
  const { enabled, configured } = repo.fsync ?? DEFAULT_POLICY;
  return enabled.has('loose-object') || (configured && enabled.has(component));
}
