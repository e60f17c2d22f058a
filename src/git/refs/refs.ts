// Refs in the files backend: a loose ref is a file holding "<oid>\n" or "ref: <target>\n"; refs
// without a loose file may be listed in packed-refs ("<oid> <name>" lines, "^<oid>" peel lines). A
// loose file overrides packed-refs. HEAD and the other per-worktree refs (refs/bisect/,
// refs/worktree/, refs/rewritten/, all-caps pseudo-refs such as ORIG_HEAD) live in this checkout's
// gitdir; every other ref lives in the common dir.
//
// Updates follow git's lock protocol, which is what makes concurrent writers (git itself, other
// patchtx processes) safe: create "<ref>.lock" exclusively, check the current value under the lock
// (compare-and-swap), write and fsync the new value into the lock file, append the reflog, rename the
// lock over the ref. Deleting a ref (DELETED_REF) takes git's lock of packed-refs too, removes the
// ref's packed-refs line if it has one, then the loose file, then releases packed-refs.lock; its
// reflog goes before the ref's own lock is released.
import { closeSync, constants as fsConstants, openSync, writeSync } from 'node:fs';
import { mkdirpSync, readdir, readFile, rename, rm, rmdir, unlink, type FileHandle } from '../fs/fsx.js';
import { shouldFsync } from '../repo/fsync-policy.js';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { fsError } from '../fs/io-error.js';
import { createLockFile, removeWitness } from '../fs/lock-file.js';
import { deleteWithPackedRefsLocked } from './packed-refs.js';
import { formatIdentity, type Identity } from '../objects/model/identity.js';
import { parseTagTarget } from '../objects/model/tag.js';
import type { ObjectStore } from '../objects/store.js';
import type { Repository } from '../repo/repository.js';
import { isValidRefName } from './ref-name.js';
import { crashPoint } from '../../test-points.js';

const OID = /^[0-9a-f]{40}$/;

export interface Head {
  /** the symbolic target (refs/heads/main), or null when HEAD is detached */
  ref: string | null;
  /** the commit HEAD resolves to, or null on an unborn branch */
  oid: string | null;
}

/** Whether `ref` is this checkout's own (kept in its gitdir), not shared by all worktrees. */
export function isPerWorktree(ref: string): boolean {
  return !ref.startsWith('refs/') || ref.startsWith('refs/bisect/') || ref.startsWith('refs/worktree/') || ref.startsWith('refs/rewritten/');
}

/** The directory a ref's loose file and reflog live under. */
function refBase(repo: Repository, ref: string): string {
  return isPerWorktree(ref) ? repo.gitdir : repo.commonDir;
}

/** The lock file updateRef takes for `ref` (a per-worktree ref or a detached HEAD locks in the gitdir). */
export function refLockFile(repo: Repository, ref: string): string {
  return `${path.join(refBase(repo, ref), ref)}.lock`;
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR/EISDIR: a ref named like a directory prefix of another (refs/heads/a vs refs/heads/a/b)
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw fsError(e, 'read', file, { file });
  }
}

type RawRef = { kind: 'oid'; oid: string } | { kind: 'symbolic'; target: string };

function parseLooseRef(text: string, ref: string): RawRef {
  const t = text.trim();
  if (t.startsWith('ref:')) return { kind: 'symbolic', target: t.slice(4).trim() };
  const oid = t.slice(0, 40);
  if (!OID.test(oid)) throw new PatchtxError('corrupt_repository', `ref ${ref} holds garbage: ${JSON.stringify(t.slice(0, 60))}`, { ref });
  return { kind: 'oid', oid };
}

/**
 * Whether the repository has any branch (a loose file under refs/heads/, or a refs/heads/ line in
 * packed-refs), whatever HEAD names: a server whose HEAD names an unborn branch may hold others.
 */
export async function hasAnyBranch(repo: Repository): Promise<boolean> {
  const anyFile = async (dir: string): Promise<boolean> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory() ? await anyFile(path.join(dir, e.name)) : e.isFile()) return true;
    return false;
  };
  if (await anyFile(path.join(repo.commonDir, 'refs', 'heads'))) return true;
  const packed = await readOptional(path.join(repo.commonDir, 'packed-refs'));
  return packed !== null && / refs\/heads\/\S/.test(packed);
}

