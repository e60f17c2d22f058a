// Which of a few commits a repository's refs still reach, leaving some refs out: `apply --push
// --retry` drops the notes of the commits it abandons, but not of one that another branch (or a
// tag, a remote-tracking ref, the detached HEAD of any checkout) still holds. Every ref counts except those named,
// and the notes refs (notes annotate commits, they do not keep them). The walk from each ref stops
// at commits older than the oldest commit asked about (by committer time, with a day's leeway for
// skewed clocks): a commit that reaches another was made after it, so the history below that
// cannot lead to one of them, and the walk does not go down the whole history.
import path from 'node:path';
import { readdir, readFile } from '../fs/fsx.js';
import { isObjectId } from '../objects/object-id.js';
import type { ObjectStore } from '../objects/store.js';
import type { Repository } from '../repo/repository.js';
import { peelToCommit, readRef } from './refs.js';

const LEEWAY_SECONDS = 24 * 60 * 60;

/** The names of the refs under refs/ (loose files and packed-refs lines), notes refs left out. */
async function refNames(repo: Repository): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.isDirectory()) await walk(path.join(dir, e.name), `${prefix}${e.name}/`);
      else if (e.isFile() && !e.name.endsWith('.lock')) names.add(`${prefix}${e.name}`);
    }
  };
  await walk(path.join(repo.commonDir, 'refs'), 'refs/');
  const packed = await readFile(path.join(repo.commonDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of String(packed).split('\n')) {
    const m = /^[0-9a-f]{40} (refs\/\S+)$/.exec(line);
    if (m) names.add(m[1]!);
  }
  for (const n of names) if (n.startsWith('refs/notes/')) names.delete(n);
  return names;
}

/**
 * The commits the checkouts' HEADs hold when detached: this one's, the main working tree's and
 * every linked one's (<common dir>/worktrees/NAME/HEAD), as git's reachability counts them (a
 * `git gc` keeps what any of them is on).
 */
async function detachedHeads(repo: Repository): Promise<string[]> {
  const files = new Set([path.join(repo.gitdir, 'HEAD'), path.join(repo.commonDir, 'HEAD')]);
  const linked = await readdir(path.join(repo.commonDir, 'worktrees')).catch(() => [] as string[]);
  for (const name of linked) files.add(path.join(repo.commonDir, 'worktrees', name, 'HEAD'));
  const heads: string[] = [];
  for (const file of files) {
    const text = String(await readFile(file, 'utf8').catch(() => '')).trim();
    if (isObjectId(text)) heads.push(text);
  }
  return heads;
}

/** Those of `commits` that a ref other than `except` (and a checkout's HEAD, when detached) reaches. */
export async function reachedByOtherRefs(store: ObjectStore, repo: Repository, commits: readonly string[], except: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(commits);
  const reached = new Set<string>();
  if (wanted.size === 0) return reached;
  let oldest = Infinity;
  for (const c of wanted) oldest = Math.min(oldest, (await store.readCommit(c)).committer.timestamp);
  const floor = oldest - LEEWAY_SECONDS;
  const names = await refNames(repo);
  for (const n of except) names.delete(n);
  const tips: string[] = await detachedHeads(repo);
  for (const n of names) {
    const oid = await readRef(repo, n).catch(() => null);
    // through annotated tags; a ref to a tree or a blob (or to an object not here) reaches no commit
    const commit = oid === null ? null : await peelToCommit(store, oid, n).catch(() => null);
    if (commit !== null) tips.push(commit);
  }
  const seen = new Set<string>();
  const queue = [...tips];
  while (queue.length > 0 && reached.size < wanted.size) {
    const c = queue.pop()!;
    if (seen.has(c)) continue;
    seen.add(c);
    if (wanted.has(c)) reached.add(c);
    const commit = await store.readCommit(c).catch(() => null);
    // a shallow clone's boundary, or history older than every commit asked about
    if (commit === null || commit.committer.timestamp < floor) continue;
    queue.push(...commit.parents);
  }
  return reached;
}
