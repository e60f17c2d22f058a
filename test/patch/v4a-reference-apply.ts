// A deliberately small V4A applier for tests of the patch generator: the reference's cursor
// algorithm with the exact-match pass only, plus an ambiguity check (a generated chunk must match
// at exactly one position from the cursor on). Line model: split on `\n`, drop one `\r`; after an
// Update every line is written with `\n`.
import type { Patch } from '../../src/patch/types.js';

export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function matchesAt(lines: string[], at: number, want: string[]): boolean {
  for (let k = 0; k < want.length; k++) if (lines[at + k] !== want[k]) return false;
  return true;
}

/** Applies `patch` to `files` (path → text) and returns the new map; throws on any doubt. */
export function applyForTest(files: Map<string, string>, patch: Patch): Map<string, string> {
  const out = new Map(files);
  for (const hunk of patch.hunks) {
    if (hunk.kind === 'add') {
      out.set(hunk.path, hunk.contents);
      continue;
    }
    const text = out.get(hunk.path);
    if (text === undefined) throw new Error(`missing ${hunk.path}`);
    if (hunk.kind === 'delete') {
      out.delete(hunk.path);
      continue;
    }
    if (hunk.kind === 'edit') throw new Error('a V4A patch has no edit hunks');
    const lines = linesOf(text);
    const replacements: Array<[number, number, string[]]> = [];
    let cursor = 0;
    for (const chunk of hunk.chunks) {
      if (chunk.contexts.length > 0) throw new Error('generator emitted an @@ context');
      const old = chunk.oldLines;
      let at: number;
      if (old.length === 0) {
        if (!chunk.isEndOfFile) throw new Error('pure addition not pinned to EOF');
        at = lines.length;
      } else if (chunk.isEndOfFile) {
        at = lines.length - old.length;
        if (at < cursor || !matchesAt(lines, at, old)) throw new Error(`EOF chunk at line ${chunk.line} does not match`);
      } else {
        const found: number[] = [];
        for (let p = cursor; p + old.length <= lines.length; p++) if (matchesAt(lines, p, old)) found.push(p);
        if (found.length !== 1) throw new Error(`chunk at line ${chunk.line} matches ${found.length} times`);
        at = found[0]!;
      }
      replacements.push([at, old.length, chunk.newLines]);
      cursor = at + old.length;
    }
    for (const [at, len, repl] of replacements.reverse()) lines.splice(at, len, ...repl);
    out.set(hunk.path, lines.map((l) => `${l}\n`).join(''));
  }
  return out;
}
