// The object database of one repository (its common dir's objects/).
//
// Reads cost what they read: a loose object is one file; a packed one is found by binary search in
// the pack indexes (pack-index.ts) and read with positional reads (pack-file.ts), deltas included, so
// neither the size of the packs nor the number of objects matters. (isomorphic-git's readObject,
// still available as `reader: 'isomorphic-git'`, loads and checksums every pack it touches in full
// before the first object, which is proportional to the repository.) Every object read is checked
// against its id.
//
// Writes never touch existing objects: a new object is written loose (zlib-deflated
// "<type> <size>\0<content>") to a temporary file in objects/xx/ and renamed into place, so readers
// never see half an object, and an object that already exists (loose or packed) is not written again.
import * as fs from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from './fsx.js';
import { shouldFsync } from './fsync-policy.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { PatchtxError } from '../errors.js';
import { frameObject, hashObject, type ObjectType } from './hash.js';
import { parseCommit, serializeCommit, type CommitObject } from './model/commit.js';
import { EMPTY_TREE_OID, sortTreeEntries, parseTree, serializeTree, type TreeEntry } from './model/tree.js';
import { DeltaBaseCache, PackFile } from './pack-file.js';
import { PackIndexSet } from './pack-index.js';
import type { Repository } from './repository.js';

export interface RawObject {
  type: ObjectType;
  content: Uint8Array;
}

export interface ObjectStoreOptions {
  /** how objects are read: our positional pack reader (default), or isomorphic-git's readObject */
  reader?: 'patchtx' | 'isomorphic-git';
}

const OID = /^[0-9a-f]{40}$/;
const OBJECT_TYPES: ReadonlySet<string> = new Set(['blob', 'tree', 'commit', 'tag']);

