// The index lock, git's protocol: whoever creates <gitdir>/index.lock (O_CREAT|O_EXCL) owns the
// index until it renames the lock over the index (commit) or deletes it (rollback). The index is
// read under the lock, and written with the updates merged in.
import type { BigIntStats } from 'node:fs';
import { rename, unlink } from '../fs/fsx.js';
import type { FileHandle } from '../fs/fsx.js';
import { PatchtxError } from '../../errors.js';
import { fsError } from '../fs/io-error.js';
import { createLockFile, removeWitness } from '../fs/lock-file.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import type { Repository } from '../repo/repository.js';
import { timestampOfNs } from './entry.js';
import { renderIndexLayout, type GitIndex, type RenderedIndex } from './format.js';
import { indexPathOf, readIndex, INDEX_CACHE_MAX_BYTES, type IndexCache } from './read.js';
import { sortedValidUpdates, type IndexUpdate, type SortedUpdate } from './updates.js';

/** `witness`: see lock-file.ts; it goes when the lock does. */
export async function lockIndex(repo: Repository, witness?: string): Promise<IndexLock> {
  const lockPath = `${indexPathOf(repo)}.lock`;
  let handle: FileHandle;
  try {
    handle = await createLockFile(lockPath, witness);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new PatchtxError('stale', `another git process holds ${lockPath}`, { path: lockPath });
    }
    throw fsError(e, 'create', lockPath);
  }
  try {
    // read after locking: only now can nobody following the protocol change it under us
    return new IndexLock(indexPathOf(repo), lockPath, handle, await readIndex(repo), witness, shouldFsync(repo, 'index'), repo.indexCache);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(lockPath).catch(() => undefined);
    removeWitness(witness);
    throw e;
  }
}

export class IndexLock {
  readonly indexPath: string;
  readonly lockPath: string;
  /** the index as read after taking the lock (null: no index file yet) */
  readonly index: GitIndex | null;
  private handle: FileHandle | null;
  /** the updates last vetted by check(), sorted */
  private checked: SortedUpdate[] | undefined;

  private readonly witness: string | undefined;
  /** whether the written index is fsynced (core.fsync of the repository) */
  private readonly sync: boolean;
  /** where a repository kept between commands keeps the index it wrote (see write) */
  private readonly cache: IndexCache | undefined;

  constructor(indexPath: string, lockPath: string, handle: FileHandle, index: GitIndex | null, witness?: string, sync = false, cache?: IndexCache) {
    this.indexPath = indexPath;
    this.lockPath = lockPath;
    this.handle = handle;
    this.index = index;
    this.witness = witness;
    this.sync = sync;
    this.cache = cache;
  }

  get held(): boolean {
    return this.handle !== null;
  }

  /** Throws what write() would throw for updates of these paths (see validateIndexUpdates), and
   * remembers their order: a write of the same paths then skips what was checked here. */
  check(updates: ReadonlyMap<string, IndexUpdate>): void {
    this.checked = undefined; // a failed check leaves nothing vetted behind
    this.checked = sortedValidUpdates(this.index, updates);
  }

  /**
   * Writes the index with `updates` merged in (see renderIndex) into the lock file, fsyncs it and
   * renames it over the index; the lock is gone afterwards, also when this fails. A repository
   * kept between commands keeps what was written as its parsed index (IndexCache.keepWritten):
   * the next command then neither reads nor parses the file it wrote, as long as it is unchanged.
   */
  async write(updates: ReadonlyMap<string, IndexUpdate>): Promise<void> {
    const handle = this.handle;
    if (!handle) throw new PatchtxError('internal', `${this.lockPath} is no longer held`, { path: this.lockPath });
    let written: { rendered: RenderedIndex; st: BigIntStats } | null = null;
    try {
      const rendered = renderIndexLayout(this.index, updates, this.checked);
      await handle.writeAll(rendered.pieces);
      if (this.sync) await handle.sync();
      // the written file's identity comes from its own handle: after the rename the name may
      // already stand for another file
      const keep = this.cache !== undefined && rendered.size <= INDEX_CACHE_MAX_BYTES;
      const st = keep ? await handle.stat({ bigint: true }) : null;
      this.handle = null;
      await handle.close();
      await rename(this.lockPath, this.indexPath);
      if (st) written = { rendered, st };
      else this.cache?.clear(); // too large to keep
    } catch (e) {
      this.handle = null;
      await handle.close().catch(() => undefined);
      await unlink(this.lockPath).catch(() => undefined);
      throw fsError(e, 'write', this.indexPath);
    } finally {
      removeWitness(this.witness);
    }
    if (written) {
      const { rendered, st } = written;
      const file = this.indexPath;
      this.cache!.keepWritten(
        () => rendered.asParsed(Buffer.concat(rendered.pieces), file, timestampOfNs(st.mtimeNs)),
        st,
        rendered.checksum().toString('hex'),
      );
    }
  }

  /** Gives the lock up without touching the index; a no-op once written or released. */
  async release(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    this.handle = null;
    await handle.close().catch(() => undefined);
    await unlink(this.lockPath).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw fsError(e, 'remove', this.lockPath);
    });
    removeWitness(this.witness);
  }
}
