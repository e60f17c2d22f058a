// The object database of one repository (its common dir's objects/).
//
// Reads go through isomorphic-git, which understands loose objects, packs and deltas; the one
// `cache` object handed to every read keeps parsed pack indexes and pack data across reads, so a
// transaction pays for opening a pack once. Writes never touch existing objects: a new object is
// written loose (zlib-deflated "<type> <size>\0<content>") to a temporary file in objects/xx/ and
// renamed into place, so readers never see half an object, and an object that already exists (loose
// or packed) is not written again.
import * as fs from 'node:fs';
import { mkdir, rename, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { readObject } from 'isomorphic-git';
import { PatchtxError } from '../errors.js';
import { frameObject, hashObject, type ObjectType } from './hash.js';
import { parseCommit, serializeCommit, type CommitObject } from './model/commit.js';
import { EMPTY_TREE_OID, compareTreeEntries, parseTree, serializeTree, type TreeEntry } from './model/tree.js';
import { PackIndexSet } from './pack-index.js';
import type { Repository } from './repository.js';

export interface RawObject {
  type: ObjectType;
  content: Uint8Array;
}

const OID = /^[0-9a-f]{40}$/;

export class ObjectStore {
  readonly repo: Repository;
  /** isomorphic-git's cache; reuse it for any other isomorphic-git call on this repository */
  readonly cache: object = {};
  readonly objectsDir: string;
  private readonly packs: PackIndexSet;
  /** trees are immutable and the ones along touched paths are read more than once per transaction */
  private readonly trees = new Map<string, TreeEntry[]>();
  /** objects this store wrote or found, so repeated checks cost nothing */
  private readonly known = new Set<string>();

  constructor(repo: Repository) {
    this.repo = repo;
    this.objectsDir = path.join(repo.commonDir, 'objects');
    this.packs = new PackIndexSet(this.objectsDir);
  }

  async readRaw(oid: string): Promise<RawObject> {
    if (!OID.test(oid)) throw new PatchtxError('internal', `not an object id: ${JSON.stringify(oid)}`, { oid });
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
    this.known.add(oid);
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
      await writeFile(temp, deflateSync(frameObject(type, content)), { flag: 'wx', mode: 0o444 });
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
    if (!this.trees.has(oid)) this.trees.set(oid, entries.map((e) => ({ ...e })).sort(compareTreeEntries));
    return oid;
  }

  writeCommit(commit: CommitObject): Promise<string> {
    return this.writeObject('commit', serializeCommit(commit));
  }

  private loosePath(oid: string): string {
    return path.join(this.objectsDir, oid.slice(0, 2), oid.slice(2));
  }
}
