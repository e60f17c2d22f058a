// The commit message of a transaction: the caller's message or a generated one, then trailers.
// The generated subject names the first files in patch order so `git log --oneline` is useful;
// the body lists every change as A/M/D/R lines, the way `git status --short` would.
import type { FileChange } from '../engine/types.js';
import { PatchtxError } from '../errors.js';
import { readTrailers, type Trailer } from '../git/objects/model/trailers.js';

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

export const PATCH_ID_TRAILER = 'Patch-Id';
export const UNDO_TRAILER = 'Patchtx-Undo';
/** the tree patchtx made the commit with: `git commit --amend` keeps the trailers but changes the
 * tree, and undo must not drop what the amend added */
export const TREE_TRAILER = 'Patchtx-Tree';

/** Trailers only patchtx writes: log, undo and redo trust them to find and pair transactions. */
const isReserved = (key: string): boolean => [PATCH_ID_TRAILER, UNDO_TRAILER, TREE_TRAILER].some((r) => r.toLowerCase() === key.toLowerCase());

/** `--trailer KEY=VALUE` (also accepts `KEY: VALUE`, as git interpret-trailers does). */
export function parseTrailerOption(spec: string): Trailer {
  const m = /^([A-Za-z0-9][A-Za-z0-9-]*)\s*[=:]\s*(.*)$/s.exec(spec);
  if (!m || m[2].includes('\n')) {
    throw new PatchtxError('usage', `invalid trailer '${spec}': expected KEY=VALUE with a key of letters, digits and '-' and a one-line value`, {
      option: 'trailers',
      value: spec,
    });
  }
  if (isReserved(m[1])) throw new PatchtxError('usage', `the trailer ${m[1]} is reserved: patchtx writes it itself`, { option: 'trailers', trailer: m[1] });
  return { key: m[1], value: m[2].trim() };
}

/** Refuses a caller's message git would refuse (empty) or one that forges patchtx's own trailers. */
export function checkMessageOption(message: string | undefined): void {
  if (message === undefined) return;
  if (message.trim() === '') throw new PatchtxError('usage', 'the commit message is empty', { option: 'message' });
  const forged = readTrailers(message).find((t) => isReserved(t.key));
  if (forged)
    throw new PatchtxError('usage', `the commit message has a ${forged.key} trailer; patchtx writes it itself`, { option: 'message', trailer: forged.key });
}