function isMissingFile(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class ObjectStore {
  readonly repo: Repository;
  /** isomorphic-git's cache; reuse it for any other isomorphic-git call on this repository */
  readonly cache: object = {};
  readonly objectsDir: string;
  private readonly reader: 'patchtx' | 'isomorphic-git';
  private readonly packs: PackIndexSet;
  private readonly deltaBases = new DeltaBaseCache();
  /** trees are immutable and the ones along touched paths are read more than once per transaction */
  private readonly trees = new Map<string, TreeEntry[]>();
  /** objects this store wrote or found, so repeated checks cost nothing */
  private readonly known = new Set<string>();

  constructor(repo: Repository, options: ObjectStoreOptions = {}) {
    this.repo = repo;
    this.objectsDir = path.join(repo.commonDir, 'objects');
    this.packs = new PackIndexSet(this.objectsDir);
    this.reader = options.reader ?? (process.env.PATCHTX_OBJECT_READER === 'isomorphic-git' ? 'isomorphic-git' : 'patchtx');
  }

  async readRaw(oid: string): Promise<RawObject> {
    if (!OID.test(oid)) throw new PatchtxError('internal', `not an object id: ${JSON.stringify(oid)}`, { oid });
    if (oid === EMPTY_TREE_OID) return { type: 'tree', content: new Uint8Array(0) }; // git knows it without storing it
    const raw = this.reader === 'isomorphic-git' ? await this.readWithIsomorphicGit(oid) : await this.readDirect(oid);
    if (hashObject(raw.type, raw.content) !== oid) {
      throw new PatchtxError('internal', `object ${oid} is corrupt (its content hashes differently)`, { oid });
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
      throw new PatchtxError('internal', `cannot read object ${oid}: ${(e as Error).message}`, { oid });
    }
    let framed: Buffer;
    try {
      framed = inflateSync(file);
    } catch (e) {
      throw new PatchtxError('internal', `loose object ${oid} is corrupt: ${(e as Error).message}`, { oid });
    }
    const nul = framed.indexOf(0);
    const [type, size] = framed.toString('latin1', 0, Math.max(nul, 0)).split(' ');
    const content = framed.subarray(nul + 1);
    if (nul < 0 || !OBJECT_TYPES.has(type!) || Number(size) !== content.length) {
      throw new PatchtxError('internal', `loose object ${oid} has a malformed header`, { oid });
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
    const found = await PackFile.with(location.pack, (pack) => pack.read(location.offset, this.deltaBases, readBase));
    // the delta-base cache may hold this very buffer: hand out a copy the caller is free to change
    return { type: found.type, content: Buffer.from(found.content) };
  }

  private async readDirect(oid: string): Promise<RawObject> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const found = (await this.readLoose(oid)) ?? (await this.readPacked(oid));
        if (found) return found;
      } catch (e) {
        if (!isMissingFile(e) || attempt > 0) throw e; // a pack deleted under us by a repack
      }
      // a concurrent gc may have moved the object into a new pack: look again once
      this.packs.refresh();
    }
    throw new PatchtxError('internal', `object ${oid} is missing from the repository`, { oid });
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
        throw new PatchtxError('internal', `object ${oid} is missing from the repository`, { oid });
      }
      throw new PatchtxError('internal', `cannot read object ${oid}: ${(e as Error).message}`, { oid });
    }
    return { type: result.type as ObjectType, content: result.object as Uint8Array };
  }

  private async readTyped(oid: string, type: ObjectType): Promise<Uint8Array> {
    const raw = await this.readRaw(oid);
    if (raw.type !== type) {
      throw new PatchtxError('internal', `object ${oid} is a ${raw.type}, expected a ${type}`, { oid, type: raw.type });
    }
    return raw.content;
  }

  readBlob(oid: string): Promise<Uint8Array> {
    return this.readTyped(oid, 'blob');
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    let entries = this.trees.get(oid);
    if (!entries) {
      entries = oid === EMPTY_TREE_OID ? [] : parseTree(await this.readTyped(oid, 'tree'), oid);
      this.trees.set(oid, entries);
    }
    return entries.map((e) => ({ ...e }));
  }

  async readCommit(oid: string): Promise<CommitObject> {
    return parseCommit(await this.readTyped(oid, 'commit'), oid);
  }

  /** True when the object is stored loose or in a pack (the content is not checked). */
  async hasObject(oid: string): Promise<boolean> {
    if (this.known.has(oid)) return true;
    if (!OID.test(oid)) return false;
    const found =
      (await stat(this.loosePath(oid)).then(
        () => true,
        () => false,
      )) || (await this.packs.has(oid));
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
        if (OID.test(oid) && oid.startsWith(prefix)) found.add(oid);
      }
    } catch {
      // no loose objects under this prefix
    }
    for (const oid of await this.packs.findByPrefix(prefix, limit)) found.add(oid);
    return [...found].slice(0, limit);
  }

  async writeObject(type: ObjectType, content: Uint8Array): Promise<string> {
    const oid = hashObject(type, content);
    if (await this.hasObject(oid)) return oid;
    const target = this.loosePath(oid);
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true });
    // "tmp_" is the prefix git's prune cleans up, should a crash leave the file behind
    const temp = path.join(dir, `tmp_obj_patchtx_${process.pid}_${randomBytes(6).toString('hex')}`);
    try {
      const handle = await open(temp, 'wx', 0o444);
      try {
        await handle.writeFile(deflateSync(frameObject(type, content)));
        if (shouldFsync('loose-object')) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (e) {
      await rm(temp, { force: true });
      throw new PatchtxError('internal', `cannot write object ${oid}: ${(e as Error).message}`, { oid });
    }
    this.known.add(oid);
    return oid;
  }

  writeBlob(content: Uint8Array): Promise<string> {
    return this.writeObject('blob', content);
  }

  async writeTree(entries: readonly TreeEntry[]): Promise<string> {
    const oid = await this.writeObject('tree', serializeTree(entries));
    if (!this.trees.has(oid)) this.trees.set(oid, sortTreeEntries(entries.map((e) => ({ ...e }))));
    return oid;
  }

  writeCommit(commit: CommitObject): Promise<string> {
    return this.writeObject('commit', serializeCommit(commit));
  }

  private loosePath(oid: string): string {
    return path.join(this.objectsDir, oid.slice(0, 2), oid.slice(2));
  }
}
