// A map with a ceiling on the bytes it holds: a process that stays up (the library's repository
// object, the MCP server) applies patch after patch, and what it keeps between them must not grow
// with their number. Each entry is given its size (an estimate of the memory it holds) when it is
// stored; the least recently used entries go first, until the total is under the ceiling again. An
// entry larger than the ceiling on its own is not kept at all.
export class ByteCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number) {}

  /** The bytes held now (never more than maxBytes). */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, now the most recently used, or undefined. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Stores `value` as `bytes` bytes, evicting the least recently used entries beyond the ceiling. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(k);
      this.total -= e.bytes;
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
