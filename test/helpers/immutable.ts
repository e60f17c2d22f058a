// What stops a write even for root, for the tests of unwritable files and directories: the tests
// run as root, where chmod stops nothing. `chattr +i` (the immutable attribute) does, on file
// systems that keep it (ext4, xfs, btrfs...); where it is not available the tests that need it are
// skipped with a note saying so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const chattr = (flag: '+i' | '-i', file: string): boolean => spawnSync('chattr', [flag, file], { stdio: 'ignore' }).status === 0;

/** Whether `chattr +i` works in the temporary directory (where the test repositories are built). */
function probe(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchtx-immutable-'));
  const file = path.join(dir, 'probe');
  writeFileSync(file, '');
  try {
    if (!chattr('+i', file)) return false;
    let stopped = false;
    try {
      writeFileSync(file, 'x');
    } catch {
      stopped = true;
    }
    chattr('-i', file);
    return stopped;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const immutableSupported = probe();
if (!immutableSupported) console.warn('note: chattr +i is not available here; the tests of unwritable paths are skipped');

const made = new Set<string>();

/** Makes `file` (a file or a directory) immutable: nothing may write, remove or create in it. */
export function makeImmutable(file: string): void {
  if (!chattr('+i', file)) throw new Error(`chattr +i ${file} failed`);
  made.add(file);
}

export function makeMutable(file: string): void {
  chattr('-i', file);
  made.delete(file);
}

/** Undoes every makeImmutable still in effect (call before removing the repositories). */
export function releaseImmutable(): void {
  for (const f of [...made]) makeMutable(f);
}
