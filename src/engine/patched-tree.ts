// The file tree as the patch sees it while it is being applied: the base (read-only) with the
// results of the hunks applied so far laid over it. Hunks run in patch order against this
// view, so a later hunk sees what an earlier one did.
import type { ContentLookup, FileContent } from './content.js';

export class PatchedTree {
  private readonly base: ContentLookup;
  private readonly baseCache = new Map<string, FileContent | undefined>();
  /** written paths in order of first touch; null = removed */
  private readonly writes = new Map<string, FileContent | null>();
  /**
   * Which base file a path's current content descends from through moves (null: none, the
   * content is new). Paths not listed descend from themselves, if they exist in the base.
   */
  private readonly origins = new Map<string, string | null>();
  /**
   * How many written files (not removed ones) lie below each directory, by the directory's path:
   * isDirectory asks this instead of going through every write (each Add and Move asks it, so a
   * patch of many files would cost writes x adds comparisons). Counted from the first question
   * on: a patch of updates alone never asks.
   */
  private filesBelow: Map<string, number> | null = null;

  constructor(base: ContentLookup) {
    this.base = base;
  }

  /** The file's content in the base, before the patch (read once, then cached). */
  baseRead(path: string): FileContent | undefined {
    if (this.baseCache.has(path)) return this.baseCache.get(path);
    const content = this.base.read(path);
    this.baseCache.set(path, content);
    return content;
  }

  read(path: string): FileContent | undefined {
    const written = this.writes.get(path);
    if (written !== undefined) return written ?? undefined;
    return this.baseRead(path);
  }

  exists(path: string): boolean {
    return this.read(path) !== undefined;
  }

  /** A directory now: a file lives below it (in the base, or written by the patch). */
  isDirectory(path: string): boolean {
    if (this.filesBelow === null) {
      this.filesBelow = new Map();
      for (const [p, content] of this.writes) if (content !== null) this.countBelow(p, 1);
    }
    if ((this.filesBelow.get(path) ?? 0) > 0) return true;
    // A base directory whose files the patch removed stays a directory: the reference leaves
    // emptied directories in place, and the lookup cannot list what else lives below it.
    return this.base.isDirectory(path);
  }

  /** The nearest proper ancestor of `path` that is a file now (writing `path` is impossible then). */
  fileAncestor(path: string): string | undefined {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      const ancestor = path.slice(0, slash);
      if (this.exists(ancestor)) return ancestor;
    }
    return undefined;
  }

  /** Add File: new content, descending from nothing. */
  create(path: string, content: FileContent): void {
    this.write(path, content);
    this.origins.set(path, null);
  }

  /** Update in place: the content keeps its ancestry. */
  replace(path: string, content: FileContent): void {
    this.write(path, content);
  }

  remove(path: string): void {
    this.write(path, null);
    this.origins.set(path, null);
  }

  move(from: string, to: string, content: FileContent): void {
    const origin = this.originOf(from);
    this.remove(from);
    this.write(to, content);
    this.origins.set(to, origin ?? null);
  }

  /** Records what `path` holds now, keeping the count of written files below each directory. */
  private write(path: string, content: FileContent | null): void {
    if (this.filesBelow !== null) {
      const before = this.writes.get(path);
      const was = before !== undefined && before !== null;
      if (was !== (content !== null)) this.countBelow(path, was ? -1 : 1);
    }
    this.writes.set(path, content);
  }

  /** Adds `by` to the count of each directory above `path`. */
  private countBelow(path: string, by: number): void {
    const counts = this.filesBelow!;
    for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
      const dir = path.slice(0, slash);
      counts.set(dir, (counts.get(dir) ?? 0) + by);
    }
  }

  /** The base file the content at `path` came from, if any. */
  originOf(path: string): string | undefined {
    if (this.origins.has(path)) return this.origins.get(path) ?? undefined;
    return this.baseRead(path) === undefined ? undefined : path;
  }

  /** Every path the patch wrote or removed, in order of first touch, with its final content. */
  touched(): Map<string, FileContent | null> {
    return new Map(this.writes);
  }
}
