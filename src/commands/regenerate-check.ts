// Whether a patch regenerated from a commit's diff (`show --regenerate`) makes that commit's tree
// again when applied to its first parent. The patch says the change of the file contents; git may
// store the result otherwise than the commit holds it (`git apply --index` commits a unified
// diff's lines ending with CR as they are, where a `git add` of the file in a `text` file strips
// them), and then no patch applied makes the same blob. The check applies the patch as `apply`
// would, writing nothing (a check onto a branch that does not exist, started at the parent), and
// compares the trees; the paths git would store otherwise are named.
import { converts } from '../git/worktree/convert.js';
import { conversionsInTree, storedAsItIs } from '../tx/conversions.js';
import type { Session, SessionOptions } from '../tx/session.js';
import type { Warning } from '../warnings.js';
import { applyTransaction } from './apply.js';

/** A branch name no one uses: the check starts it at the parent, and writes nothing. */
const checkRef = (parent: string | null): string => `refs/heads/patchtx-regenerate-check-${parent ?? 'root'}`;
const NOBODY = 'patchtx <patchtx@regenerate.invalid>';

export type RegeneratedDiffers = Warning<'regenerated_differs'> & { expected: string; actual: string | null };

/** The tree `patch` makes on `parent` (null: a first commit), or null when it does not apply there. */
export async function treeMadeBy(opts: SessionOptions, parent: string | null, patch: string): Promise<string | null> {
  try {
    const result = await applyTransaction({
      ...opts,
      patchText: patch,
      ref: checkRef(parent),
      ...(parent === null ? { orphan: true } : { base: parent }),
      check: true,
      allowReapply: true,
      author: NOBODY,
      committer: NOBODY,
      sign: false,
      noVerify: true,
      message: 'regenerated',
    });
    return result.tree;
  } catch {
    return null;
  }
}

/**
 * The warning for a regenerated patch that makes `actual` where the commit has `expected`: it
 * names the first path whose committed blob a `git add` of its checkout would not store (else none).
 */
export async function regeneratedDiffers(
  session: Session,
  tree: string,
  blobs: ReadonlyMap<string, Uint8Array | null>,
  trees: { expected: string; actual: string | null },
): Promise<RegeneratedDiffers> {
  const paths = [...blobs.keys()];
  const conversions = await conversionsInTree(session, tree, paths);
  const path =
    paths.find((p) => {
      const blob = blobs.get(p);
      const conversion = conversions.get(p) ?? null;
      return blob != null && conversion !== null && converts(conversion) && storedAsItIs(blob, conversion) === undefined;
    }) ?? '';
  const why = path === '' ? '' : `: git stores ${path} otherwise than the commit holds it (lines ending with CR in a file git converts)`;
  const made = trees.actual === null ? 'does not apply to its parent' : `would make the tree ${trees.actual.slice(0, 12)}`;
  return {
    kind: 'regenerated_differs',
    message: `the regenerated patch ${made}, not the commit's tree ${trees.expected.slice(0, 12)}${why}; it would not make the commit's tree again`,
    path,
    ...trees,
  };
}