/** The value of `ref` in packed-refs, or null. */
async function readPackedRef(repo: Repository, ref: string): Promise<string | null> {
  const text = await readOptional(path.join(repo.commonDir, 'packed-refs'));
  if (text === null) return null;
  // each line is "<oid> <name>"; search for the name instead of splitting a possibly large file
  const needle = ` ${ref}\n`;
  let at = text.indexOf(needle);
  while (at >= 0) {
    const lineStart = text.lastIndexOf('\n', at) + 1;
    if (at - lineStart === 40 && OID.test(text.slice(lineStart, at))) return text.slice(lineStart, at);
    at = text.indexOf(needle, at + 1);
  }
  if (text.endsWith(` ${ref}`)) {
    const lineStart = text.lastIndexOf('\n') + 1;
    const oid = text.slice(lineStart, lineStart + 40);
    if (OID.test(oid) && text.length - lineStart === 41 + ref.length) return oid;
  }
  return null;
}

/** The loose file if there is one, else packed-refs; null when the ref does not exist. */
async function readRefOnce(repo: Repository, ref: string): Promise<RawRef | null> {
  const loose = await readOptional(path.join(refBase(repo, ref), ref));
  if (loose !== null) return parseLooseRef(loose, ref);
  if (isPerWorktree(ref)) return null;
  const packed = await readPackedRef(repo, ref);
  return packed === null ? null : { kind: 'oid', oid: packed };
}

/** Follows symbolic refs to the final ref name and its oid (null when that ref does not exist). */
async function resolveRefChain(repo: Repository, ref: string): Promise<{ ref: string; oid: string | null }> {
  let current = ref;
  for (let depth = 0; depth < 6; depth++) {
    if (!isValidRefName(current)) throw new PatchtxError('bad_revision', `invalid ref name ${current}`, { ref: current });
    const raw = await readRefOnce(repo, current);
    if (raw === null) return { ref: current, oid: null };
    if (raw.kind === 'oid') return { ref: current, oid: raw.oid };
    current = raw.target;
  }
  throw new PatchtxError('bad_revision', `symbolic ref loop at ${ref}`, { ref });
}

export async function readHead(repo: Repository): Promise<Head> {
  const text = await readOptional(path.join(repo.gitdir, 'HEAD'));
  if (text === null) throw new PatchtxError('not_a_repository', `${repo.gitdir} has no HEAD`, { gitdir: repo.gitdir });
  const raw = parseLooseRef(text, 'HEAD');
  if (raw.kind === 'oid') return { ref: null, oid: raw.oid };
  const { oid } = await resolveRefChain(repo, raw.target);
  return { ref: raw.target, oid };
}

/** The oid `ref` (a full name such as refs/heads/main, or HEAD) points to, or null. */
export async function readRef(repo: Repository, ref: string): Promise<string | null> {
  return (await resolveRefChain(repo, ref)).oid;
}

// ---------------------------------------------------------------------------------------------
// Revisions

function badRevision(rev: string, why: string, data: Record<string, unknown> = {}): PatchtxError {
  return new PatchtxError('bad_revision', `bad revision '${rev}': ${why}`, { revision: rev, ...data });
}

/** Peels tags until a commit; anything else is a bad revision. */
export async function peelToCommit(store: ObjectStore, oid: string, rev: string): Promise<string> {
  for (let depth = 0; depth < 10; depth++) {
    let raw;
    try {
      raw = await store.readRaw(oid);
    } catch {
      throw badRevision(rev, `object ${oid} is missing`, { oid });
    }
    if (raw.type === 'commit') return oid;
    if (raw.type !== 'tag') throw badRevision(rev, `${oid} is a ${raw.type}, not a commit`, { oid });
    oid = parseTagTarget(raw.content, oid).object;
  }
  throw badRevision(rev, 'tag chain too long');
}

/**
 * The ref a short name means, as git's revision rules find it (the name itself when it is HEAD-like
 * or a full ref, then refs/NAME, refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME, and
 * refs/remotes/NAME/HEAD): the first that exists, or null.
 */
