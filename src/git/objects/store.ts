// The object database of one repository (its common dir's objects/).
//
// Reads cost what they read: a loose object is one file; a packed one is found by binary search in
// the pack indexes (pack-index.ts) and read with positional reads (pack-file.ts), deltas included, so
// neither the size of the packs nor the number of objects matters. (isomorphic-git's readObject,
// still available as `reader: 'isomorphic-git'`, loads and checksums every pack it touches in full
// before the first object, which is proportional to the repository.) Every object read is checked
// against its id.
//
// Writes never touch existing objects. Outside a batch an object that already exists (loose or
// packed) is not written again; inside one, only one in a kept pack is not (inKeptPack). Outside
// a transaction a new object is written loose (zlib-deflated "<type> <size>\0<content>") to a
// temporary file in objects/xx/ and renamed into place, so readers never see half an object. Inside a batch (a transaction's prepare step) objects are held in
// memory until flushBatch(), which writes them all as one pack and its index, however few: a
// patch creates two files, not one per object in up to 256 new directories, and loose objects
// never pile up towards git's `gc.auto` (git samples objects/17 and collects above gc.auto/256
// objects there). Measured alternating both ways, a pack cost no more than loose objects even
// for a 1-file patch (whose dozen loose objects each needed a directory, and a second name,
// below). The packs are folded together now and then (pack-fold.ts), so that they do not pile up
// towards `gc.autoPackLimit` either.
//
// New objects are unreachable until a ref points at them, and `git gc --prune=now` (`git prune
// --expire=now`, `git repack -a -d`) run in that moment deletes them: the branch would then move to
// a commit that is gone, and every later git command fail on it. Git's manual leaves that risk to
// whoever prunes "now" next to a writer; patchtx narrows it. A repack drops unreachable objects
// from every pack it did not find kept, so a batch's pack has a .keep file until the transaction's
// refs point at it (as git's receive-pack keeps an incoming pack until its refs are updated); a
// crashed run's is removed by recovery, found by its text (removeKeeps). Runs of earlier versions
// wrote small batches loose, with a second name (a hard link) for each object in a directory of
// the transaction's that no prune looks in: recovery still puts back from there what a prune took
// (restoreHeld) before it finishes such a run.
import * as fs from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from '../fs/fsx.js';
import { shouldFsync, shouldFsyncTransactionPack } from '../repo/fsync-policy.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { deflateObjectSync } from './deflate.js';
import { PatchtxError } from '../../errors.js';
import { fsError } from '../fs/io-error.js';
import { crashPoint } from '../../test-points.js';
import { frameObject, hashObject, type ObjectType } from './hash.js';
import { isObjectId } from './object-id.js';
import { parseCommit, serializeCommit, type CommitObject } from './model/commit.js';
import {
  EMPTY_PARSED_TREE,
  EMPTY_TREE_OID,
  editParsedTree,
  parseTreeObject,
  serializeTree,
  storableName,
  type ParsedTree,
  type TreeEntry,
} from './model/tree.js';
import { indexTree, type ParsedTreeIndex } from './model/tree-index.js';
import { ByteCache } from './byte-cache.js';
import { DeltaBaseCache, PackFile } from './pack-file.js';
import { PackIndexSet, type PackLocation } from './pack-index.js';
import { buildPack } from './pack-write.js';
import { recordOwnPack } from './own-packs.js';
import { parseInt32, type GitConfig } from '../repo/config.js';
import type { Repository } from '../repo/repository.js';

export type { ParsedTreeIndex } from './model/tree-index.js';

export interface RawObject {
  type: ObjectType;
  content: Uint8Array;
}

export interface ObjectStoreOptions {
  /** how objects are read: our positional pack reader (default), or isomorphic-git's readObject */
  reader?: 'patchtx' | 'isomorphic-git';
  /** zlib level of new objects, loose or packed (see looseCompression) */
  compression?: number;
  /** in a partial clone, the remote that has the objects it left out (see promisorRemote) */
  promisor?: string | null;
  /** the ceiling on the bytes of parsed trees kept (TREE_CACHE_BYTES; see ByteCache) */
  treeCacheBytes?: number;
}

