// The commit message of a transaction: the caller's message or a generated one, then trailers.
// The generated subject names the first files in patch order so `git log --oneline` is useful;
// the body lists every change as A/M/D/R lines, the way `git status --short` would.
import type { FileChange } from '../engine/types.js';
import { PatchtxError } from '../errors.js';
import type { Trailer } from '../git/model/trailers.js';

const VERB: Record<FileChange['op'], string> = { A: 'add', M: 'update', D: 'delete', R: 'rename' };
const SUBJECT_FILES = 2;

export function changeLine(change: FileChange): string {
  return change.op === 'R' ? `R ${change.from} -> ${change.path}` : `${change.op} ${change.path}`;
}

export function generatedMessage(changes: FileChange[]): string {
  const named = changes.slice(0, SUBJECT_FILES).map((c) => `${VERB[c.op]} ${c.op === 'R' ? `${c.from} -> ${c.path}` : c.path}`);
  const more = changes.length > SUBJECT_FILES ? ` (+${changes.length - SUBJECT_FILES} more)` : '';
  const subject = `Apply patch: ${named.join(', ')}${more}`;
  return `${subject}\n\n${changes.map(changeLine).join('\n')}\n`;
}

/** `--trailer KEY=VALUE` (also accepts `KEY: VALUE`, as git interpret-trailers does). */
export function parseTrailerOption(spec: string): Trailer {
  const m = /^([A-Za-z0-9][A-Za-z0-9-]*)\s*[=:]\s*(.*)$/s.exec(spec);
  if (!m || m[2].includes('\n')) {
    throw new PatchtxError('usage', `invalid --trailer '${spec}': expected KEY=VALUE with a key of letters, digits and '-' and a one-line value`);
  }
  return { key: m[1], value: m[2].trim() };
}

export const PATCH_ID_TRAILER = 'Patch-Id';
export const UNDO_TRAILER = 'Patchtx-Undo';