export async function findRefNamed(repo: Repository, name: string): Promise<{ ref: string; oid: string } | null> {
  const candidates = /^[A-Z][A-Z0-9_]*$/.test(name) || name.startsWith('refs/') ? [name] : [];
  candidates.push(`refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`);
  for (const ref of candidates) {
    if (!isValidRefName(ref)) continue;
    const oid = await readRef(repo, ref);
    if (oid !== null) return { ref, oid };
  }
  return null;
}

/** A ref-or-oid name without suffixes, as git's DWIM rules read it. */
async function resolveBase(store: ObjectStore, repo: Repository, name: string, rev: string): Promise<string> {
  if (name === '@') name = 'HEAD';
  if (OID.test(name)) {
    if (!(await store.hasObject(name))) throw badRevision(rev, `object ${name} does not exist`);
    return name;
  }
  const found = await findRefNamed(repo, name);
  if (found !== null) return found.oid;
  if (/^[0-9a-fA-F]{4,39}$/.test(name)) {
    const matches = await store.findByPrefix(name.toLowerCase());
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) throw badRevision(rev, `short object id ${name} is ambiguous`, { candidates: matches });
  }
  throw badRevision(rev, 'unknown revision (not a ref, nor an object id in this repository)');
}

/**
 * Resolves `rev` to a commit oid: HEAD/@, branch, tag and remote names, full refs, full or unique
 * short object ids, followed by any number of `~N`, `^N`, `^`, `^0`, `^{}`, `^{commit}`. Annotated
 * tags are peeled, so the result is always a commit. Anything else is 'bad_revision'.
 */
export async function resolveRevision(store: ObjectStore, repo: Repository, rev: string): Promise<string> {
  const m = /^([^~^]+)((?:~\d*|\^\d*|\^\{(?:commit)?\})*)$/.exec(rev);
  if (!m || rev.includes(':') || rev.includes('@{') || /\s/.test(rev)) {
    throw badRevision(rev, 'unsupported revision syntax (use a ref name or commit id with ~N / ^N)');
  }
  let oid = await peelToCommit(store, await resolveBase(store, repo, m[1]!, rev), rev);
  for (const step of m[2]!.match(/~\d*|\^\{(?:commit)?\}|\^\d*/g) ?? []) {
    if (step.startsWith('^{')) continue; // already a commit
    const n = step.length > 1 ? Number(step.slice(1)) : 1;
    if (step[0] === '^' && n === 0) continue;
    const generations = step[0] === '~' ? n : 1;
    const parentIndex = step[0] === '~' ? 0 : n - 1;
    for (let g = 0; g < generations; g++) {
      const commit = await store.readCommit(oid);
      const parent = commit.parents[g === generations - 1 ? parentIndex : 0];
      if (parent === undefined) throw badRevision(rev, `${oid.slice(0, 12)} has no such parent`, { oid });
      oid = parent;
    }
  }
  return oid;
}

// ---------------------------------------------------------------------------------------------
// Updates

export interface RefUpdate {
  /** full ref name (refs/heads/main, refs/notes/patchtx) or HEAD (a detached HEAD) */
  ref: string;
  /** the value the ref must have now; null: the ref must not exist */
  expectedOld: string | null;
  /** the ref's new value; DELETED_REF (git's null id): the ref is deleted */
  newOid: string;
  /** reflog message (whitespace runs, newlines included, collapse to one space as git does) */
  message: string;
  /** the reflog line's identity and time */
  identity: Identity;
  /** core.logAllRefUpdates as configured (undefined: git's default, on unless bare) */
  logAllRefUpdates?: string;
  /** the lock file's witness (see lock-file.ts): who cleans up after a killed run can prove it its */
  witness?: string;
  /** deleting a ref: the witness of packed-refs.lock */
  packedWitness?: string;
  /** deleting a ref: how long to wait for packed-refs.lock held by another process (ms, as
   * core.packedRefsTimeout; negative: no limit; default git's 1000) */
  packedRefsTimeout?: number;
}

/** The new value that deletes a ref (git's null id, which reflogs write for "no ref"). */
export const DELETED_REF = '0'.repeat(40);