/** What the parsed trees a store keeps may hold at most: every tree of a checkout of some tens of thousands of files. */
export const TREE_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * The ceiling on the bytes of trees this store wrote kept as written, unparsed (writtenTrees): a
 * 1,000-file patch in a repository of 20,000 files in directories of 100 writes about a megabyte.
 */
const WRITTEN_TREE_BYTES = 4 * 1024 * 1024;

/** Memory of a parsed tree, estimated: its bytes, and per entry the entry object, its name and id
 * strings, and its place in the index by name (treeIndex). */
const treeBytes = (tree: ParsedTree): number => tree.bytes.length + tree.ends.byteLength + tree.entries.length * 240;

/**
 * The promisor remote of a partial clone (`git clone --filter=blob:none`): the one configured
 * with remote.NAME.promisor, else extensions.partialClone; null in a complete repository.
 */
export function promisorRemote(config: GitConfig): string | null {
  for (const e of config.entries) {
    if (e.section !== 'remote' || e.subsection === null || e.name !== 'promisor') continue;
    try {
      if (config.getBool(`remote.${e.subsection}.promisor`) === true) return e.subsection;
    } catch {
      // a value that is not a boolean names no promisor
    }
  }
  return config.get('extensions.partialClone') ?? null;
}

/**
 * The zlib level git gives loose objects: core.looseCompression, else core.compression, else 1
 * (best speed). patchtx's packs stand in for loose objects, so they get the same level. Unlike a
 * loose object, a packed one keeps its deflated bytes through `git gc`: a repack copies an entry
 * it does not turn into a delta as it is (only `git repack -F` deflates everything anew), so
 * these objects stay at this level until then. -1 is zlib's default. A value git refuses (not an
 * integer as git reads one, or no level from -1 to 9) is refused with git's message (usage).
 */
export function looseCompression(config: GitConfig): number {
  // every value of both is read (git reads each setting it knows as it meets it in the files, and
  // dies on any bad one), and the last value of the first key that is set counts
  const [loose, any] = ['core.looseCompression', 'core.compression'].map((key) => {
    let level: number | undefined;
    for (const value of config.getAllRaw(key)) {
      level = parseInt32(value, key);
      if (level < -1 || level > 9) throw new PatchtxError('usage', `bad zlib compression level ${level}`, { key, value: value ?? '' });
    }
    return level;
  });
  return loose ?? any ?? 1;
}

/** how often a write is tried when its directory or temporary file vanished under it (see writeLoose) */
const WRITE_ATTEMPTS = 5;
const OBJECT_TYPES: ReadonlySet<string> = new Set(['blob', 'tree', 'commit', 'tag']);
/** Removes a directory of held loose objects (see restoreHeld) once the refs hold them, or none will. */
export function releaseHeld(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes the .keep files of the packs a transaction wrote (flushBatch's `keep`), found by their
 * text: for a transaction that died before it could (releaseKept). Other packs' .keep files, git's
 * or a user's, hold other text and stay.
 */
export async function removeKeeps(objectsDir: string, keep: string): Promise<void> {
  const dir = path.join(objectsDir, 'pack');
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // no packs
  }
  for (const name of names) {
    if (!name.startsWith('pack-') || !name.endsWith('.keep')) continue;
    const file = path.join(dir, name);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === `${keep}\n`) await rm(file, { force: true });
  }
}

/** An object the repository does not hold (pruned, or beyond a shallow or partial clone's boundary). */
export function missingObject(oid: string): PatchtxError {
  return new PatchtxError(
    'missing_object',
    `object ${oid} is not in the repository (removed by git gc or git prune, or beyond the boundary of a shallow or partial clone)`,
    { oid },
  );
}

/** A directory's identity and times as one string ('' when it is not there): any entry added,
 * removed or renamed in it changes its mtime. */
