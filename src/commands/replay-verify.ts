// The replayed result against the changes a log records (Codex's patch_apply_end `changes`): the
// same paths added, deleted, updated or moved, an added file with the recorded content, and each
// hunk of a recorded unified diff found in the file before (its old side) and after (its new
// side). A difference means the replay does not do what the session did (another starting
// content, a lenient match at another place): it stops the replay with replay_mismatch, naming
// the paths, before the commit is written. Line endings are not compared.
import type { FileChange } from '../engine/types.js';
import { PatchtxError } from '../errors.js';
import type { RecordedChange } from '../logs/types.js';

/** The result of an entry before it is committed: repository paths, working-tree bytes. */
export interface ReplayedFiles {
  changes: readonly FileChange[];
  /** the content before (undefined: absent or not read) */
  before: (path: string) => Uint8Array | undefined;
  /** the content after (null: deleted; undefined: not touched) */
  after: (path: string) => Uint8Array | null | undefined;
}

const textOf = (bytes: Uint8Array | null | undefined): string | null => (bytes ? Buffer.from(bytes).toString('utf8').replace(/\r\n/g, '\n') : null);

/** The old and new sides of each hunk of a unified diff, as lists of lines. */
function hunkSides(diff: string): { old: string[]; new: string[] }[] {
  const hunks: { old: string[]; new: string[] }[] = [];
  for (const raw of diff.replace(/\r\n/g, '\n').split('\n')) {
    if (raw.startsWith('@@')) hunks.push({ old: [], new: [] });
    else if (hunks.length === 0 || raw.startsWith('\\') || raw.startsWith('---') || raw.startsWith('+++')) continue;
    else if (raw.startsWith('-')) hunks.at(-1)!.old.push(raw.slice(1));
    else if (raw.startsWith('+')) hunks.at(-1)!.new.push(raw.slice(1));
    else if (raw.startsWith(' ') || raw === '') {
      hunks.at(-1)!.old.push(raw.slice(1));
      hunks.at(-1)!.new.push(raw.slice(1));
    }
  }
  // a blank line closing the diff is no context line
  for (const h of hunks) {
    while (h.old.length > 0 && h.new.length > 0 && h.old.at(-1) === '' && h.new.at(-1) === '') {
      h.old.pop();
      h.new.pop();
    }
  }
  return hunks;
}

/** Whether `block` occurs as consecutive lines of `text`. */
function holdsLines(text: string, block: string[]): boolean {
  if (block.length === 0) return true;
  const lines = text.split('\n');
  for (let i = 0; i + block.length <= lines.length; i++) if (block.every((l, k) => lines[i + k] === l)) return true;
  return false;
}

/** Throws replay_mismatch when `files` is not what `recorded` (keyed by session path) says. */
export function compareWithRecorded(recorded: ReadonlyMap<string, RecordedChange>, toRepository: (written: string) => string, files: ReplayedFiles): void {
  const problems: { path: string; why: string }[] = [];
  const changed = new Set(files.changes.flatMap((c) => (c.from === undefined ? [c.path] : [c.path, c.from])));
  const expected = new Set<string>();
  for (const [written, change] of recorded) {
    const p = toRepository(written);
    expected.add(p);
    if (change.type === 'add') {
      const after = textOf(files.after(p));
      if (after === null) problems.push({ path: p, why: 'the log records it added; the replay does not make it' });
      else if (after !== change.content.replace(/\r\n/g, '\n')) problems.push({ path: p, why: 'the replay adds it with other content than the log records' });
      continue;
    }
    if (change.type === 'delete') {
      if (files.after(p) !== null) problems.push({ path: p, why: 'the log records it deleted; the replay keeps it' });
      continue;
    }
    const dest = change.movePath ? toRepository(change.movePath) : p;
    expected.add(dest);
    if (dest !== p && files.after(p) !== null) problems.push({ path: p, why: `the log records it moved to ${dest}; the replay keeps it` });
    if (!changed.has(dest)) {
      problems.push({ path: dest, why: 'the log records it updated; the replay does not change it' });
      continue;
    }
    const before = textOf(files.before(p));
    const after = textOf(files.after(dest)) ?? '';
    for (const [i, side] of hunkSides(change.unifiedDiff ?? '').entries()) {
      if (!holdsLines(after, side.new) || (before !== null && !holdsLines(before, side.old))) {
        problems.push({ path: dest, why: `hunk ${i + 1} of the recorded diff is not what the replay does there` });
        break;
      }
    }
  }
  for (const p of changed) if (!expected.has(p)) problems.push({ path: p, why: 'the replay changes it; the log records no change to it' });
  if (problems.length === 0) return;
  throw new PatchtxError('replay_mismatch', `the result differs from the changes the log records: ${problems.map((d) => `${d.path}: ${d.why}`).join('; ')}`, {
    paths: [...new Set(problems.map((d) => d.path))],
    reason: 'recorded_changes',
  });
}
