// What one index entry records besides its path and object id: its mode and flags, and the stat
// data git compares against lstat to tell whether the file changed, and when that comparison
// cannot be trusted (racy git: the file changed within the index file's own timestamp).
import type { BigIntStats, Stats } from 'node:fs';

export const ENTRY_FLAG_ASSUME_VALID = 0x8000;
export const ENTRY_FLAG_EXTENDED = 0x4000;
export const EXTENDED_FLAG_SKIP_WORKTREE = 0x4000;
export const EXTENDED_FLAG_INTENT_TO_ADD = 0x2000;

export const MODE_FILE = 0o100644;
export const MODE_EXECUTABLE = 0o100755;
export const MODE_SYMLINK = 0o120000;
export const MODE_GITLINK = 0o160000;
export const ENTRY_MODES = new Set([MODE_FILE, MODE_EXECUTABLE, MODE_SYMLINK, MODE_GITLINK]);

export interface Timestamp {
  seconds: number;
  nanoseconds: number;
}

/** The stat fields git records per entry, each truncated to 32 bits as on disk. */
export interface StatData {
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
}

export interface IndexEntry extends StatData {
  /** repo-relative, `/`-separated (decoded as UTF-8) */
  path: string;
  oid: string;
  /** 0o100644, 0o100755, 0o120000 or 0o160000 */
  mode: number;
  /** 0 = merged; 1 base, 2 ours, 3 theirs during a conflict */
  stage: number;
  /** the on-disk 16-bit flags (ENTRY_FLAG_*; the low 12 bits are the name length) */
  flags: number;
  /** the v3 extended flags (EXTENDED_FLAG_*), 0 when absent */
  extendedFlags: number;
}

const u32 = (value: number | bigint): number => (typeof value === 'bigint' ? Number(BigInt.asUintN(32, value)) : value >>> 0);

const NS_PER_SECOND = 1_000_000_000n;

export function timestampOfNs(ns: bigint): Timestamp {
  return { seconds: u32(ns / NS_PER_SECOND), nanoseconds: Number(ns % NS_PER_SECOND) };
}

function timestampOfMs(ms: number): Timestamp {
  // number Stats carry times as float milliseconds, which cannot hold every nanosecond: prefer
  // lstat(..., { bigint: true }) so the recorded times match what git will see exactly
  const seconds = Math.floor(ms / 1000);
  const nanoseconds = Math.min(999_999_999, Math.max(0, Math.round((ms - seconds * 1000) * 1e6)));
  return { seconds: u32(seconds), nanoseconds };
}

/** The stat data git would record for a file with this lstat result. */
export function statDataOf(st: Stats | BigIntStats): StatData {
  const ctime = typeof st.ctimeMs === 'bigint' ? timestampOfNs((st as BigIntStats).ctimeNs) : timestampOfMs(st.ctimeMs);
  const mtime = typeof st.mtimeMs === 'bigint' ? timestampOfNs((st as BigIntStats).mtimeNs) : timestampOfMs(st.mtimeMs);
  return {
    ctimeSeconds: ctime.seconds,
    ctimeNanoseconds: ctime.nanoseconds,
    mtimeSeconds: mtime.seconds,
    mtimeNanoseconds: mtime.nanoseconds,
    dev: u32(st.dev),
    ino: u32(st.ino),
    uid: u32(st.uid),
    gid: u32(st.gid),
    size: u32(st.size),
  };
}

/** Racy git: an entry whose mtime is not older than the index file itself may have been modified
 * after it was recorded without its stat data showing it, so its content has to be compared.
 * Same-second counts as racy: git built without nanosecond support (as on Linux by default)
 * compares seconds only. */
export function isRacilyClean(entryMtimeSeconds: number, indexTimestamp: Timestamp | null): boolean {
  return indexTimestamp !== null && entryMtimeSeconds >= indexTimestamp.seconds;
}
