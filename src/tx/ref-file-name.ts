// One file-name component per ref, for the files patchtx keeps per ref (the redo stack of each
// ref, the journal of a transaction that moves a ref without a working tree): `%` and `/` escaped
// (`refs%2Fheads%2Fmain`), so `feat` and `feat/x` never stand in each other's way as a file and a
// directory of the same name would.
import { createHash } from 'node:crypto';

/** Longest escaped ref name kept readable; a longer one is named by its hash (`~` never appears in
 * a ref name, so the two kinds of names cannot meet), staying below every file system's NAME_MAX. */
const READABLE_NAME_MAX = 200;

/** The name for `ref`: one component, the same for no two refs. */
export function refFileName(ref: string): string {
  const escaped = ref.replace(/%/g, '%25').replace(/\//g, '%2F');
  if (Buffer.byteLength(escaped) <= READABLE_NAME_MAX) return escaped;
  return `long~${createHash('sha1').update(ref).digest('hex')}`;
}