function dirStamp(dir: string): string {
  try {
    const st = fs.statSync(dir, { bigint: true });
    return `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return '';
  }
}

/** How many times a read looks at the packs again after one it was about to open vanished. */
const PACK_RETRIES = 5;

/** Whether the pack of `location` has a .keep file (see ObjectStore.inKeptPack). */
const isKeptPack = (location: PackLocation): boolean => fs.existsSync(location.pack.replace(/\.pack$/, '.keep'));

function isMissingFile(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class ObjectStore {
  readonly repo: Repository;
  /** isomorphic-git's cache; reuse it for any other isomorphic-git call on this repository */
  cache: object = {};
  readonly objectsDir: string;
  private readonly reader: 'patchtx' | 'isomorphic-git';
  private readonly compression: number;
  private readonly promisor: string | null;
  private readonly packs: PackIndexSet;
  private readonly deltaBases = new DeltaBaseCache();
  /** trees are immutable and the ones along touched paths are read more than once per transaction
   * (and again by the next one, in a store kept between commands); each with its entries by name
   * once treeIndex asked for them */
  private readonly trees: ByteCache<string, { tree: ParsedTree; byKey?: ParsedTreeIndex }>;
  /**
   * The trees this store has written (stored: after their pack or loose file is written), as
   * written. The next transaction of a process kept between commands starts from the tree the last
   * one made, and looks its touched paths up through the very trees it wrote: kept here, they are
   * parsed when first asked for instead of being found in the pack, read and inflated again (most of
   * the tree lookups of a series of large patches). Unparsed, so that a single run pays nothing.
   */
  private readonly writtenTrees = new ByteCache<string, Uint8Array>(WRITTEN_TREE_BYTES);
  /** the trees writeEditedTree made in the batch under way, parsed, for the tree cache once stored */
  private editedTrees = new Map<string, ParsedTree>();
  /** treeIndex's reads under way, so that callers asking at once share one */
  private readonly treeIndexReads = new Map<string, Promise<ParsedTreeIndex>>();
  /** the pack directory's stat data when its packs were last looked at (see revalidate) */
  private packDirStamp: string | null = null;
  /** objects this store wrote or found, so repeated checks cost nothing */
  private readonly known = new Set<string>();
  /** packs read from so far, kept open until close() */
  private readonly openPacks = new Map<string, PackFile>();
  /** objects written since beginBatch(), not yet on disk */
  private staged: Map<string, RawObject> | null = null;
  /** .keep files of the packs flushBatch wrote, until releaseKept() */
  private readonly kept: string[] = [];

  constructor(repo: Repository, options: ObjectStoreOptions = {}) {
    this.repo = repo;
    this.objectsDir = path.join(repo.commonDir, 'objects');
    this.packs = new PackIndexSet(this.objectsDir);
    this.reader = options.reader ?? (process.env.PATCHTX_OBJECT_READER === 'isomorphic-git' ? 'isomorphic-git' : 'patchtx');
    this.compression = options.compression ?? 1;
    this.promisor = options.promisor ?? null;
    this.trees = new ByteCache(options.treeCacheBytes ?? TREE_CACHE_BYTES);
  }

  /** The bytes of the parsed trees kept now (at most the ceiling; see ByteCache). */
  get treeCacheBytes(): number {
    return this.trees.bytes;
  }

  /**
   * For a store kept between commands, before each: forgets which objects it found stored (a
   * prune may have removed one since, and an object believed stored is not written again), and
   * looks at the packs again when their directory changed (a repack, a gc, a fetch), closing the
   * packs it had open. Trees stay: an object id names the same content for good.
   */
  revalidate(): void {
    this.known.clear();
    const stamp = dirStamp(path.join(this.objectsDir, 'pack'));
    if (stamp === this.packDirStamp) return;
    // taken before the packs are listed again: a pack added meanwhile is seen at the next call anyway
    this.packDirStamp = stamp;
    this.packs.refresh();
    this.close();
    this.cache = {};
  }

  /**
   * An object that is not here: in a partial clone, left out by its filter (the promisor remote
   * has it); otherwise pruned, or a shallow clone's history. `path`: what the object is, if known.
   */
  private missing(oid: string, path?: string): PatchtxError {
    const what = path === undefined ? `object ${oid}` : `object ${oid} (${path})`;
    if (this.promisor === null) {
      if (path === undefined) return missingObject(oid);
      const e = missingObject(oid);
      return new PatchtxError('missing_object', e.message.replace(`object ${oid}`, what), { oid, path });
    }
    return new PatchtxError(
      'missing_object',
      `${what} is not in this partial clone: its promisor remote '${this.promisor}' has it; fetch it with 'git fetch ${this.promisor} ${oid}', then run the command again`,
      { oid, remote: this.promisor, ...(path === undefined ? {} : { path }) },
    );
  }

  /** Looks at the packs directory again on the next read (packs were added or removed). */
  packsChanged(): void {
    this.packs.refresh();
  }

  /** Closes the pack files this store opened; it opens them again if used afterwards. */
  close(): void {
    for (const pack of this.openPacks.values()) pack.close();
    this.openPacks.clear();
  }

  async readRaw(oid: string): Promise<RawObject> {
    if (!isObjectId(oid)) throw new PatchtxError('internal', `not an object id: ${JSON.stringify(oid)}`, { oid });
    if (oid === EMPTY_TREE_OID) return { type: 'tree', content: new Uint8Array(0) }; // git knows it without storing it
    const staged = this.staged?.get(oid);
    if (staged) return { type: staged.type, content: Buffer.from(staged.content) };
    const raw = this.reader === 'isomorphic-git' ? await this.readWithIsomorphicGit(oid) : await this.readDirect(oid);
    if (hashObject(raw.type, raw.content) !== oid) {
      throw new PatchtxError('corrupt_repository', `object ${oid} is corrupt (its content hashes differently)`, { oid });
    }
    this.known.add(oid);
    return raw;
  }

  private async readLoose(oid: string): Promise<RawObject | null> {
    let file: Buffer;
    try {
      file = await readFile(this.loosePath(oid));
    } catch (e) {
      if (isMissingFile(e)) return null;
      throw fsError(e, 'read object', this.loosePath(oid), { oid });
    }
    let framed: Buffer;
    try {
      // zlib's default 16 KB output buffer would stay attached to each small object. Pieces of
      // twice the compressed size: longer output (most source text) is joined into an exact fit.
      framed = inflateSync(file, { chunkSize: Math.max(64, Math.min(16 * 1024, file.length * 2)) });
    } catch (e) {
      throw new PatchtxError('corrupt_repository', `malformed loose object ${oid}: ${(e as Error).message}`, { oid });
    }
    const nul = framed.indexOf(0);
    const [type, size] = framed.toString('latin1', 0, Math.max(nul, 0)).split(' ');
    const content = framed.subarray(nul + 1);
    if (nul < 0 || !OBJECT_TYPES.has(type!) || Number(size) !== content.length) {
      throw new PatchtxError('corrupt_repository', `malformed loose object ${oid}: its header does not parse`, { oid });
    }
    return { type: type as ObjectType, content };
  }

  private async readPacked(oid: string): Promise<RawObject | null> {
    const location = await this.packs.locate(oid);
    if (!location) return null;
    const readBase = async (base: string) => {
      const raw = await this.readRaw(base);
      return { type: raw.type, content: Buffer.from(raw.content.buffer, raw.content.byteOffset, raw.content.byteLength) };
    };
    let pack = this.openPacks.get(location.pack);
    if (!pack) {
      pack = PackFile.open(location.pack);
      this.openPacks.set(location.pack, pack);
    }
    // the object is the caller's own (PackFile.read copies what its base cache shares)
    return pack.read(location.offset, this.deltaBases, readBase);
  }

  private async readDirect(oid: string): Promise<RawObject> {
    for (let attempt = 0; ; attempt++) {
      try {
        // packs first, as git looks: in a packed repository nearly every object is there, and a
        // failed open of a loose file per object would cost a system call and an exception each
        const found = (await this.readPacked(oid)) ?? (await this.readLoose(oid));
        if (found) return found;
        // not found: a concurrent gc may have moved it into a new pack; one more look is enough
        if (attempt > 0) break;
      } catch (e) {
        // a pack deleted under us by a repack or another process's fold, which made the new one
        // visible first: look again. Several times, since with several writers folding, the pack
        // found on the next look may be folded away in turn before it is opened.
        if (!isMissingFile(e) || attempt >= PACK_RETRIES) throw e;
      }
      this.packs.refresh();
    }
    throw this.missing(oid);
  }

  private async readWithIsomorphicGit(oid: string): Promise<RawObject> {
    // loaded on first use: the default reader does not need it, and start-up time matters
    const isogit = await import('isomorphic-git');
    // the bundler may hand over the CommonJS build, whose exports sit under `default`
    const readObject = isogit.readObject ?? (isogit as unknown as { default: typeof isogit }).default.readObject;
    let result;
    try {
      result = await readObject({ fs, gitdir: this.repo.commonDir, oid, format: 'content', cache: this.cache });
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'NotFoundError') {
        throw this.missing(oid);
      }
      throw new PatchtxError('corrupt_repository', `cannot read object ${oid}: ${(e as Error).message}`, { oid });
    }
    return { type: result.type as ObjectType, content: result.object as Uint8Array };
  }

  private async readTyped(oid: string, type: ObjectType): Promise<Uint8Array> {
    const raw = await this.readRaw(oid);
    if (raw.type !== type) {
      throw new PatchtxError('corrupt_repository', `object ${oid} is a ${raw.type}, expected a ${type}`, { oid, type: raw.type });
    }
    return raw.content;
  }

  /** A blob; `path` (where the caller found it) goes into the error should it be missing. */
  async readBlob(oid: string, path?: string): Promise<Uint8Array> {
    try {
      return await this.readTyped(oid, 'blob');
    } catch (e) {
      if (path !== undefined && e instanceof PatchtxError && e.kind === 'missing_object' && e.data.oid === oid) throw this.missing(oid, path);
      throw e;
    }
  }

  /** A tree as read, parsed once per store and cached: not to be changed (see treeIndex). */
  private async parsedTree(oid: string): Promise<ParsedTree> {
    if (oid === EMPTY_TREE_OID) return EMPTY_PARSED_TREE;
    const cached = this.trees.get(oid);
    if (cached) return cached.tree;
    const written = this.writtenTrees.get(oid);
    this.writtenTrees.delete(oid);
    const tree = parseTreeObject(written ?? (await this.readTyped(oid, 'tree')), oid);
    this.trees.set(oid, { tree }, treeBytes(tree));
    return tree;
  }

  /**
   * treeIndex of a tree this store keeps (parsed, or as it wrote it), without waiting; undefined
   * when it has to be read (a caller walking many paths then goes on with treeIndex, and makes no
   * promise for the trees it finds kept).
   */
  keptTreeIndex(oid: string): ParsedTreeIndex | undefined {
    const kept = this.trees.get(oid);
    if (kept) return (kept.byKey ??= indexTree(kept.tree));
    const written = this.writtenTrees.get(oid);
    if (written === undefined) return undefined;
    this.writtenTrees.delete(oid);
    const tree = parseTreeObject(written, oid);
    const byKey = indexTree(tree);
    this.trees.set(oid, { tree, byKey }, treeBytes(tree));
    return byKey;
  }

  /**
   * A tree's entries by entryKey (the name, for every name that is valid UTF-8), read and indexed
   * once per store and shared by every caller, so read-only. A transaction looks the root tree and
   * the trees along the touched paths up many times (the paths, then each directory's
   * .gitattributes): on a 200-entry root tree, copying and indexing it again for every lookup cost
   * about 2 ms of a 10-file patch.
   */
  treeIndex(oid: string): Promise<ParsedTreeIndex> {
    const byKey = this.keptTreeIndex(oid);
    if (byKey) return Promise.resolve(byKey);
    let index = this.treeIndexReads.get(oid);
    if (!index) {
      const reading = this.parsedTree(oid).then((tree) => {
        const byKey = indexTree(tree);
        if (oid !== EMPTY_TREE_OID) this.trees.set(oid, { tree, byKey }, treeBytes(tree));
        return byKey;
      });
      // kept in the tree cache once read; a failed read is not remembered
      void reading.then(
        () => this.treeIndexReads.delete(oid),
        () => this.treeIndexReads.delete(oid),
      );
      this.treeIndexReads.set(oid, (index = reading));
    }
    return index;
  }

  async readCommit(oid: string): Promise<CommitObject> {
    return parseCommit(await this.readTyped(oid, 'commit'), oid);
  }

  /** True when the object is stored loose or in a pack (the content is not checked). */
  async hasObject(oid: string): Promise<boolean> {
    if (this.known.has(oid)) return true;
    if (!isObjectId(oid)) return false;
    const found =
      (await this.packs.has(oid)) ||
      (await stat(this.loosePath(oid)).then(
        () => true,
        () => false,
      ));
    if (found) this.known.add(oid);
    return found;
  }

  /** Full ids of the objects whose id starts with `prefix` (>= 2 hex digits), loose and packed. */
  async findByPrefix(prefix: string, limit = 16): Promise<string[]> {
    prefix = prefix.toLowerCase();
    if (!/^[0-9a-f]{2,40}$/.test(prefix)) return [];
    const found = new Set<string>();
    try {
      for (const name of await readdir(path.join(this.objectsDir, prefix.slice(0, 2)))) {
        const oid = prefix.slice(0, 2) + name;
        if (isObjectId(oid) && oid.startsWith(prefix)) found.add(oid);
      }
    } catch {
      // no loose objects under this prefix
    }
    for (const oid of await this.packs.findByPrefix(prefix, limit)) found.add(oid);
    return [...found].slice(0, limit);
  }

  writeObject(type: ObjectType, content: Uint8Array): Promise<string> {
    const oid = hashObject(type, content);
    if (this.staged) {
      if (this.staged.has(oid)) return Promise.resolve(oid);
      // with the packs looked at already (nearly every object of a batch), no promise but the result
      const location = this.packs.locateLoaded(oid);
      if (location === undefined) return this.stageUnlessKept(oid, type, content);
      if (location === null || !isKeptPack(location)) this.staged.set(oid, { type, content });
      return Promise.resolve(oid);
    }
    return this.writeUnlessStored(oid, type, content);
  }

  private async stageUnlessKept(oid: string, type: ObjectType, content: Uint8Array): Promise<string> {
    if (await this.inKeptPack(oid)) return oid;
    // a batch that ended while this write waited would leave the object nowhere: a bug, said so
    if (!this.staged) throw new PatchtxError('internal', `object ${oid} was written after its batch ended`, { oid });
    this.staged.set(oid, { type, content });
    return oid;
  }

  private async writeUnlessStored(oid: string, type: ObjectType, content: Uint8Array): Promise<string> {
    if (!(await this.hasObject(oid))) await this.writeLoose(oid, type, content);
    return oid;
  }

  /**
   * Whether `oid` is in a pack with a .keep file, which no repack or prune drops (see the top of
   * this file). A copy anywhere else does not spare a batch from writing the object again: loose,
   * or in a pack without a .keep file, an unreachable copy (left by a run that failed, a dropped
   * stash, `git hash-object -w`) is deleted by a `git gc --prune=now` run before the refs hold
   * the batch, and the branch would then name an object that is gone. Git keeps whichever copy
   * it finds, so duplicates across packs cost only their bytes.
   */
  private async inKeptPack(oid: string): Promise<boolean> {
    const location = await this.packs.locate(oid);
    return location !== null && isKeptPack(location);
  }

  /** From now on, written objects are held in memory (and readable) until flushBatch(). */
  beginBatch(): void {
    if (!this.staged) this.editedTrees = new Map();
    this.staged ??= new Map();
  }

  /** Forgets the objects held since beginBatch() (nothing refers to them). */
  discardBatch(): void {
    this.staged = null;
    this.editedTrees = new Map();
  }

  /**
   * Writes the objects held since beginBatch() as one pack. It is kept from a concurrent repack by
   * a .keep file holding `keep` (a text naming the transaction) until releaseKept(), and recorded
   * as patchtx's own (own-packs.ts) before it becomes visible, so that a fold may take it in later.
   */
  async flushBatch(keep: string): Promise<void> {
    const staged = this.staged;
    this.staged = null;
    if (!staged || staged.size === 0) return;
    await this.writePack(staged, keep);
    const edited = this.editedTrees;
    this.editedTrees = new Map();
    for (const [oid, o] of staged) {
      if (o.type !== 'tree') continue;
      const parsed = edited.get(oid);
      if (parsed) this.keepParsed(oid, parsed);
      else this.wroteTree(oid, o.content);
    }
  }

  /**
   * Puts back the loose objects held in `dir` that are no longer in the repository: for a run of an
   * earlier version (see the top of this file) that died before its refs held them, a prune may
   * have taken them since. Returns how many were put back.
   */
  async restoreHeld(dir: string): Promise<number> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0; // nothing held (a pack, or a run that wrote no objects)
    }
    const packsNow = { read: false };
    let restored = 0;
    for (const oid of names) {
      if (!isObjectId(oid)) continue;
      if (await this.stillStored(oid, packsNow)) continue;
      const target = this.loosePath(oid);
      await mkdir(path.dirname(target), { recursive: true });
      try {
        fs.linkSync(path.join(dir, oid), target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
          try {
            fs.copyFileSync(path.join(dir, oid), target);
          } catch (e2) {
            throw fsError(e2, `put back object ${oid} at`, target, { oid });
          }
        }
      }
      this.known.add(oid);
      restored++;
    }
    return restored;
  }

  /**
   * Whether `oid` is on disk now, loose or packed, whatever this store knew of it (a prune may
   * have taken it since). A repack may have moved it into a new pack, so the packs are looked at
   * as they are now, once per `packsNow`.
   */
  private async stillStored(oid: string, packsNow: { read: boolean }): Promise<boolean> {
    this.known.delete(oid);
    const loose = await stat(this.loosePath(oid)).then(
      () => true,
      () => false,
    );
    if (loose) return true;
    if (!packsNow.read) this.packs.refresh();
    packsNow.read = true;
    return this.packs.has(oid);
  }

  /** Removes the .keep files of the packs flushBatch wrote (the refs do not need them, or hold them). */
  async releaseKept(): Promise<void> {
    for (const file of this.kept.splice(0)) {
      // unlink alone: rm() would look the file up twice first; gone already is as good
      await unlink(file).catch((e: unknown) => {
        if (!isMissingFile(e)) throw e;
      });
    }
  }

  private async writePack(objects: Map<string, RawObject>, keep: string): Promise<void> {
    const { checksum, pack, index } = await buildPack(
      [...objects].map(([oid, o]) => ({ oid, type: o.type, content: o.content })),
      this.compression,
    );
    const dir = path.join(this.objectsDir, 'pack');
    const tag = `${process.pid}_${randomBytes(6).toString('hex')}`;
    const indexFile = path.join(dir, `pack-${checksum}.idx`);
    // "tmp_" is the prefix git's prune cleans up, should a crash leave a file behind
    const files = [
      {
        temp: path.join(dir, `tmp_pack_patchtx_${tag}`),
        final: path.join(dir, `pack-${checksum}.pack`),
        data: pack,
        sync: shouldFsyncTransactionPack(this.repo, 'pack'),
      },
      {
        temp: path.join(dir, `tmp_idx_patchtx_${tag}`),
        final: indexFile,
        data: [index],
        sync: shouldFsyncTransactionPack(this.repo, 'pack-metadata'),
      },
    ];
    // before the pack is visible, so that no repack ever sees it unkept
    const keepFile = path.join(dir, `pack-${checksum}.keep`);
    // objects/pack is nearly always there (git makes it with the repository): made only when the
    // write finds it missing
    await writeFile(keepFile, `${keep}\n`)
      .catch(async (e: unknown) => {
        if (!isMissingFile(e)) throw e;
        await mkdir(dir, { recursive: true });
        await writeFile(keepFile, `${keep}\n`);
      })
      .catch((e: unknown) => {
        throw fsError(e, 'write pack', keepFile, { pack: checksum });
      });
    this.kept.push(keepFile);
    // after the .keep file (a fold passes over a kept pack) and before the pack itself
    await recordOwnPack(this.repo.commonDir, checksum);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.writePackFiles(files);
        break;
      } catch (e) {
        for (const f of files) await rm(f.temp, { force: true });
        // a temporary file removed by git prune (tmp_ files go at once with --prune=now): again
        if (isMissingFile(e) && attempt < WRITE_ATTEMPTS) {
          await mkdir(dir, { recursive: true });
          continue;
        }
        throw fsError(e, 'write pack', path.join(dir, `pack-${checksum}.pack`), { pack: checksum });
      }
    }
    this.packs.added(indexFile, index);
    for (const oid of objects.keys()) this.known.add(oid);
  }

  /** Writes a pack's files to their temporary names, then renames them into place. */
  private async writePackFiles(files: ReadonlyArray<{ temp: string; final: string; data: Buffer[]; sync: boolean }>): Promise<void> {
    for (const f of files) {
      const handle = await open(f.temp, 'wx', 0o444);
      try {
        // the pieces as they are, gathered by the kernel (writev): no copy of the pack in memory
        await handle.writeAll(f.data);
        // not by git's default: these are the objects `git commit` would write loose (see
        // shouldFsyncTransactionPack), as their compression level is (looseCompression)
        if (f.sync) await handle.sync();
      } finally {
        await handle.close();
      }
    }
    // the pack first: the index is what makes a pack visible to readers
    for (const f of files) await rename(f.temp, f.final);
  }

  private async writeLoose(oid: string, type: ObjectType, content: Uint8Array): Promise<void> {
    await this.writeLooseFile(this.loosePath(oid), oid, type, content);
    this.known.add(oid);
    if (type === 'tree') this.wroteTree(oid, content);
  }

  /** Keeps a tree just stored as written, unless it is parsed already (see writtenTrees). */
  private wroteTree(oid: string, content: Uint8Array): void {
    if (!this.trees.has(oid)) this.writtenTrees.set(oid, content, content.byteLength);
  }

  /** Keeps a tree just stored in its parsed form (editParsedTree made it along with its bytes). */
  private keepParsed(oid: string, tree: ParsedTree): void {
    this.writtenTrees.delete(oid);
    if (!this.trees.has(oid)) this.trees.set(oid, { tree }, treeBytes(tree));
  }

  /** Writes an object in git's loose format to `target`, through a temporary file beside it. */
  private async writeLooseFile(target: string, oid: string, type: ObjectType, content: Uint8Array): Promise<void> {
    const dir = path.dirname(target);
    const data = deflateObjectSync(frameObject(type, content), this.compression);
    for (let attempt = 1; ; attempt++) {
      await mkdir(dir, { recursive: true });
      crashPoint('loose-object-dir');
      // "tmp_" is the prefix git's prune cleans up, should a crash leave the file behind
      const temp = path.join(dir, `tmp_obj_patchtx_${process.pid}_${randomBytes(6).toString('hex')}`);
      try {
        const handle = await open(temp, 'wx', 0o444);
        try {
          await handle.writeFile(data);
          if (shouldFsync(this.repo, 'loose-object')) await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, target);
        break;
      } catch (e) {
        await rm(temp, { force: true });
        // git prune-packed removes a fan-out directory once it is empty, and git prune removes
        // temporary files (at once, with --prune=now): as git does, make the directory again
        // and write the object anew, a few times
        if (isMissingFile(e) && attempt < WRITE_ATTEMPTS) continue;
        throw fsError(e, `write object ${oid} to`, target, { oid });
      }
    }
  }

  writeBlob(content: Uint8Array): Promise<string> {
    return this.writeObject('blob', content);
  }

  writeTree(entries: readonly TreeEntry[]): Promise<string> {
    return this.writeObject('tree', serializeTree(entries));
  }

  /**
   * Writes tree `base` (null: an empty one) with `changes` made (entryKey -> the new entry, or null
   * to remove it) and returns the new tree's id. The entries left alone are copied as stored
   * (editParsedTree).
   */
  async writeEditedTree(base: string | null, changes: ReadonlyMap<string, TreeEntry | null>): Promise<string> {
    const tree = base === null ? EMPTY_PARSED_TREE : await this.parsedTree(base);
    // a stored tree git would not write is rewritten from its entries: one git cannot store is broken
    const unstorable = tree.copyable ? undefined : tree.entries.find((e) => !storableName(e.name));
    if (unstorable !== undefined) {
      throw new PatchtxError('corrupt_repository', `malformed tree object: tree ${base} has an entry named ${JSON.stringify(unstorable.name)}`, { oid: base! });
    }
    const edited = editParsedTree(tree, changes);
    const oid = await this.writeObject('tree', edited.bytes);
    // kept parsed once stored (see writtenTrees): now for a loose object, at flushBatch in a batch
    if (this.staged) this.editedTrees.set(oid, edited);
    else this.keepParsed(oid, edited);
    return oid;
  }

  writeCommit(commit: CommitObject): Promise<string> {
    return this.writeObject('commit', serializeCommit(commit));
  }

  private loosePath(oid: string): string {
    return path.join(this.objectsDir, oid.slice(0, 2), oid.slice(2));
  }
}
