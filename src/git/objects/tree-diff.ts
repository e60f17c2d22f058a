// The paths that differ between two trees, found by walking both and descending only into
// subtrees whose ids differ, so the cost follows the size of the change.
import type { TreeEntry } from './model/tree.js';
import type { ObjectStore } from './store.js';

export interface EntryState {
  oid: string;
  mode: TreeEntry['mode'];
}

export interface PathDelta {
  path: string;
  before: EntryState | null;
  after: EntryState | null;
}

const isTree = (e: TreeEntry | undefined): boolean => e?.mode === '40000';
const NO_ENTRIES: ReadonlyMap<string, TreeEntry> = new Map();

export async function diffTrees(store: ObjectStore, a: string | null, b: string | null): Promise<PathDelta[]> {
  const out: PathDelta[] = [];
  const walk = async (ta: string | null, tb: string | null, prefix: string): Promise<void> => {
    if (ta === tb) return;
    // keyed by the name's bytes: two names that are not valid UTF-8 may decode alike
    const ea = ta ? await store.treeIndex(ta) : NO_ENTRIES;
    const eb = tb ? await store.treeIndex(tb) : NO_ENTRIES;
    const keys = [...new Set([...ea.keys(), ...eb.keys()])].sort();
    for (const key of keys) {
      const x = ea.get(key);
      const y = eb.get(key);
      if (x && y && x.oid === y.oid && x.mode === y.mode) continue;
      const p = prefix + (x ?? y)!.name;
      if (isTree(x) || isTree(y)) {
        await walk(isTree(x) ? x!.oid : null, isTree(y) ? y!.oid : null, p + '/');
      }
      const bx = x && !isTree(x) ? { oid: x.oid, mode: x.mode } : null;
      const by = y && !isTree(y) ? { oid: y.oid, mode: y.mode } : null;
      if (bx || by) out.push({ path: p, before: bx, after: by });
    }
  };
  await walk(a, b, '');
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}
