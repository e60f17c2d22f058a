// The in-memory overlay of the repository: a memfs volume holding only the paths a patch touches,
// loaded from the base commit (or, with --dirty=include, from the working tree). The engine reads
// the overlay through the FileLookup contract; nothing outside the touched paths is ever loaded,
// so the cost of a transaction follows the size of the patch, not the size of the repository.
import { Volume } from 'memfs';
import type { FileLookup } from '../engine/types.js';

// The process the volume sees. By default memfs asks the real process for its user and group
// ids on every operation that creates or opens a node: two system calls each time, about a
// tenth of the overlay's cost on a 1,000-file patch (measured). They cannot change during a run,
// so they are asked once. (memfs's core also asks the global process when it creates a node and
// checks permissions; the bundled programs give it a view that asks once too: scripts/build.mjs.)
function volumeProcess(): NonNullable<Parameters<typeof Volume.fromJSON>[2]>['process'] {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return {
    cwd: () => '/',
    platform: process.platform,
    env: {},
    emitWarning: () => undefined,
    getuid: () => uid,
    getgid: () => gid,
  };
}

export class Overlay implements FileLookup {
  private readonly vol = Volume.fromJSON({}, '/', { process: volumeProcess() });
  /** paths known to be directories in the base (a tree there), without loading what is below */
  private readonly directories = new Set<string>();

  /** directories already made in the volume: a patch often touches many files of one directory */
  private readonly made = new Set<string>(['/']);

  putFile(path: string, data: Uint8Array): void {
    const abs = '/' + path;
    const dir = abs.slice(0, abs.lastIndexOf('/')) || '/';
    if (!this.made.has(dir)) {
      this.vol.mkdirSync(dir, { recursive: true });
      this.made.add(dir);
    }
    this.vol.writeFileSync(abs, data);
  }

  markDirectory(path: string): void {
    this.directories.add(path);
  }

  read(path: string): Uint8Array | undefined {
    let data: Buffer;
    try {
      // one lookup: a directory or a missing path throws (EISDIR, ENOENT)
      data = this.vol.readFileSync('/' + path) as Buffer;
    } catch {
      return undefined;
    }
    // the volume hands out a copy of its own: a view of it is enough
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }

  isDirectory(path: string): boolean {
    return this.directories.has(path);
  }
}
