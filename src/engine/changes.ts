// The net effect of a patch per path, compared with the base rather than hunk by hunk: a file
// added and then deleted is no change; an update that restores the original bytes is no change;
// content that moved away from a base file that is gone at the end is a rename (R), even when
// it was edited on the way.
import type { PatchedTree } from './patched-tree.js';
import type { FileChange } from './types.js';

export function netChanges(tree: PatchedTree): FileChange[] {
  const finals = tree.touched();
  const renamedFrom = new Map<string, string>(); // destination -> base source
  const renamedAway = new Set<string>();
  for (const [path, content] of finals) {
    if (content === null) continue;
    const origin = tree.originOf(path);
    if (origin === undefined || origin === path) continue;
    if (tree.baseRead(origin) === undefined || tree.read(origin) !== undefined) continue;
    const base = tree.baseRead(path);
    if (base !== undefined && base.equals(content)) continue; // destination ends up unchanged
    renamedFrom.set(path, origin);
    renamedAway.add(origin);
  }

  const changes: FileChange[] = [];
  for (const [path, content] of finals) {
    const from = renamedFrom.get(path);
    if (from !== undefined) {
      changes.push({ op: 'R', path, from });
      continue;
    }
    const base = tree.baseRead(path);
    if (content === null) {
      if (base !== undefined && !renamedAway.has(path)) changes.push({ op: 'D', path });
    } else if (base === undefined) {
      changes.push({ op: 'A', path });
    } else if (!base.equals(content)) {
      changes.push({ op: 'M', path });
    }
  }
  return changes;
}
