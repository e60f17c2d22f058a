// Commit objects:
//   tree <oid>\n  parent <oid>\n*  author <ident>\n  committer <ident>\n  [other headers]  \n  <message>
// A header value spanning several lines (gpgsig, mergetag) continues on lines that start with one
// space. The message is everything after the first blank line, byte for byte: git does not require a
// trailing newline and neither do we, so parse → serialize reproduces git's bytes (and oid) for any
// commit whose text is valid UTF-8.
import { PatchtxError } from '../../../errors.js';
import { formatIdentity, parseIdentity, type Identity } from './identity.js';

export type { Identity } from './identity.js';
export { appendTrailers, readTrailers, type Trailer } from './trailers.js';

export interface CommitHeader {
  key: string;
  /** multi-line values keep their inner newlines, without the continuation spaces */
  value: string;
}

export interface CommitObject {
  tree: string;
  parents: string[];
  author: Identity;
  committer: Identity;
  /** everything after the header's blank line, exactly */
  message: string;
  /** the signature (ASCII armour), written as the last header as git does */
  gpgsig?: string;
  /** headers other than the above (encoding, mergetag, ...), in order; written after committer */
  extraHeaders?: CommitHeader[];
}

const OID = /^[0-9a-f]{40}$/;

export function parseCommit(data: Uint8Array, oid = '(commit)'): CommitObject {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  const bodyStart = text.indexOf('\n\n');
  const headerText = bodyStart < 0 ? text.replace(/\n$/, '') : text.slice(0, bodyStart);
  const message = bodyStart < 0 ? '' : text.slice(bodyStart + 2);

  const headers: CommitHeader[] = [];
  for (const line of headerText.split('\n')) {
    if (line.startsWith(' ') && headers.length > 0) {
      headers[headers.length - 1]!.value += '\n' + line.slice(1);
      continue;
    }
    const space = line.indexOf(' ');
    headers.push(space < 0 ? { key: line, value: '' } : { key: line.slice(0, space), value: line.slice(space + 1) });
  }

  let tree: string | undefined;
  const parents: string[] = [];
  let author: Identity | undefined;
  let committer: Identity | undefined;
  let gpgsig: string | undefined;
  const extraHeaders: CommitHeader[] = [];
  for (const h of headers) {
    if (h.key === 'tree' && tree === undefined) tree = h.value;
    else if (h.key === 'parent') parents.push(h.value);
    else if (h.key === 'author' && !author) author = parseIdentity(h.value);
    else if (h.key === 'committer' && !committer) committer = parseIdentity(h.value);
    else if (h.key === 'gpgsig' && gpgsig === undefined) gpgsig = h.value;
    else extraHeaders.push(h);
  }
  if (!tree || !OID.test(tree) || !author || !committer || !parents.every((p) => OID.test(p))) {
    throw new PatchtxError('corrupt_repository', `malformed commit object ${oid}`, { oid });
  }
  const commit: CommitObject = { tree, parents, author, committer, message };
  if (gpgsig !== undefined) commit.gpgsig = gpgsig;
  if (extraHeaders.length > 0) commit.extraHeaders = extraHeaders;
  return commit;
}

function checkIdentity(role: string, id: Identity): void {
  if (/[<>\n]/.test(id.name) || /[<>\n]/.test(id.email)) {
    throw new PatchtxError('internal', `${role} identity must not contain '<', '>' or a newline`, { role });
  }
  if (!Number.isInteger(id.timestamp) || id.timestamp < 0) {
    throw new PatchtxError('internal', `${role} timestamp must be a non-negative integer`, { role });
  }
}

function headerLine(key: string, value: string): string {
  return `${key} ${value.replace(/\n/g, '\n ')}\n`;
}

export function serializeCommit(commit: CommitObject): Uint8Array {
  if (!OID.test(commit.tree) || !commit.parents.every((p) => OID.test(p))) {
    throw new PatchtxError('internal', 'commit tree and parents must be 40-hex object ids');
  }
  checkIdentity('author', commit.author);
  checkIdentity('committer', commit.committer);
  let head = `tree ${commit.tree}\n`;
  for (const p of commit.parents) head += `parent ${p}\n`;
  head += `author ${formatIdentity(commit.author)}\n`;
  head += `committer ${formatIdentity(commit.committer)}\n`;
  for (const h of commit.extraHeaders ?? []) head += headerLine(h.key, h.value);
  if (commit.gpgsig !== undefined) head += headerLine('gpgsig', commit.gpgsig);
  return Buffer.from(`${head}\n${commit.message}`, 'utf8');
}
