// The transaction's side of git's content conversion (src/git/worktree/convert.ts): which conversion each
// touched path has in a given commit (its .gitattributes files), what `git add` would store for
// working-tree bytes (reading the index's blob only when git's text=auto rule needs it), and what
// `git checkout` would write for the blobs of a commit.
import { PatchtxError } from '../errors.js';
import type { LineForm } from '../edits/line-form.js';
import { consultsIndex, converts, hasCrlfText, toGit, toWorktree, type Conversion, type ToGitResult } from '../git/worktree/convert.js';
import { conversionsForPaths } from '../git/repo/features.js';
import type { ObjectStore } from '../git/objects/store.js';
import { lookupPaths } from '../git/objects/tree-edit.js';
import type { Session } from './session.js';

export type { Conversion };

/**
 * The conversion of each of `paths` with the .gitattributes files of commit tree `tree` (null: no
 * commit yet); `override` gives files' contents that replace the tree's (a patch's own
 * .gitattributes; null: deleted). Refuses filters and working-tree-encoding.
 */
export async function conversionsInTree(
  session: Session,
  tree: string | null,
  paths: readonly string[],
  override?: ReadonlyMap<string, Uint8Array | null>,
): Promise<Map<string, Conversion>> {
  const readText = async (p: string): Promise<string | null> => {
    if (override?.has(p)) {
      const bytes = override.get(p);
      return bytes ? Buffer.from(bytes).toString('utf8') : null;
    }
    const found = (await lookupPaths(session.store, tree, [p])).get(p);
    return found?.type === 'blob' ? Buffer.from(await session.store.readBlob(found.oid)).toString('utf8') : null;
  };
  return conversionsForPaths(session.repo, paths, readText, { config: session.config, env: session.env });
}

/**
 * What `git add` stores for working-tree bytes at a path whose index entry is blob `indexOid`
 * (null: none); git's text=auto rule keeps CRLF when that blob has it.
 */
export async function storedForm(store: ObjectStore, conversion: Conversion, bytes: Uint8Array, indexOid: string | null): Promise<ToGitResult> {
  if (!converts(conversion)) return { data: bytes, lost: null };
  const indexHasCrlf = indexOid !== null && consultsIndex(bytes, conversion) && hasCrlfText(await store.readBlob(indexOid));
  return toGit(bytes, conversion, indexHasCrlf);
}

/**
 * core.safecrlf, as `git add` applies it: with `true` a file that checkout would not give back as
 * it is (CRLF stored as LF, or LF that checkout turns into CRLF) is refused; with `warn` (git's
 * default) the returned message says what changes.
 */
export function roundTripCheck(path: string, conversion: Conversion, stored: ToGitResult): string | null {
  if (stored.lost === null || conversion.safecrlf === 'off') return null;
  const what = stored.lost === 'crlf' ? 'CRLF would be replaced by LF' : 'LF would be replaced by CRLF';
  if (conversion.safecrlf === 'die') {
    throw new PatchtxError(
      'unsupported_repository',
      `${what} in ${path} (core.safecrlf=true), as git add would refuse it; give the file the line endings its attributes ask for, or set core.safecrlf=warn`,
      { feature: 'safecrlf', path, lost: stored.lost },
    );
  }
  return stored.lost === 'crlf'
    ? `${path}: its CRLF line endings were replaced by LF, as git stores the file and checks it out (its line-ending attributes or core.autocrlf)`
    : `${path}: its LF line endings were replaced by CRLF, as git checks the file out (its line-ending attributes or core.autocrlf)`;
}

/** What `git checkout` writes for each blob of commit `commit` at `paths`: toWorktree per path. */
export async function checkoutForms(session: Session, commit: string, paths: readonly string[]): Promise<(path: string, blob: Uint8Array) => Uint8Array> {
  const tree = (await session.store.readCommit(commit)).tree;
  const conversions = await conversionsInTree(session, tree, paths);
  return (p, blob) => {
    const c = conversions.get(p);
    return c && converts(c) ? toWorktree(blob, c) : blob;
  };
}

/**
 * The conversion of each path of a patch's result: with the attributes of the base tree, unless
 * the patch changes a .gitattributes file, whose new content then counts (as it would for the
 * `git add` that follows such an edit).
 */
export async function conversionsOfResult(
  session: Session,
  baseTree: string | null,
  files: ReadonlyMap<string, Uint8Array | null>,
  before: ReadonlyMap<string, { conversion: Conversion }>,
): Promise<Map<string, Conversion>> {
  const attributeFiles = [...files].filter(([p]) => p === '.gitattributes' || p.endsWith('/.gitattributes'));
  if (attributeFiles.length === 0) return new Map([...files.keys()].map((p) => [p, before.get(p)!.conversion]));
  return conversionsInTree(session, baseTree, [...files.keys()], new Map(attributeFiles));
}

export interface CommittedForm {
  /** what is committed */
  blob: Uint8Array;
  /** what the working tree gets */
  worktree: Uint8Array;
  /** core.safecrlf's warning, if any */
  warning: string | null;
}

/** The blob `git add` stores for a path's new working-tree bytes, and what checkout then writes. */
export async function committedForm(
  session: Session,
  path: string,
  bytes: Uint8Array,
  conversion: Conversion | null,
  indexOid: string | null,
  checkRoundTrip: boolean,
): Promise<CommittedForm> {
  if (conversion === null || !converts(conversion)) return { blob: bytes, worktree: bytes, warning: null };
  const stored = await storedForm(session.store, conversion, bytes, indexOid);
  const warning = checkRoundTrip ? roundTripCheck(path, conversion, stored) : null;
  return { blob: stored.data, worktree: toWorktree(stored.data, conversion), warning };
}

/**
 * Content given in the form git stores it (a unified diff's result, Plan.stored), committed as
 * `git apply --index` commits it: as it is, with no clean conversion (so no core.safecrlf check),
 * and checked out converted. Undefined where git would then see the file modified (`git add` of
 * what checkout wrote would store something else: lines ending with CR in a `text` file): such
 * content is committed as `git add` stores it, so that the working tree is left clean.
 */
export function storedAsItIs(blob: Uint8Array, conversion: Conversion | null): CommittedForm | undefined {
  if (conversion === null || !converts(conversion)) return { blob, worktree: blob, warning: null };
  const worktree = toWorktree(blob, conversion);
  // once committed, the blob is the index entry text=auto consults
  const again = toGit(worktree, conversion, hasCrlfText(blob)).data;
  return Buffer.from(again).equals(blob) ? { blob, worktree, warning: null } : undefined;
}

/** A path's conversion and the blob of its index entry (null: none), which git's text=auto rule consults. */
export interface ConvertedPath {
  path: string;
  conversion: Conversion;
  indexOid: string | null;
}

/**
 * The line forms (edits/line-form.ts) of `paths`: `git add`'s and `git checkout`'s conversions of
 * each, over UTF-8 text, for those whose conversion can change content.
 */
export async function lineFormsOf(store: ObjectStore, paths: readonly ConvertedPath[]): Promise<Map<string, LineForm>> {
  const forms = new Map<string, LineForm>();
  for (const { path, conversion, indexOid } of paths) {
    if (!converts(conversion)) continue;
    const indexHasCrlf = conversion.crlf === 'auto' && indexOid !== null && hasCrlfText(await store.readBlob(indexOid));
    const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
    forms.set(path, {
      toGit: (t) => text(toGit(Buffer.from(t, 'utf8'), conversion, indexHasCrlf).data),
      toWorktree: (t) => text(toWorktree(Buffer.from(t, 'utf8'), conversion)),
    });
  }
  return forms;
}
