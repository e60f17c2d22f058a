// `patchtx check` runs the whole pipeline, trees and commit included, but must write nothing:
// this store computes object ids without writing objects. Trees written here stay readable
// because the store keeps the trees it "writes" in its own cache.
import { hashObject, type ObjectType } from '../git/objects/hash.js';
import { ObjectStore } from '../git/objects/store.js';

export class DryRunObjectStore extends ObjectStore {
  override async writeObject(type: ObjectType, content: Uint8Array): Promise<string> {
    return hashObject(type, content);
  }
}
