// apply_patch outside a git repository: no commit to make, but still all-or-nothing up to the
// last moment. Every touched file is read first, the whole patch is planned in memory, and only
// then are the results written (each file by write-to-temp and rename).
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { planPatch } from '../engine/plan.js';
import type { Dialect, PlanWarning } from '../engine/types.js';
import type { Limits } from '../patch/limits.js';
import { errnoOf, ioCauseOf } from '../git/fs/io-error.js';
import { parsePatchInvocation } from '../patch/parse.js';
import { TouchedFiles } from '../tx/touched-files.js';
import { specialKind } from '../tx/state.js';
import { patchDirectory, rerootPatch, touchedPaths } from '../tx/touched.js';

/**
 * A file that could not be read or written, as a typed error in one line: io_error for what the
 * file system reported (with the cause in words when it is a known one), internal for anything else.
 */
function fileError(e: unknown, action: string, p: string): PatchtxError {
  const code = (e as NodeJS.ErrnoException).code;
  const cause = ioCauseOf(e);
  if (cause !== null) return new PatchtxError('io_error', `Failed to ${action} file ${p}: ${cause} (${code})`, { path: p, errno: code });
  if (errnoOf(e) !== null) return new PatchtxError('io_error', `Failed to ${action} file ${p}: ${code}`, { path: p, errno: code });
  return new PatchtxError('internal', `Failed to ${action} file ${p}: ${String((e as Error).message).split('\n')[0]}`, { path: p });
}

function loadPath(root: string, p: string, overlay: TouchedFiles): void {
  // refuse to read or write through a symlink anywhere along the path
  const parts = p.split('/');
  for (let i = 1; i <= parts.length; i++) {
    let st;
    try {
      st = lstatSync(path.join(root, ...parts.slice(0, i)));
    } catch {
      return; // missing from here on
    }
    if (st.isSymbolicLink()) {
      throw new PatchtxError('path_rejected', `cannot touch ${p}: ${parts.slice(0, i).join('/')} is a symbolic link`, { path: p });
    }
    if (i === parts.length) {
      if (st.isDirectory()) overlay.markDirectory(p);
      else if (st.isFile()) {
        try {
          overlay.putFile(p, readFileSync(path.join(root, p)));
        } catch (e) {
          throw fileError(e, 'read', p);
        }
      } else {
        // a named pipe, a socket, a device: replacing it would lose it (and opening a pipe blocks)
        throw new PatchtxError(
          'dirty',
          `the patch cannot be applied: patchtx never replaces or removes a special file:\n  ${p}: ${specialKind(st)} in the way\nmove or remove it first`,
          {
            paths: [p],
          },
        );
      }
    } else if (!st.isDirectory()) {
      return;
    }
  }
}

/**
 * Applies `patchText` to the files below `root`, its paths relative to `base` (a directory below
 * `root`, '' for root itself): a checkout whose git directory cannot be written takes this way too.
 */
export async function applyToDirectory(
  root: string,
  patchText: string,
  base = '',
  limits?: Partial<Limits>,
  dialect?: Dialect,
): Promise<{ summary: string[]; warnings: PlanWarning[] }> {
  // paths relative to the current directory, as in Codex (`..` and absolute ones resolved)
  const invocation = parsePatchInvocation(patchText, { limits, pathsFromCwd: true });
  // `cd DIR && apply_patch <<'EOF'`: the paths are relative to DIR (which must be below root)
  const realRoot = realpathSync(root);
  const dir = patchDirectory(realRoot, base, invocation.cwd);
  const patch = rerootPatch(invocation.patch, dir, realRoot);
  const overlay = new TouchedFiles();
  for (const p of touchedPaths(patch).keys()) loadPath(root, p, overlay);
  const plan = planPatch(patch, overlay, { matchWork: limits?.matchWork, dialect });
  for (const [p, data] of plan.files) {
    const file = path.join(root, p);
    if (data === null) {
      try {
        if (overlay.read(p) !== undefined) unlinkSync(file);
      } catch (e) {
        throw fileError(e, 'delete', p);
      }
      continue;
    }
    const tmp = `${file}.patchtx-${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(tmp, data);
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw fileError(e, 'write', p);
    }
  }
  return { summary: plan.summary, warnings: plan.warnings };
}
