// `patchtx check` runs the whole pipeline, trees and commit included, but must write nothing:
// this store computes object ids without writing objects. It reads through the command's own
// store, so a check made by a repository kept open between calls uses the pack indexes, open packs
// and trees that store keeps.
import { hashObject, type ObjectType } from '../git/objects/hash.js';
import { ObjectStore, type ParsedTreeIndex, type RawObject } from '../git/objects/store.js';

export class DryRunObjectStore extends ObjectStore {
  constructor(private readonly reads: ObjectStore) {
    super(reads.repo);
  }

  override async writeObject(type: ObjectType, content: Uint8Array): Promise<string> {
    return hashObject(type, content);
  }

  override readRaw(oid: string): Promise<RawObject> {
    return this.reads.readRaw(oid);
  }

  override treeIndex(oid: string): Promise<ParsedTreeIndex> {
    return this.reads.treeIndex(oid);
  }

  override keptTreeIndex(oid: string): ParsedTreeIndex | undefined {
    return this.reads.keptTreeIndex(oid);
  }
}
