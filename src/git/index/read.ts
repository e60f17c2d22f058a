// Where this checkout's index file is, and reading it: the bytes and the timestamp racy-git checks
// compare against come from one open file.
import path from 'node:path';
import { open } from '../fs/fsx.js';
import type { FileHandle } from '../fs/fsx.js';
import { fsError } from '../fs/io-error.js';
import type { Repository } from '../repo/repository.js';
import { timestampOfNs } from './entry.js';
import { parseIndex, type GitIndex } from './format.js';

export function indexPathOf(repo: Repository): string {
  return path.join(repo.gitdir, 'index');
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
    const bytes = await handle.readKnownSize(Number(st.size));
    return parseIndex(bytes, file, timestampOfNs(st.mtimeNs));
  } catch (e) {
    throw fsError(e, 'read', file);
  } finally {
    await handle.close();
  }
}
