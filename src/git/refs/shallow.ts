// The boundary of a shallow clone (`git clone --depth N`, the CI default): `<common dir>/shallow`
// lists the commits whose parents were not fetched. A history walk stops there instead of
// reading a parent that is not in the repository.
import path from 'node:path';
import { readFile } from '../fs/fsx.js';
import type { Repository } from '../repo/repository.js';

/** The commits whose parents this clone does not hold (empty in a complete repository). */
export async function readShallow(repo: Repository): Promise<ReadonlySet<string>> {
  let text: string;
  try {
    text = await readFile(path.join(repo.commonDir, 'shallow'), 'utf8');
  } catch {
    return new Set();
  }
  return new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^[0-9a-f]{40}$/.test(l)),
  );
}

/** What a caller can do about a walk that stopped at the boundary. */
export const DEEPEN_REMEDY = "'git fetch --deepen=N' (or --unshallow) fetches older history";
