// A unified diff (`git diff` with renames, new and deleted files and mode changes; `diff -u`) read
// into a Patch, so that it is applied as one transaction like a V4A patch. The diff package's
// parsePatch reads the grammar (git's extended headers included); here each file's entry becomes
// hunks: a new file is an Add that refuses an existing file, a deleted file an edit whose result
// must be empty followed by a Delete (git apply refuses to delete a file the diff does not
// describe), a rename a Move that refuses an existing destination followed by the edit of its
// hunks, a mode change an edit of the mode. Paths lose their first component (`a/`, `b/`) as
// `git apply -p1` does, when they have one; a diff not made by git names one file (its `+++`
// path). Binary diffs and copies are refused.
import { parsePatch as parseUnified, type StructuredPatch } from 'diff';
import { PatchtxError } from '../errors.js';
import { pathProblem, plainPath, quotePath } from '../patch/paths.js';
import type { DiffHunk, Hunk, Patch } from '../patch/types.js';
import { hasLineOf } from '../text/line-start.js';

const NO_NEWLINE = '\\';
/** `--- `, `+++ ` and `@@ -` lines in a row, from the first one's first character on (hasLineOf) */
const FILE_HEADERS = /--- [^\n]*\r?\n\+\+\+ [^\n]*\r?\n@@ -/my;

/** Whether `text` looks like a unified diff: a `diff --git` line, or `--- ` then `+++ ` then `@@`. */
export function isUnifiedDiff(text: string): boolean {
  return hasLineOf(text, 'diff --git ', undefined, '--git ') || hasLineOf(text, '--- ', FILE_HEADERS);
}

export function parseUnifiedDiff(text: string): Patch {
  // the diff package reads `git diff --binary` output as a file without hunks
  const binary = /^GIT binary patch\r?$/m.exec(text);
  if (binary !== null) {
    const line = text.slice(0, binary.index).split('\n').length;
    throw new PatchtxError('parse_error', `line ${line}: the diff holds a binary patch, which patchtx does not apply`, { format: 'unified', line });
  }
  let files: StructuredPatch[];
  try {
    files = parseUnified(text);
  } catch (e) {
    throw new PatchtxError('parse_error', `the unified diff does not parse: ${(e as Error).message}`, { format: 'unified' });
  }
  const headers = hunkHeaderLines(text);
  const fileLines = fileHeaderLines(text);
  let nextHeader = 0;
  const hunks: Hunk[] = [];
  files.forEach((file, index) => {
    const line = fileLines[index] ?? 1;
    const diffHunks = file.hunks.map((h) => diffHunk(h, headers[nextHeader++] ?? line));
    hunks.push(...fileHunks(file as StructuredPatch & Record<string, unknown>, diffHunks, index, line));
  });
  if (hunks.length === 0) throw new PatchtxError('parse_error', 'the unified diff changes no file', { format: 'unified' });
  return { hunks, text };
}

/** 1-based lines of the `@@ -` headers, in order. */
function hunkHeaderLines(text: string): number[] {
  const out: number[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.startsWith('@@ -')) out.push(i + 1);
  });
  return out;
}

/** 1-based line where each file's entry starts (`diff --git`, or a `---` followed by `+++`). */
function fileHeaderLines(text: string): number[] {
  const lines = text.split('\n');
  const out: number[] = [];
  let inGit = false;
  lines.forEach((l, i) => {
    if (l.startsWith('diff --git ')) {
      out.push(i + 1);
      inGit = true;
    } else if (l.startsWith('@@ ')) inGit = false;
    else if (!inGit && l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) out.push(i + 1);
  });
  return out;
}

