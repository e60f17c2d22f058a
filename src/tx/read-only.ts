// A git directory that cannot be written: a sandbox that keeps .git read-only while the working
// tree is writable, a read-only mount, an immutable directory. Nothing can be committed there, so
// a transaction refuses before it writes anything, with a typed error that names the directory and
// the cause; apply_patch then writes the files without a commit (see src/cli/apply_patch.ts).
import { accessSync, constants } from 'node:fs';
import { PatchtxError } from '../errors.js';
import { causeOfCode } from '../git/fs/io-error.js';
import type { Repository } from '../git/repo/repository.js';

/** The errors by which a git directory refuses writes (their words: io-error.ts). */
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);

function readOnly(dir: string, code: string): PatchtxError {
  const cause = `${causeOfCode(code)}, ${code}`;
  return new PatchtxError('unsupported_repository', `cannot commit: the git directory ${dir} is not writable (${cause}); nothing was written`, {
    reason: 'read_only',
    gitdir: dir,
    cause,
  });
}

/** The errno of `e`: a Node error's own, or the one a typed io_error of the git layer carries. */
function errnoOf(e: unknown): string | undefined {
  if (e instanceof PatchtxError) return e.kind === 'io_error' && typeof e.data.errno === 'string' ? e.data.errno : undefined;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Refuses (read_only) when this checkout's git directory or the common one cannot be written.
 * access(2) sees a read-only mount, an immutable directory and permission bits; a sandbox that
 * refuses only the write itself is caught by asReadOnly at the transaction's first write.
 */
export function checkGitDirWritable(repo: Repository): void {
  for (const dir of new Set([repo.gitdir, repo.commonDir])) {
    try {
      accessSync(dir, constants.W_OK);
    } catch (e) {
      const code = errnoOf(e);
      if (code !== undefined && READ_ONLY.has(code)) throw readOnly(dir, code);
      throw e;
    }
  }
}

/** `e`, the failure of the transaction's first write into `dir`, as the read-only refusal when it is one. */
export function asReadOnly(e: unknown, dir: string): unknown {
  const code = errnoOf(e);
  return code !== undefined && READ_ONLY.has(code) ? readOnly(dir, code) : e;
}

/** True for the refusal above: nothing was written, and the working tree may still be written. */
export function isReadOnlyRefusal(e: unknown): e is PatchtxError {
  return e instanceof PatchtxError && e.kind === 'unsupported_repository' && e.data.reason === 'read_only';
}
