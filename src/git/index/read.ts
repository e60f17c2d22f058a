// Where this checkout's index file is, and reading it: the bytes and the timestamp racy-git checks
// compare against come from one open file.
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { open } from '../fs/fsx.js';
import type { FileHandle } from '../fs/fsx.js';
import { fsError } from '../fs/io-error.js';
import type { Repository } from '../repo/repository.js';
import { timestampOfNs } from './entry.js';
import { parseIndex, type GitIndex } from './format.js';

/** What identifies the file each index was read from (see indexIdentity). */
const identities = new WeakMap<GitIndex, string>();

/**
 * The file an index was read from, as one string: its size, mtime, inode and device, and its
 * trailing checksum. Two reads with the same identity saw the same index (the checksum covers
 * the content; the stat data covers an index written with index.skipHash, whose trailer is zero,
 * and the mtime is the timestamp racy-git checks compare with). null for an index not read by
 * readIndex.
 */
export function indexIdentity(index: GitIndex): string | null {
  return identities.get(index) ?? null;
}

/** indexIdentity of the file with stat data `st` and trailing checksum `trailer` (hex). */
function identityOf(st: BigIntStats, trailer: string): string {
  return `${st.size}:${st.mtimeNs}:${st.ino}:${st.dev}:${trailer}`;
}

export function indexPathOf(repo: Repository): string {
  return path.join(repo.gitdir, 'index');
}

/** The largest index a repository kept between commands holds on to (see IndexCache). */
export const INDEX_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The last index read or written, kept by a repository open between commands
 * (Repository.indexCache): a read of an index file with the same identity (indexIdentity) returns
 * it instead of reading and parsing the file again. A parsed index is never changed, so it can be
 * shared. One index at most, and none larger than INDEX_CACHE_MAX_BYTES.
 */
export class IndexCache {
  private identity = '';
  private index: GitIndex | null = null;
  /** makes the index written last (see keepWritten), until it is made */
  private pending: (() => GitIndex) | null = null;

  /** Whether an index is kept at all. */
  get holds(): boolean {
    return this.index !== null || this.pending !== null;
  }

  /** The index kept, whatever file it stands for; null when none. */
  get kept(): GitIndex | null {
    this.settle();
    return this.index;
  }

  /** The index kept for the file of this identity, or null. */
  get(identity: string): GitIndex | null {
    return identity === this.identity ? this.kept : null;
  }

  /** Keeps `index`, read from the file of this identity. */
  keep(identity: string, index: GitIndex): void {
    this.clear();
    if (index.bytes.length > INDEX_CACHE_MAX_BYTES) return;
    this.identity = identity;
    this.index = index;
  }

  clear(): void {
    this.identity = '';
    this.index = null;
    this.pending = null;
  }

  /**
   * Keeps the index just written to the file whose stat data (taken from the written file's own
   * handle, before it was renamed into place) is `st`: the next read returns it while the index
   * file is that file, unchanged, as for an index read. `make` gives it as parsed (joining the
   * written pieces into one buffer): that is done once the current command has returned, off its
   * path, or by the first read that needs it sooner.
   */
  keepWritten(make: () => GitIndex, st: BigIntStats, trailer: string): void {
    this.clear();
    this.identity = identityOf(st, trailer);
    this.pending = make;
    setImmediate(() => {
      if (this.pending === make) this.settle();
    });
  }

  private settle(): void {
    const make = this.pending;
    if (make === null) return;
    this.pending = null;
    try {
      const index = make();
      identities.set(index, this.identity);
      this.index = index;
    } catch {
      this.clear(); // the next read reads the file
    }
  }
}

/** Reads <gitdir>/index; null when the repository has no index file yet. */
export async function readIndex(repo: Repository): Promise<GitIndex | null> {
  const file = indexPathOf(repo);
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw fsError(e, 'read', file);
  }
  try {
    // the timestamp and the bytes come from the same open file, so they describe the same index
    const st = await handle.stat({ bigint: true });
    const cache = repo.indexCache;
    if (cache?.holds && st.size >= 20n) {
      // git replaces the index by renaming a new file over it: the trailer of this open file and
      // its stat data describe one and the same content
      const trailer = Buffer.alloc(20);
      const { bytesRead } = await handle.read(trailer, 0, 20, Number(st.size) - 20);
      const kept = bytesRead === 20 ? cache.get(identityOf(st, trailer.toString('hex'))) : null;
      if (kept) return kept;
    }
    const bytes = await handle.readKnownSize(Number(st.size));
    const index = parseIndex(bytes, file, timestampOfNs(st.mtimeNs));
    const identity = identityOf(st, bytes.length >= 20 ? bytes.toString('hex', bytes.length - 20) : '');
    identities.set(index, identity);
    cache?.keep(identity, index);
    return index;
  } catch (e) {
    throw fsError(e, 'read', file);
  } finally {
    await handle.close();
  }
}
