// A parsed patch applied in memory: hunks run in patch order over an overlay of the base files,
// and the outcome is a plan (final bytes of every touched path, net changes, the reference's
// summary lines, warnings). Nothing is written anywhere; the caller commits the plan, or not.
//
// Where the reference's behaviour is kept: Add and Move overwrite an existing file (unless
// strict), Delete/Update of a missing path or a directory fail, a file touched by several hunks
// sees the earlier hunks' results. Where patchtx differs on purpose: a failure anywhere means no
// plan at all (atomic), a move onto itself is a plain update (the reference loses the file), and
// a pure rename or a delete never decodes the file, so binary files survive them byte for byte.
// Hunks made from edit operations, Aider blocks and unified diffs (src/edits) run in the same
// loop; their errors name the operation, block or file they came from.
import type { Hunk, Patch } from '../patch/types.js';
import { PatchtxError } from '../errors.js';
import { type MatchBudget, matchBudget } from '../match/budget.js';
import { DEFAULT_LIMITS } from '../patch/limits.js';
import { type ContentLookup, FileContent } from './content.js';
import { netChanges } from './changes.js';
import { PatchedTree } from './patched-tree.js';
import { applyChunks, withoutFinalNewline } from './update.js';
import { applyContentEdit } from '../edits/apply-edit.js';
import { notTextError } from '../text/decode.js';
import type { FileLookup, Plan, PlanOptions, PlanWarning } from './types.js';

type AddHunk = Extract<Hunk, { kind: 'add' }>;
type DeleteHunk = Extract<Hunk, { kind: 'delete' }>;
type UpdateHunk = Extract<Hunk, { kind: 'update' }>;
type EditHunk = Extract<Hunk, { kind: 'edit' }>;
type FileMode = '100644' | '100755';

export function planPatch(patch: Patch, lookup: FileLookup, options: PlanOptions = {}): Plan {
  const contents: ContentLookup = {
    read: (path) => {
      const bytes = lookup.read(path);
      return bytes === undefined ? undefined : FileContent.ofBytes(bytes);
    },
    isDirectory: (path) => lookup.isDirectory(path),
  };
  const plan = planContents(patch, contents, options);
  const files = new Map<string, Uint8Array | null>();
  for (const [path, content] of plan.files) files.set(path, content === null ? null : content.bytes());
  return { ...plan, files };
}

/** A Plan whose files are contents (each in the form it was made in, bytes or text). */
export interface ContentPlan extends Omit<Plan, 'files'> {
  files: Map<string, FileContent | null>;
}

/** planPatch over contents: the library face uses it to keep strings as strings. */
export function planContents(patch: Patch, lookup: ContentLookup, options: PlanOptions = {}): ContentPlan {
  if (patch.hunks.length === 0) {
    // The parser already refuses this; kept for callers that build a Patch themselves.
    throw new PatchtxError('no_changes', 'No files were modified.');
  }
  const tree = new PatchedTree(lookup);
  // one budget for every file of the patch
  const budget = matchBudget(options.matchWork ?? DEFAULT_LIMITS.matchWork);
  const summary: string[] = [];
  const warnings: PlanWarning[] = [];
  const modes = new Map<string, FileMode>();
  const stored = new Map<string, string>();
  let previous: Hunk | undefined;
  for (const hunk of patch.hunks) {
    const lines = summary.length;
    try {
      applyHunk(tree, hunk, options, warnings, budget, modes, summary, stored);
    } catch (e) {
      throw hunk.origin === undefined ? e : namingOrigin(e, hunk);
    }
    // a file of a unified diff may be several hunks (a rename and its changes): one line for it
    if (hunk.origin !== undefined && hunk.origin === previous?.origin && summary.length === lines + 1) oneLinePerFile(summary);
    previous = hunk;
  }
  const plan: ContentPlan = { files: tree.touched(), changes: netChanges(tree), summary, warnings };
  if (modes.size > 0) plan.modes = modes;
  if (stored.size > 0) plan.stored = stored;
  return plan;
}

