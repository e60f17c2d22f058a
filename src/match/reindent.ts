// The `+` lines of a chunk that matched only with leading whitespace ignored, re-indented to the
// file. Such a chunk's context says where the change goes, but its indentation is the patch's:
// written as it is, a `+` line is one level off in Python, a YAML key lands in the wrong mapping,
// a Makefile recipe gets spaces where make wants a tab. The old lines pair each patch indentation
// with the file's indentation of the same line, and that mapping is applied to the `+` lines:
//  - when every pair differs by the same prefix (the file deeper or shallower by a fixed run of
//    whitespace), the `+` lines gain or lose that prefix;
//  - otherwise (tabs for spaces, two spaces per level for four) indentation is counted in levels:
//    the patch's unit and the file's unit are detected, and a `+` line keeps its level relative
//    to the nearest old line, written in the file's unit.
import type { ChunkLine } from '../patch/types.js';

/** The leading run of spaces and tabs. */
export function indentOf(line: string): string {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 0x20 || line.charCodeAt(i) === 0x09)) i++;
  return line.slice(0, i);
}

/**
 * One level of indentation in these lines: a tab when most indented lines start with one, else
 * the most common increase in spaces from one line to the next (the smaller on a tie). Undefined
 * when nothing is indented.
 */
export function indentUnit(lines: Iterable<string>): string | undefined {
  let tabs = 0;
  let spaces = 0;
  const steps = new Map<number, number>();
  let previous: number | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = indentOf(line);
    if (indent.startsWith('\t')) tabs++;
    else if (indent !== '') spaces++;
    if (indent.includes('\t')) {
      previous = undefined;
      continue;
    }
    if (previous !== undefined && indent.length > previous) {
      const step = indent.length - previous;
      steps.set(step, (steps.get(step) ?? 0) + 1);
    }
    previous = indent.length;
  }
  if (tabs > spaces) return '\t';
  if (spaces === 0) return undefined;
  let best: number | undefined;
  for (const [step, count] of steps) {
    const bestCount = best === undefined ? 0 : steps.get(best)!;
    if (count > bestCount || (count === bestCount && step < best!)) best = step;
  }
  return best === undefined ? undefined : ' '.repeat(best);
}

interface Level {
  level: number;
  /** what is left after the whole levels: alignment spaces */
  rest: string;
}

function levelOf(indent: string, unit: string): Level {
  if (unit === '\t') {
    let n = 0;
    while (n < indent.length && indent[n] === '\t') n++;
    return { level: n, rest: indent.slice(n) };
  }
  let width = 0;
  for (const ch of indent) width += ch === '\t' ? unit.length : 1;
  return { level: Math.floor(width / unit.length), rest: ' '.repeat(width % unit.length) };
}

interface Pair {
  /** position in the chunk's lines */
  at: number;
  patch: string;
  file: string;
}

/** The prefix D with every pair's `longer === D + shorter`, if there is one. */
function commonPrefix(pairs: readonly Pair[], longer: 'patch' | 'file'): string | undefined {
  const shorter = longer === 'patch' ? 'file' : 'patch';
  const first = pairs[0]!;
  if (!first[longer].endsWith(first[shorter])) return undefined;
  const prefix = first[longer].slice(0, first[longer].length - first[shorter].length);
  return pairs.every((p) => p[longer] === prefix + p[shorter]) ? prefix : undefined;
}

export interface Reindented {
  lines: ChunkLine[];
  /** true when some `+` line's indentation changed */
  changed: boolean;
}

/**
 * `lines` with each `+` line's indentation mapped from the patch's to the file's. `fileLines`
 * holds the file's text of each old line of the chunk, in order; `fileUnit` is the file's
 * indentation unit, when known.
 */
export function reindentChunk(lines: readonly ChunkLine[], fileLines: readonly string[], fileUnit: string | undefined): Reindented {
  const pairs: Pair[] = [];
  let old = 0;
  lines.forEach((line, at) => {
    if (line.op === '+') return;
    const file = fileLines[old++]!;
    if (line.text.trim() !== '' && file.trim() !== '') pairs.push({ at, patch: indentOf(line.text), file: indentOf(file) });
  });
  if (pairs.length === 0 || pairs.every((p) => p.patch === p.file)) return { lines: lines.slice(), changed: false };

  const deeper = commonPrefix(pairs, 'file');
  const shallower = deeper === undefined ? commonPrefix(pairs, 'patch') : undefined;
  const patchUnit = indentUnit(lines.map((l) => l.text));
  const unit = fileUnit ?? patchUnit;

  const map = (indent: string, at: number): string => {
    if (deeper !== undefined) return deeper + indent;
    if (shallower !== undefined && indent.startsWith(shallower)) return indent.slice(shallower.length);
    const anchor = nearest(pairs, at);
    if (indent === anchor.patch) return anchor.file;
    if (patchUnit === undefined || unit === undefined) return anchor.file;
    const mine = levelOf(indent, patchUnit);
    const theirs = levelOf(anchor.patch, patchUnit);
    const target = levelOf(anchor.file, unit).level + mine.level - theirs.level;
    return unit.repeat(Math.max(0, target)) + mine.rest;
  };

  let changed = false;
  const out = lines.map((line, at): ChunkLine => {
    if (line.op !== '+' || line.text.trim() === '') return line;
    const indent = indentOf(line.text);
    const mapped = map(indent, at);
    if (mapped === indent) return line;
    changed = true;
    return { op: '+', text: mapped + line.text.slice(indent.length) };
  });
  return { lines: out, changed };
}

/** The pair nearest before `at` (the line a `+` line follows), else the first after it. */
function nearest(pairs: readonly Pair[], at: number): Pair {
  let best = pairs[0]!;
  for (const p of pairs) {
    if (p.at > at) break;
    best = p;
  }
  return best;
}
