// The transaction journal: <gitdir>/patchtx/journal.json.
//
// It is created (O_EXCL) before anything is locked or published and removed when the working tree
// and index are in line again, so it doubles as patchtx's per-checkout lock: a second patchtx in
// the same checkout sees it and reports `stale` instead of interleaving. Its `state` tells the
// next patchtx (or `patchtx recover`) what an interrupted run left behind:
//   prepared   nothing published yet: drop our locks, the repository is at the old state
//   published  the ref may have moved: if it points at `newOid`, finish the note, working tree and
//              index for `paths`; otherwise the run did not land and is dropped
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from '../git/repository.js';
import { PatchtxError } from '../errors.js';

export interface Journal {
  version: 1;
  pid: number;
  startedAt: string;
  op: 'apply' | 'undo' | 'redo';
  state: 'prepared' | 'published';
  ref: string;
  oldOid: string | null;
  newOid: string | null;
  /** sync the working tree and index of this checkout for `paths` once published */
  worktree: boolean;
  paths: string[];
  /** lock files this run may hold (absolute paths), removed by recovery of a dead run */
  locks: string[];
  /** git note to attach to newOid (the original patch text) */
  note?: { ref: string; text: string };
  /** redo-stack change to make once published */
  redo?: { push?: string; pop?: boolean; clear?: boolean };
}

export const journalPath = (repo: Repository): string => path.join(repo.gitdir, 'patchtx', 'journal.json');

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off);
  fsyncSync(fd);
}

/** Creates the journal exclusively; an existing one means another run is in flight (or died). */
export function createJournal(repo: Repository, journal: Journal): void {
  const file = journalPath(repo);
  mkdirSync(path.dirname(file), { recursive: true });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new PatchtxError('stale', `another patchtx transaction is in progress in this checkout (${file} exists); retry, or run 'patchtx recover' if no patchtx is running`, { journal: file });
    }
    throw e;
  }
  try {
    writeAll(fd, JSON.stringify(journal, null, 2) + '\n');
  } finally {
    closeSync(fd);
  }
}

/** Replaces the journal atomically (write a sibling, rename over). */
export function updateJournal(repo: Repository, journal: Journal): void {
  const file = journalPath(repo);
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeAll(fd, JSON.stringify(journal, null, 2) + '\n');
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

export type JournalRead = { kind: 'none' } | { kind: 'journal'; journal: Journal } | { kind: 'unreadable'; ageMs: number };

export function readJournal(repo: Repository): JournalRead {
  const file = journalPath(repo);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw e;
  }
  try {
    const journal = JSON.parse(text) as Journal;
    if (journal.version !== 1) throw new Error('version');
    return { kind: 'journal', journal };
  } catch {
    // Created but not yet written (a run is starting now), or cut short by a crash right there.
    let ageMs = Infinity;
    try {
      ageMs = Date.now() - statSync(file).mtimeMs;
    } catch {
      /* gone meanwhile */
    }
    return { kind: 'unreadable', ageMs };
  }
}

export function removeJournal(repo: Repository): void {
  rmSync(journalPath(repo), { force: true });
}

export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