/** The last two summary lines are one file's: a deletion says so, else the first line stands. */
function oneLinePerFile(summary: string[]): void {
  const last = summary.pop()!;
  if (last.startsWith('D ')) summary[summary.length - 1] = last;
}

function applyHunk(
  tree: PatchedTree,
  hunk: Hunk,
  options: PlanOptions,
  warnings: PlanWarning[],
  budget: MatchBudget,
  modes: Map<string, FileMode>,
  summary: string[],
  stored: Map<string, string>,
): void {
  switch (hunk.kind) {
    case 'add':
      addFile(tree, hunk, options, warnings);
      noteStored(stored, hunk.path, hunk.stored ? tree.read(hunk.path)!.text() : undefined);
      modes.delete(hunk.path);
      summary.push(`A ${hunk.path}`);
      break;
    case 'delete':
      deleteFile(tree, hunk);
      stored.delete(hunk.path);
      modes.delete(hunk.path);
      summary.push(`D ${hunk.path}`);
      break;
    case 'update':
      updateFile(tree, hunk, options, warnings, budget);
      stored.delete(hunk.path);
      if (hunk.moveTo !== null) stored.delete(hunk.moveTo);
      if (hunk.moveTo !== null && hunk.moveTo !== hunk.path) {
        const mode = modes.get(hunk.path);
        modes.delete(hunk.path);
        if (mode === undefined) modes.delete(hunk.moveTo);
        else modes.set(hunk.moveTo, mode);
      }
      summary.push(`M ${hunk.moveTo ?? hunk.path}`);
      break;
    case 'edit':
      editFile(tree, hunk, modes, options, stored);
      summary.push(`M ${hunk.path}`);
      break;
  }
}

/** The error of a hunk made from an operation (or block, or diff entry), naming it by index. */
export function namingOrigin(e: unknown, hunk: Hunk): unknown {
  if (!(e instanceof PatchtxError) || hunk.origin === undefined || e.data.operation !== undefined) return e;
  const { index, name } = hunk.origin;
  const data = { ...e.data, operation: index };
  // operations given as values have no patch line
  if (hunk.line === 0 && data.line === 0) delete data.line;
  const where = name === 'diff' ? `file ${index + 1} of the diff` : name === 'search/replace' ? `block ${index + 1}` : `operations[${index}] (${name})`;
  const out = new PatchtxError(e.kind, `${where}: ${e.message}`, data);
  out.stack = e.stack;
  return out;
}

/** A content edit of an existing file (an Aider block with an empty SEARCH may create one). */
function editFile(tree: PatchedTree, hunk: EditHunk, modes: Map<string, FileMode>, options: PlanOptions, stored: Map<string, string>): void {
  const { path, line, edit } = hunk;
  const before = tree.read(path);
  if (before === undefined && edit.type === 'append' && !tree.isDirectory(path)) {
    checkWritable(tree, path, { path, line }, 'create');
    tree.create(path, FileContent.ofText(edit.text));
    stored.delete(path);
    return;
  }
  if (before === undefined) {
    if (tree.isDirectory(path)) throw new PatchtxError('is_directory', `Failed to read file to edit ${path}: Is a directory`, { path, line });
    throw new PatchtxError('file_not_found', `Failed to read file to edit ${path}: No such file or directory`, { path, line });
  }
  if (edit.type === 'mode') {
    modes.set(path, edit.mode);
    tree.replace(path, before);
    return;
  }
  const text = before.text();
  if (text === undefined) throw notTextError(path, before.whyNotText());
  const edited = applyContentEdit(text, edit, path, options.lineForms?.(path));
  tree.replace(path, FileContent.ofText(edited.text));
  noteStored(stored, path, edited.stored);
}

/** Records the form git stores for a path's new content (Plan.stored), or forgets it (undefined). */
function noteStored(stored: Map<string, string>, path: string, form: string | undefined): void {
  if (form === undefined) stored.delete(path);
  else stored.set(path, form);
}