/**
 * Whether git would write a reflog line for `ref`: always when its log already exists; otherwise
 * per core.logAllRefUpdates ("always": every ref; true: branches, remote-tracking refs, notes and
 * HEAD; false), which defaults to true in a checkout and false in a bare repository.
 */
/** Whether git starts a reflog for `ref` that has none (core.logAllRefUpdates, `setting`). */
function logsWithoutReflog(repo: Repository, ref: string, setting: string | undefined): boolean {
  const value = (setting ?? (repo.workdir === null ? 'false' : 'true')).toLowerCase();
  if (value === 'always') return true;
  if (!['true', 'yes', 'on', '1'].includes(value)) return false;
  return ref === 'HEAD' || /^refs\/(heads|remotes|notes)\//.test(ref);
}

const APPEND_ONLY = fsConstants.O_WRONLY | fsConstants.O_APPEND;

/**
 * Appends `line` to the reflog `logFile` as git does: always when the reflog exists, and when it
 * does not, only if git would start one (logsWithoutReflog), making it and its directories. One
 * open either way: the reflog is opened for appending, created only when it may be.
 */
function appendReflogIfLogged(repo: Repository, ref: string, logFile: string, line: string, setting: string | undefined): void {
  const create = logsWithoutReflog(repo, ref, setting);
  let fd: number;
  try {
    fd = openSync(logFile, create ? 'a' : APPEND_ONLY, 0o666);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!create && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR')) return; // no reflog, and none is started
    if (!create || code !== 'ENOENT') throw e;
    mkdirpSync(path.dirname(logFile));
    fd = openSync(logFile, 'a', 0o666);
  }
  try {
    const buf = Buffer.from(line);
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes `lockFile`, making the ref's directory first when it is not there (a first branch of its
 * name space, say); an existing one is not made again on every update.
 */
async function lockCreatingDirectory(lockFile: string, witness: string | undefined, ref: string): Promise<FileHandle> {
  try {
    return await createLockFile(lockFile, witness);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  try {
    mkdirpSync(path.dirname(lockFile));
  } catch (e) {
    throw fsError(e, 'create the directory', path.dirname(lockFile), { ref });
  }
  return createLockFile(lockFile, witness);
}

/** git's reflog message clean-up: leading/trailing whitespace dropped, inner runs become one space. */
export function cleanReflogMessage(message: string): string {
  return message.trim().replace(/\s+/g, ' ');
}

function reflogLine(oldOid: string | null, newOid: string, identity: Identity, message: string): string {
  return `${oldOid ?? DELETED_REF} ${newOid} ${formatIdentity(identity)}\t${cleanReflogMessage(message)}\n`;
}

/**
 * Deletes `ref`, whose lock the caller holds: a per-worktree ref has only its loose file; any other
 * also goes from packed-refs, under that file's lock (deleteWithPackedRefsLocked).
 */
async function deleteUnderLock(repo: Repository, ref: string, refFile: string, update: RefUpdate): Promise<void> {
  const removeLoose = (): Promise<void> => rm(refFile, { force: true });
  if (isPerWorktree(ref)) return removeLoose();
  await deleteWithPackedRefsLocked(repo, ref, removeLoose, {
    ...(update.packedWitness === undefined ? {} : { witness: update.packedWitness }),
    ...(update.packedRefsTimeout === undefined ? {} : { timeoutMs: update.packedRefsTimeout }),
  });
}

/** Removes the directories between `base` and `ref`'s file that are left empty (refs/heads/feat/ of feat/x). */
async function removeEmptyParents(base: string, ref: string): Promise<void> {
  const parts = ref.split('/');
  // never refs/ or refs/heads/ themselves
  for (let n = parts.length - 1; n > 2; n--) {
    try {
      await rmdir(path.join(base, ...parts.slice(0, n)));
    } catch {
      return; // not empty (or not there): what is above it is not empty either
    }
  }
}

/**
 * Moves `ref` from `expectedOld` to `newOid` atomically, or fails with 'stale' (another process holds
 * the lock, or the ref is not at `expectedOld`) leaving everything as it was. Writes the reflog of the
 * ref and, when this checkout's HEAD points at the ref, of HEAD.
 */
export async function updateRef(repo: Repository, update: RefUpdate): Promise<void> {
  let { ref } = update;
  const { expectedOld, newOid, identity, message } = update;
  if (!OID.test(newOid) || (expectedOld !== null && !OID.test(expectedOld)) || (newOid === DELETED_REF && expectedOld === null)) {
    throw new PatchtxError('internal', `updateRef needs 40-hex object ids (${expectedOld} → ${newOid})`, { ref });
  }
  // HEAD is updated through the branch it points to; only a detached HEAD is written itself
  let headIsSymbolicToRef = false;
  const headText = await readOptional(path.join(repo.gitdir, 'HEAD'));
  const head = headText === null ? null : parseLooseRef(headText, 'HEAD');
  if (ref === 'HEAD' && head?.kind === 'symbolic') ref = head.target;
  if (head?.kind === 'symbolic' && head.target === ref) headIsSymbolicToRef = true;
  if (!isValidRefName(ref)) throw new PatchtxError('usage', `'${ref}' is not a valid ref name`, { ref });
  // a detached HEAD is never deleted: that would leave no repository git recognises
  if (newOid === DELETED_REF && !ref.startsWith('refs/')) throw new PatchtxError('internal', `${ref} cannot be deleted`, { ref });

  const base = refBase(repo, ref);
  const refFile = path.join(base, ref);
  const lockFile = `${refFile}.lock`;
  let handle;
  try {
    handle = await lockCreatingDirectory(lockFile, update.witness, ref);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new PatchtxError('stale', `another process is updating ${ref} (lock file exists: ${lockFile})`, { ref, lockFile });
    }
    throw fsError(e, 'create the lock file', lockFile, { ref, lockFile });
  }
  // tests: a run killed while it holds the ref's lock
  crashPoint('ref-locked');

  let renamed = false;
  let deleted = false;
  try {
    const current = await readRefOnce(repo, ref);
    if (current?.kind === 'symbolic') {
      // a branch made an alias of another (git symbolic-ref): the caller names one, not the other
      throw new PatchtxError('usage', `${ref} is a symbolic ref to ${current.target}; update that ref instead`, { ref, target: current.target });
    }
    const actual = current === null ? null : current.oid;
    if (actual !== expectedOld) {
      throw new PatchtxError('stale', `${ref} moved: expected ${expectedOld ?? '(no ref)'}, found ${actual ?? '(no ref)'}`, {
        ref,
        expected: expectedOld,
        actual,
      });
    }
    const line = reflogLine(expectedOld, newOid, identity, message);
    const refLog = path.join(base, 'logs', ref);
    if (newOid === DELETED_REF) {
      await handle.close();
      handle = null;
      await deleteUnderLock(repo, ref, refFile, update);
      deleted = true;
      // as git does: the ref's reflog goes with it, HEAD's (naming the ref) records the deletion
      await rm(refLog, { force: true });
      if (headIsSymbolicToRef) appendReflogIfLogged(repo, 'HEAD', path.join(repo.gitdir, 'logs', 'HEAD'), line, update.logAllRefUpdates);
      return;
    }
    await handle.writeFile(`${newOid}\n`);
    if (shouldFsync(repo, 'reference')) await handle.sync();
    await handle.close();
    handle = null;

    appendReflogIfLogged(repo, ref, refLog, line, update.logAllRefUpdates);
    if (headIsSymbolicToRef) appendReflogIfLogged(repo, 'HEAD', path.join(repo.gitdir, 'logs', 'HEAD'), line, update.logAllRefUpdates);

    await rename(lockFile, refFile);
    renamed = true;
  } catch (e) {
    throw fsError(e, 'update', refFile, { ref });
  } finally {
    if (handle) await handle.close().catch(() => {});
    if (!renamed) await unlink(lockFile).catch(() => {});
    // a ref's lock is written in place: its witness has no staging file
    removeWitness(update.witness, { staged: false });
    if (deleted) {
      // once the lock is gone too: the directories of a deleted refs/heads/feat/x left empty
      await removeEmptyParents(base, ref);
      await removeEmptyParents(path.join(base, 'logs'), ref);
    }
  }
}
