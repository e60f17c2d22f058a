// Library face of the engine: a patch applied to files held in memory, no disk and no git. The
// patch is V4A, a unified diff or Aider SEARCH/REPLACE blocks (told apart by content; file modes
// are not files' content, so a diff's mode change shows in no result here).
// `applyPatch(text, { 'src/a.ts': '...' })` returns the touched files' new contents, the net
// changes, the reference's summary lines, warnings and a unified diff per changed file, or
// throws a PatchtxError (nothing is half-applied: the input is never modified).
import { type ContentLookup, FileContent } from '../engine/content.js';
import { planContents } from '../engine/plan.js';
import { unifiedDiff } from '../engine/diff.js';
import type { FileChange, PlanWarning } from '../engine/types.js';
import type { Limits } from '../patch/limits.js';
import { parseStep } from '../edits/step.js';
import { rootedPatch } from '../commands/rooted.js';
import { describeValue, readLimits, readOptionsObject, requirePatchText, usageError } from './args.js';

/** One file's content as the caller gives it: text, or bytes. */
export type FileInput = string | Uint8Array;

/** Files by repository-relative path (`/`-separated); strings are taken as UTF-8 text. */
export type FileMap = Record<string, FileInput> | Map<string, FileInput>;

export interface ApplyPatchOptions {
  /** refuse ambiguous matches and overwrites instead of warning (see PlanOptions) */
  strict?: boolean;
  /** bounds on the patch and on matching work, each a positive whole number (defaults: DEFAULT_LIMITS) */
  limits?: Partial<Limits>;
}

export interface ApplyPatchResult {
  /**
   * Every path the patch touched: text as a string, content that is not UTF-8 text (a binary
   * file renamed as it is) as a Uint8Array, null when the path no longer exists.
   */
  files: Record<string, string | Uint8Array | null>;
  changes: FileChange[];
  summary: string[];
  warnings: PlanWarning[];
  /**
   * a unified diff per changed path (the key is the path after the patch, as in `changes`);
   * each is computed on first read
   */
  diffs: Record<string, string>;
}

export function applyPatch(patchText: string, files: FileMap, options: ApplyPatchOptions = {}): ApplyPatchResult {
  requirePatchText('applyPatch', patchText);
  const base = readFileMap(files);
  const { strict, limits } = readOptions(options);

  // `cd DIR && apply_patch <<'EOF'`: the paths are relative to DIR, which must lie among the
  // given paths (relative, no `..` out of them; an absolute one names no place in a file map).
  // a unified diff or Aider blocks are told from V4A by their content, as a transaction tells them
  const { patch, cwd } = parseStep(patchText, { limits });
  const rooted = rootedPatch(patch, cwd);
  // Strings stay strings all the way through (no encoding and decoding of whole files).
  const plan = planContents(rooted, lookupOf(base), { strict, matchWork: limits.matchWork });

  const out: Record<string, string | Uint8Array | null> = {};
  for (const [path, content] of plan.files) {
    out[path] = content === null ? null : (content.text() ?? content.bytes());
  }
  const diffs: Record<string, string> = {};
  for (const change of plan.changes) {
    const from = change.from ?? change.path;
    const before = change.op === 'A' ? undefined : base.get(from);
    const after = change.op === 'D' ? undefined : plan.files.get(change.path);
    // Computed when read: a diff of a large file costs far more than applying the patch did,
    // and many callers never look at it.
    let diff: string | undefined;
    Object.defineProperty(diffs, change.path, {
      enumerable: true,
      configurable: true,
      get: () => (diff ??= unifiedDiff(change.path, before?.bytes() ?? null, after?.bytes() ?? null, from)),
    });
  }
  return { files: out, changes: plan.changes, summary: plan.summary, warnings: plan.warnings, diffs };
}

function readFileMap(files: unknown): Map<string, FileContent> {
  const entries: [unknown, unknown][] =
    files instanceof Map
      ? [...files.entries()]
      : files !== null && typeof files === 'object' && !Array.isArray(files) && !(files instanceof Uint8Array)
        ? Object.entries(files)
        : badFiles(files);
  const base = new Map<string, FileContent>();
  for (const [path, content] of entries) {
    if (typeof path !== 'string' || path === '') {
      throw usageError(`applyPatch: file paths must be non-empty strings, got ${describeValue(path)}`);
    }
    if (typeof content === 'string') base.set(path, FileContent.ofText(content));
    else if (content instanceof Uint8Array) base.set(path, FileContent.ofBytes(content));
    else {
      throw usageError(`applyPatch: the content of '${path}' must be a string or a Uint8Array, got ${describeValue(content)}`);
    }
  }
  return base;
}

function badFiles(files: unknown): never {
  throw usageError(`applyPatch: files must be an object or a Map from path to content (string or Uint8Array), got ${describeValue(files)}`);
}

function readOptions(options: unknown): { strict: boolean; limits: Partial<Limits> } {
  if (options === undefined) return { strict: false, limits: {} };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw usageError(`applyPatch: options must be an object, got ${describeValue(options)}`);
  }
  // a misspelt option would otherwise be ignored without a word (say, strict mode left off)
  readOptionsObject('applyPatch', options, ['strict', 'limits']);
  const strict = (options as { strict?: unknown }).strict;
  if (strict !== undefined && typeof strict !== 'boolean') {
    throw usageError(`applyPatch: options.strict must be a boolean, got ${describeValue(strict)}`);
  }
  return { strict: strict === true, limits: readLimits('applyPatch', (options as { limits?: unknown }).limits) };
}

/** The given files as a lookup; every proper prefix of a path is a directory. */
function lookupOf(files: ReadonlyMap<string, FileContent>): ContentLookup {
  const directories = new Set<string>();
  for (const path of files.keys()) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      directories.add(path.slice(0, slash));
    }
  }
  return {
    read: (path) => files.get(path),
    isDirectory: (path) => directories.has(path),
  };
}