function diffHunk(h: StructuredPatch['hunks'][number], line: number): DiffHunk {
  const before: string[] = [];
  const after: string[] = [];
  let first = -1;
  let last = -1;
  h.lines.forEach((l, i) => {
    const op = l[0];
    if (op === NO_NEWLINE) {
      // the line before it has no newline: on the old side, the new side, or both (context)
      const prev = h.lines[i - 1]?.[0];
      if (prev !== '+') before[before.length - 1] = before[before.length - 1]!.slice(0, -1);
      if (prev !== '-') after[after.length - 1] = after[after.length - 1]!.slice(0, -1);
      return;
    }
    const body = l.slice(1) + '\n';
    if (op !== '+') before.push(body);
    if (op !== '-') after.push(body);
    if (op === '+' || op === '-') {
      if (first === -1) first = i;
      last = i;
    }
  });
  const context = (from: number, to: number): number => h.lines.slice(from, to).filter((l) => l[0] === ' ').length;
  return {
    oldStart: h.oldStart,
    newStart: h.newStart,
    before,
    after,
    leading: first === -1 ? 0 : context(0, first),
    trailing: last === -1 ? 0 : context(last + 1, h.lines.length),
    line,
  };
}

/**
 * `a/x` -> `x` (git apply's -p1); `/dev/null` -> null. Repeated '/' are one, as git apply takes
 * them; a '.' segment is refused, as git apply refuses it.
 */
function pathOf(name: string | undefined, git: boolean, line: number): string | null {
  if (name === undefined || name === '/dev/null') return null;
  const plain = plainPath(name, false);
  const slash = plain.indexOf('/');
  const p = git || slash !== -1 ? plain.slice(slash + 1) : plain;
  const problem = pathProblem(p);
  if (problem !== null) throw new PatchtxError('path_rejected', `Path ${quotePath(p)} is rejected: ${problem}`, { path: p, line });
  return p;
}

function mode(m: string | undefined): '100644' | '100755' | undefined {
  if (m === undefined) return undefined;
  if (m === '100644' || m === '100755') return m;
  throw new PatchtxError('parse_error', `file mode ${m} is not supported (only 100644 and 100755: no symbolic links or submodules)`, {
    format: 'unified',
    value: m,
  });
}

function fileHunks(file: StructuredPatch & Record<string, unknown>, hunks: DiffHunk[], index: number, line: number): Hunk[] {
  const git = file.isGit === true;
  const origin = { index, name: 'diff' };
  if (file.isBinary === true) {
    throw new PatchtxError('parse_error', `the diff of ${file.newFileName ?? file.oldFileName} is binary, which patchtx does not apply`, {
      format: 'unified',
      line,
    });
  }
  if (file.isCopy === true) throw new PatchtxError('parse_error', `the diff copies a file, which patchtx does not apply`, { format: 'unified', line });
  let from = pathOf(file.oldFileName, git, line);
  const to = pathOf(file.newFileName, git, line);
  // a diff that is not git's renames nothing: it patches the file the `+++` line names (the `---`
  // one for a deletion), as git apply takes it (`--- f.orig` / `+++ f` patches f)
  if (!git && from !== null && to !== null) from = to;
  const newMode = mode(file.newMode as string | undefined);
  if (from === null && to === null) throw new PatchtxError('parse_error', 'a file entry of the diff names no file', { format: 'unified', line });
  if (from === null || file.isCreate === true) {
    const path = (to ?? from)!;
    const contents = hunks.flatMap((h) => h.after).join('');
    const out: Hunk[] = [{ kind: 'add', path, contents, line, exclusive: true, stored: true, origin }];
    if (newMode === '100755') out.push({ kind: 'edit', path, edit: { type: 'mode', mode: newMode }, line, origin });
    return out;
  }
  if (to === null || file.isDelete === true) {
    const out: Hunk[] = [{ kind: 'edit', path: from, edit: { type: 'hunks', hunks, remove: true }, line, origin }];
    return [...out, { kind: 'delete', path: from, line, origin }];
  }
  const out: Hunk[] = [];
  if (from !== to) out.push({ kind: 'update', path: from, moveTo: to, chunks: [], line, exclusive: true, origin });
  if (hunks.length > 0) out.push({ kind: 'edit', path: to, edit: { type: 'hunks', hunks, remove: false }, line, origin });
  if (newMode !== undefined) out.push({ kind: 'edit', path: to, edit: { type: 'mode', mode: newMode }, line, origin });
  if (out.length === 0) throw new PatchtxError('parse_error', `the diff of ${to} has no hunk`, { format: 'unified', line });
  return out;
}
