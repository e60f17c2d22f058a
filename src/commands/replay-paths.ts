// Where a logged patch's paths land in the repository. A session's paths mean places on the
// machine that recorded it: relative ones are relative to the call's directory (and a heredoc's
// `cd DIR`), absolute ones are absolute there. A map `OLD=NEW` says that directory OLD of the
// session is directory NEW of the repository (by default the session's own directory is the
// repository root); a path in no mapped directory is refused, naming the entry.
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import type { LogEntry } from '../logs/types.js';
import type { Limits } from '../patch/limits.js';
import { parsePatchInvocation } from '../patch/parse.js';
import type { Hunk } from '../patch/types.js';
import { normalisePatch } from './patch-id.js';

const posix = path.posix;

export interface DirectoryMap {
  /** an absolute directory of the session */
  from: string;
  /** a directory of the repository, relative to its root ('' for the root) */
  to: string;
}

/** `OLD=NEW` specs, checked: OLD absolute, NEW inside the repository. */
export function parseMaps(specs: readonly string[]): DirectoryMap[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const bad = (why: string): PatchtxError => new PatchtxError('usage', `directory map '${spec}': ${why}`, { option: 'map' });
    if (eq <= 0) throw bad('wants OLD=NEW, the session directory OLD and the repository directory NEW');
    const from = posix.normalize(spec.slice(0, eq)).replace(/(.)\/+$/, '$1');
    if (!posix.isAbsolute(from)) throw bad('OLD must be an absolute directory of the session');
    const to = posix.normalize(spec.slice(eq + 1) || '.').replace(/\/+$/, '');
    if (posix.isAbsolute(to) || to === '..' || to.startsWith('../')) throw bad('NEW must be a directory inside the repository, relative to its root');
    return { from, to: to === '.' ? '' : to };
  });
}

/** How the entry is named in messages: its 1-based number and call id. */
export const entryName = (entry: LogEntry): string => `entry ${entry.index + 1}${entry.callId ? ` (call ${entry.callId})` : ''}`;

const inside = (dir: string, p: string): string | null => {
  const rel = posix.relative(dir, p);
  return rel === '' ? '' : rel.startsWith('..') || posix.isAbsolute(rel) ? null : rel;
};

/** The maps in force for an entry: the given ones, else its session's directory onto the root. */
function mapsFor(entry: LogEntry, maps: readonly DirectoryMap[]): DirectoryMap[] {
  if (maps.length > 0) return [...maps].sort((a, b) => b.from.length - a.from.length);
  const root = entry.sessionCwd ?? entry.cwd;
  return root ? [{ from: posix.normalize(root), to: '' }] : [];
}

/** A session path (absolute, or relative to `dir`) as a repository path; throws path_rejected. */
function mapPath(entry: LogEntry, written: string, dir: string | null, maps: readonly DirectoryMap[]): string {
  const reject = (why: string): PatchtxError =>
    new PatchtxError('path_rejected', `${entryName(entry)}: ${why}`, { path: written, reason: 'outside', entry: entry.index + 1, callId: entry.callId });
  if (!posix.isAbsolute(written) && (dir === null || !posix.isAbsolute(dir))) {
    // no directory recorded (Responses items): the paths (below a relative cd) are the repository's
    const p = posix.join(dir ?? '', written);
    if (p === '..' || p.startsWith('../')) throw reject(`the path '${written}' leaves the repository`);
    return p;
  }
  const abs = posix.isAbsolute(written) || dir === null ? posix.normalize(written) : posix.join(dir, written);
  for (const m of maps) {
    const rel = inside(m.from, abs);
    if (rel !== null && rel !== '') return m.to === '' ? rel : `${m.to}/${rel}`;
  }
  const where =
    maps.length === 0 ? 'the log records no session directory and no directory map was given' : `it is outside ${maps.map((m) => m.from).join(', ')}`;
  throw reject(`the path '${written}' (${abs}) cannot be replayed: ${where}`);
}

/** The directory the entry's relative paths mean: the call's, below the heredoc's `cd DIR`. */
function callDirectory(entry: LogEntry, cd: string | undefined): string | null {
  const callDir = entry.cwd === null ? null : posix.normalize(entry.cwd);
  if (cd === undefined || cd === '') return callDir;
  return posix.isAbsolute(cd) ? posix.normalize(cd) : callDir === null ? posix.normalize(cd) : posix.join(callDir, cd);
}

/** The entry's patch with every path a repository path, as patch text to apply at the root. */
export function repositoryPatch(entry: LogEntry, maps: readonly DirectoryMap[], limits?: Partial<Limits>): string {
  return mappedEntry(entry, maps, limits).patch;
}

/** The entry's patch at the repository root, and how its session paths map onto the repository. */
export function mappedEntry(entry: LogEntry, maps: readonly DirectoryMap[], limits?: Partial<Limits>): { patch: string; at: (written: string) => string } {
  const invocation = parsePatchInvocation(entry.patch, { limits, pathsFromCwd: true });
  const at = pathMapper(entry, maps, invocation.cwd);
  const hunks = invocation.patch.hunks.map((h): Hunk =>
    h.kind === 'update' ? { ...h, path: at(h.path), moveTo: h.moveTo === null ? null : at(h.moveTo) } : { ...h, path: at(h.path) },
  );
  return { patch: normalisePatch({ ...invocation.patch, hunks }), at };
}

/**
 * Session paths of the entry (absolute, or relative to its directory and heredoc `cd`) as
 * repository paths; the mapper throws path_rejected for one outside every mapped directory.
 */
function pathMapper(entry: LogEntry, maps: readonly DirectoryMap[], cd?: string): (written: string) => string {
  const dir = callDirectory(entry, cd);
  const active = mapsFor(entry, maps);
  return (p) => mapPath(entry, p, dir, active);
}
