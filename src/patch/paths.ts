// Which paths a patch may name. The reference accepts anything and leaves containment to a
// sandbox; patchtx writes into a git repository, so a path must be a plain relative path below
// the worktree root that git itself would store, and must never reach into `.git`.
import { PatchtxError } from '../errors.js';

/** Why `path` is not acceptable, or null when it is. */
export function pathProblem(path: string): string | null {
  if (path === '') return 'the path is empty';
  if (path.startsWith('\\\\')) return 'it is a Windows UNC path; patch paths must be relative';
  if (path.charCodeAt(0) === 0x2f) return 'it is absolute; patch paths must be relative';
  if (/^[A-Za-z]:/.test(path)) return 'it starts with a Windows drive; patch paths must be relative';
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `it contains the control character ${describeControl(c)}`;
    // Git and Windows would disagree about where the segments are.
    if (c === 0x5c) return "it contains a backslash; use '/' to separate directories";
  }
  const segments = path.split('/');
  if (segments.includes('..')) return "it has a '..' segment";
  const directory = directoryProblem(path);
  if (directory !== null) return directory;
  for (const segment of segments) {
    if (segment === '') return "it has an empty segment ('//')";
    if (segment === '.') return "it has a '.' segment";
    if (isGitDirAlias(segment)) return `'${segment}' names the .git directory`;
  }
  return lengthProblem(path);
}

/** Why `path` names a directory rather than a file (a trailing '/', or a last segment '.' or '..'), or null. */
export function directoryProblem(path: string): string | null {
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (last !== '' && last !== '.' && last !== '..') return null;
  return `it names a directory (it ends with '${last === '' ? '/' : last}'); a patch names files`;
}

/**
 * A path as a model or a tool writes it, made plain as git takes it: repeated '/' as one, and with
 * `dots`, '.' segments dropped (`./src//x` is `src/x`). A path naming a directory, or one that
 * would be left empty, is returned as written, for pathProblem to refuse.
 */
export function plainPath(path: string, dots: boolean): string {
  // already plain (nearly every path): nothing to split and join again
  if (!path.includes('//') && !(dots && (path.startsWith('./') || path.includes('/./')))) return path;
  if (directoryProblem(path) !== null) return path;
  const kept = path.split('/').filter((s, i) => (s !== '' || i === 0) && !(dots && s === '.'));
  return kept.length === 0 || (kept.length === 1 && kept[0] === '') ? path : kept.join('/');
}

/**
 * The limits a path must keep to be written on Linux: NAME_MAX bytes per component, and fewer than
 * PATH_MAX bytes (which counts the final NUL) for the whole path. Node cannot ask a file system for
 * its own (pathconf), so these are the common ones; a file system with smaller limits refuses the
 * write itself (io_error).
 */
export const NAME_MAX = 255;
export const PATH_MAX = 4096;

/** Why `path` is too long to be written, or null. `prefixBytes`: the bytes that will stand in
 * front of it (a working tree's directory and its '/'). */
export function lengthProblem(path: string, prefixBytes = 0): string | null {
  // a UTF-16 code unit is at most 3 bytes of UTF-8: a path this short is within both limits
  if (path.length * 3 <= NAME_MAX && prefixBytes + path.length * 3 < PATH_MAX) return null;
  for (const segment of path.split('/')) {
    const n = utf8Length(segment);
    if (n > NAME_MAX) return `its component '${segment.slice(0, 24)}…' is ${n} bytes long; file systems take at most ${NAME_MAX}`;
  }
  const total = prefixBytes + utf8Length(path);
  if (total >= PATH_MAX) {
    const where = prefixBytes > 0 ? " with the working tree's directory in front" : '';
    return `it is ${total} bytes long${where}; a path must be shorter than ${PATH_MAX} bytes`;
  }
  return null;
}

/** The UTF-8 length of `s` (a lone surrogate, which encodes as U+FFFD, counts 3 bytes). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: two units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * Why `path`, taken relative to a current directory (as Codex takes it), is not acceptable: the
 * same checks, except that an absolute path and `.` or `..` segments are left to the caller,
 * which resolves them and refuses what leaves the repository.
 */
export function cwdPathProblem(path: string): string | null {
  if (path === '' || path.startsWith('\\\\')) return pathProblem(path);
  const directory = directoryProblem(path);
  if (directory !== null) return directory;
  const segments = path.replace(/^\/+/, '').split('/');
  const kept = segments.filter((s) => s !== '.' && s !== '..' && s !== '');
  return kept.length === 0 ? 'it names a directory, not a file' : pathProblem(kept.join('/'));
}

/** Returns `path` when a patch may touch it; throws `path_rejected` otherwise. */
export function checkPatchPath(path: string): string {
  const problem = pathProblem(path);
  if (problem !== null) {
    throw new PatchtxError('path_rejected', `Path ${quotePath(path)} is rejected: ${problem}`, { path });
  }
  return path;
}

/** Single-quoted for messages, with control characters made visible. */
export function quotePath(path: string): string {
  // eslint-disable-next-line no-control-regex
  return `'${path.replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}

const CONTROL_NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x09: 'TAB',
  0x0a: 'LF (newline)',
  0x0d: 'CR (carriage return)',
  0x1b: 'ESC',
  0x7f: 'DEL',
};

function describeControl(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CONTROL_NAMES[code];
  return name === undefined ? hex : `${hex} (${name})`;
}

// Case-insensitive filesystems (macOS, Windows) would resolve all of these to the repository's
// own `.git` directory, which is how CVE-2014-9390-style attacks write hooks through a checkout:
//  - any case (`.GIT`); NTFS also drops trailing dots and spaces (`.git.`, `.git  `), treats
//    `name:stream` as the file `name` (`.git::$INDEX_ALLOCATION`), and exposes the 8.3 short
//    name `GIT~1`;
//  - HFS+ ignores some zero-width and direction-mark code points when comparing names
//    (`.g\u200cit`).
// Git refuses the same set (fsck and checkout's verify_path); matching it costs a few string ops.
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

function isGitDirAlias(segment: string): boolean {
  // Each alias starts with '.' or 'g' once the ignorable code points are gone and the case is
  // folded; an ASCII first character is neither ignorable nor changed by more than its case, so a
  // segment starting with any other one (nearly every segment) is none of them.
  const first = segment.charCodeAt(0);
  if (first < 0x80 && first !== 0x2e && first !== 0x67 && first !== 0x47) return false;
  let s = segment.replace(HFS_IGNORABLE, '').toLowerCase();
  const colon = s.indexOf(':');
  if (colon >= 0) s = s.slice(0, colon);
  s = s.replace(/[. ]+$/, '');
  return s === '.git' || s === 'git~1';
}
