// The in-memory overlay of the repository: a memfs volume holding only the paths a patch touches,
// loaded from the base commit (or, with --dirty=include, from the working tree). The engine reads
// the overlay through the FileLookup contract; nothing outside the touched paths is ever loaded,
// so the cost of a transaction follows the size of the patch, not the size of the repository.
import { Volume } from 'memfs';
import type { FileLookup } from '../engine/types.js';

export class Overlay implements FileLookup {
  private readonly vol = new Volume();
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
    try {
      const abs = '/' + path;
      if (!this.vol.statSync(abs).isFile()) return undefined;
      return new Uint8Array(this.vol.readFileSync(abs) as Buffer);
    } catch {
      return undefined;
    }
  }

  isDirectory(path: string): boolean {
    return this.directories.has(path);
  }
}
