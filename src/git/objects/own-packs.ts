// Which packs in objects/pack/ patchtx wrote: one empty file per pack, `pack-<checksum>`, in
// `<common dir>/patchtx/packs/`. A fold (pack-fold.ts) may take in and remove only these; every
// other pack is git's, the user's or another tool's, and is never touched. The record of a pack is
// made after its .keep file and before the pack itself, and removed after the pack, so that a pack
// of patchtx's always has its record; a record may outlive its pack (a crash, a repack by git), and
// the next fold drops it. One file per pack, not one list: a run adds its record without a lock and
// without reading anything, and runs of several processes never rewrite each other's.
import path from 'node:path';
import { mkdir, readdir, rm, writeFile } from '../fs/fsx.js';
import { fsError } from '../fs/io-error.js';

const RECORD = /^pack-([0-9a-f]{40})$/;

/** The directory of the records (and of the fold's lock). */
export const ownPacksDir = (commonDir: string): string => path.join(commonDir, 'patchtx', 'packs');

/** Records the pack named by `checksum` as patchtx's own. */
export async function recordOwnPack(commonDir: string, checksum: string): Promise<void> {
  const dir = ownPacksDir(commonDir);
  const file = path.join(dir, `pack-${checksum}`);
  try {
    // the directory is there after the first pack: made only when the write finds it missing
    await writeFile(file, '').catch(async (e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(dir, { recursive: true });
      await writeFile(file, '');
    });
  } catch (e) {
    throw fsError(e, 'write pack', file, { pack: checksum });
  }
}

/** The checksums of the packs recorded as patchtx's own (some may be gone by now). */
export async function ownPacks(commonDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(ownPacksDir(commonDir));
  } catch {
    return []; // nothing recorded yet
  }
  return names.flatMap((n) => {
    const m = RECORD.exec(n);
    return m ? [m[1]!] : [];
  });
}

/** Drops the record of a pack that is gone. */
export async function forgetOwnPack(commonDir: string, checksum: string): Promise<void> {
  await rm(path.join(ownPacksDir(commonDir), `pack-${checksum}`), { force: true });
}
