// The order git sorts names and object ids in: unsigned bytes, a key that is the start of another
// first. Compared here in JavaScript: sorting a thousand keys calls the comparison some ten
// thousand times, and each of Buffer.compare's calls into the runtime costs more than the few
// bytes two keys differ in.

/** Sign of `a` - `b` in byte order. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