function addFile(tree: PatchedTree, hunk: AddHunk, options: PlanOptions, warnings: PlanWarning[]): void {
  const { path, line } = hunk;
  checkWritable(tree, path, { path, line }, 'Add File');
  if (tree.exists(path) && hunk.exclusive) {
    throw new PatchtxError('already_exists', `${path} already exists (it is created only where there is no file)`, { path, line });
  }
  if (tree.exists(path)) {
    if (options.strict) {
      throw new PatchtxError(
        'already_exists',
        `Add File ${path}: the file already exists (strict mode does not overwrite files; use Update File, or Delete File first)`,
        { path, line },
      );
    }
    warnings.push({ kind: 'overwrite', message: `Add File ${path} overwrites the existing file`, path, line });
  }
  tree.create(path, FileContent.ofText(options.dialect === 'agents-sdk' ? withoutFinalNewline(hunk.contents) : hunk.contents));
}

function deleteFile(tree: PatchedTree, hunk: DeleteHunk): void {
  const { path, line } = hunk;
  if (!tree.exists(path)) {
    if (tree.isDirectory(path)) {
      throw new PatchtxError('is_directory', `Failed to delete file ${path}: it is a directory`, { path, line });
    }
    throw new PatchtxError('file_not_found', `Failed to delete file ${path}: No such file or directory`, {
      path,
      line,
    });
  }
  tree.remove(path);
}

function updateFile(tree: PatchedTree, hunk: UpdateHunk, options: PlanOptions, warnings: PlanWarning[], budget: MatchBudget): void {
  const { path, line } = hunk;
  const before = tree.read(path);
  if (before === undefined) {
    if (tree.isDirectory(path)) {
      throw new PatchtxError('is_directory', `Failed to read file to update ${path}: Is a directory`, { path, line });
    }
    throw new PatchtxError('file_not_found', `Failed to read file to update ${path}: No such file or directory`, {
      path,
      line,
    });
  }

  let after = before; // no chunks (a pure rename): the bytes move as they are, never decoded
  if (hunk.chunks.length > 0) {
    try {
      const updated = applyChunks(before, hunk.chunks, path, options, budget);
      after = updated.content;
      warnings.push(...updated.warnings);
    } catch (e) {
      if (e instanceof PatchtxError && e.data.line === undefined) e.data.line = line;
      throw e;
    }
  }

  const dest = hunk.moveTo;
  if (dest === null || dest === path) {
    // A move onto itself is an update: the reference writes the file and then deletes it.
    tree.replace(path, after);
    return;
  }
  checkWritable(tree, dest, { path: dest, from: path, line }, 'Move to');
  if (tree.exists(dest) && hunk.exclusive) {
    throw new PatchtxError('already_exists', `cannot move ${path} to ${dest}: ${dest} already exists`, { path: dest, from: path, line });
  }
  if (tree.exists(dest)) {
    if (options.strict) {
      throw new PatchtxError('already_exists', `Move to ${dest}: the destination already exists (strict mode does not overwrite files)`, {
        path: dest,
        from: path,
        line,
      });
    }
    warnings.push({
      kind: 'overwrite',
      message: `Move of ${path} to ${dest} overwrites the existing file ${dest}`,
      path: dest,
      line,
    });
  }
  tree.move(path, dest, after);
}

/** A file can be written at `path`: it is not a directory and no ancestor is a file. */
function checkWritable(tree: PatchedTree, path: string, data: Record<string, unknown> & { path: string }, what: string): void {
  if (tree.isDirectory(path)) {
    throw new PatchtxError('is_directory', `Failed to write file ${path} (${what}): it is a directory`, data);
  }
  const ancestor = tree.fileAncestor(path);
  if (ancestor !== undefined) {
    throw new PatchtxError('already_exists', `Failed to write file ${path} (${what}): ${ancestor} is a file, not a directory`, {
      ...data,
      conflictsWith: ancestor,
    });
  }
}
