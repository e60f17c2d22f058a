// Which writes are fsynced, as git decides it: `core.fsync` names components (reference, index,
// loose-object, ..., with aggregates committed/added/all and a leading `-` to remove one), and the
// older `core.fsyncObjectFiles` adds loose objects. git's default fsyncs none of what patchtx
// writes (refs, the index, loose objects), and neither does patchtx then: a killed process loses
// nothing that was written (the kernel has it); only a power loss can, exactly as for git.
// The transaction journal counts as a reference: it decides what the refs mean after a crash.
import type { GitConfig } from './config.js';

export type FsyncComponent = 'reference' | 'index' | 'loose-object';

const AGGREGATES: Record<string, FsyncComponent[]> = {
  none: [],
  default: [],
  objects: ['loose-object'],
  committed: ['reference', 'loose-object'],
  added: ['reference', 'loose-object', 'index'],
  all: ['reference', 'loose-object', 'index'],
};

let enabled = new Set<FsyncComponent>();

export function configureFsync(config: GitConfig): void {
  const set = new Set<FsyncComponent>();
  // like any single-valued git setting, the last value read (system, global, repository) wins
  const values = config.getAll('core.fsync');
  const value = values[values.length - 1];
  if (value !== undefined) {
    for (const raw of value.split(',')) {
      const item = raw.trim().toLowerCase();
      const remove = item.startsWith('-');
      const name = remove ? item.slice(1) : item;
      const parts: FsyncComponent[] = AGGREGATES[name] ?? (['reference', 'index', 'loose-object'].includes(name) ? [name as FsyncComponent] : []);
      for (const c of parts) (remove ? set.delete(c) : set.add(c));
    }
  }
  if (config.getBool('core.fsyncObjectFiles')) set.add('loose-object');
  enabled = set;
}

export function shouldFsync(component: FsyncComponent): boolean {
  return enabled.has(component);
}
