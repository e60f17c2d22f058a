// A unified diff's hunks placed in one file as `git apply` places them by default: each hunk's old
// lines must appear byte for byte (no whitespace leniency, no fuzz: context is never dropped),
// searched from the line its header names outward (forward first on a tie), over the file as the
// hunks before it left it. A hunk with no context before its change, or one at line 1, must match
// at the start of the file; a hunk with no context after its change must match at its end. A
// hunk that cannot be placed fails the whole file, with the closest region named.
import { PatchtxError } from '../errors.js';
import { closestRegion } from '../match/diagnose.js';
import { searchableOf } from '../match/searchable.js';
import type { DiffHunk } from '../patch/types.js';

/** The file's lines, each with its terminator (the last one may have none). */
export function splitKeepingEnds(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', from)) {
    lines.push(text.slice(from, i + 1));
    from = i + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

export function applyDiffHunks(text: string, hunks: readonly DiffHunk[], path: string): string {
  let image = splitKeepingEnds(text);
  hunks.forEach((hunk, i) => {
    const at = findPosition(image, hunk);
    if (at === -1) throw notPlaced(image, hunk, i + 1, path);
    image = [...image.slice(0, at), ...hunk.after, ...image.slice(at + hunk.before.length)];
  });
  return image.join('');
}

function matchesAt(image: readonly string[], before: readonly string[], at: number): boolean {
  for (let j = 0; j < before.length; j++) if (image[at + j] !== before[j]) return false;
  return true;
}

/** git apply's find_pos: the header's line, then one further forward, one back, two forward... */
function findPosition(image: readonly string[], hunk: DiffHunk): number {
  const n = image.length;
  const m = hunk.before.length;
  if (m > n) return -1;
  const matchBeginning = hunk.oldStart <= 1;
  const matchEnd = hunk.trailing === 0;
  if (matchBeginning || matchEnd) {
    const at = matchBeginning ? 0 : n - m;
    if (matchBeginning && matchEnd && m !== n) return -1;
    return matchesAt(image, hunk.before, at) ? at : -1;
  }
  const start = Math.min(hunk.newStart > 0 ? hunk.newStart - 1 : 0, n - m);
  for (let d = 0; start + d <= n - m || start - d >= 0; d++) {
    if (start + d <= n - m && matchesAt(image, hunk.before, start + d)) return start + d;
    if (d > 0 && start - d >= 0 && matchesAt(image, hunk.before, start - d)) return start - d;
  }
  return -1;
}

const bare = (line: string): string => line.replace(/\r?\n$/, '');

function notPlaced(image: readonly string[], hunk: DiffHunk, number: number, path: string): PatchtxError {
  const where =
    hunk.oldStart <= 1 && hunk.trailing === 0
      ? 'as the whole file'
      : hunk.oldStart <= 1
        ? 'at the start of the file'
        : hunk.trailing === 0
          ? 'at the end of the file (the hunk has no context after its change)'
          : `near line ${hunk.oldStart}`;
  const hints = [`Hunk ${number} (patch line ${hunk.line}): its ${hunk.before.length} old line(s) are not in the file ${where}, byte for byte.`];
  const data: { path: string; chunk: number; line: number; candidates?: number[] } = { path, chunk: number, line: hunk.line };
  const region = hunk.before.length === 0 ? undefined : closestRegion(searchableOf(image.map(bare)), hunk.before.map(bare), Math.max(0, hunk.oldStart - 1));
  if (region !== undefined) {
    data.candidates = [region.start + 1];
    hints.push(`Closest match: from line ${region.start + 1} (${region.score} of ${hunk.before.length} lines equal ignoring surrounding whitespace).`);
  }
  return new PatchtxError('context_not_found', `patch does not apply to ${path}\n\n${hints.join('\n')}`, data);
}
