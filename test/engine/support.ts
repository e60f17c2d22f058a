// In-memory file trees for engine tests: build a FileLookup from a map, apply a plan to a map.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { planPatch } from '../../src/engine/plan.js';
import type { FileLookup, Plan, PlanOptions } from '../../src/engine/types.js';
import { parsePatch } from '../../src/patch/parse.js';
import { PatchtxError } from '../../src/errors.js';

export type Tree = Map<string, Uint8Array>;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function text(b: Uint8Array | null | undefined): string | null {
  return b === null || b === undefined ? null : decoder.decode(b);
}

/** A tree from path -> text (or bytes). */
export function treeOf(files: Record<string, string | Uint8Array>): Tree {
  const tree: Tree = new Map();
  for (const [p, c] of Object.entries(files)) tree.set(p, typeof c === 'string' ? bytes(c) : c);
  return tree;
}

/** Directories are implied by files: every proper prefix of a file path is a directory. */
export function lookupOf(tree: Tree): FileLookup {
  const dirs = new Set<string>();
  for (const p of tree.keys()) {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
  }
  return { read: (p) => tree.get(p), isDirectory: (p) => dirs.has(p) };
}

/** The tree after the plan (a new map; the input is left alone). */
export function applyPlan(tree: Tree, plan: Plan): Tree {
  const out: Tree = new Map(tree);
  for (const [p, b] of plan.files) {
    if (b === null) out.delete(p);
    else out.set(p, b);
  }
  return out;
}

export function plan(patchText: string, files: Record<string, string | Uint8Array>, options?: PlanOptions): Plan {
  return planPatch(parsePatch(patchText), lookupOf(treeOf(files)), options);
}

/** Applies the patch and returns the resulting files as text. */
export function run(patchText: string, files: Record<string, string | Uint8Array>, options?: PlanOptions): Record<string, string> {
  const tree = treeOf(files);
  const result = applyPlan(tree, planPatch(parsePatch(patchText), lookupOf(tree), options));
  return Object.fromEntries([...result].map(([p, b]) => [p, text(b)!]));
}

/** Wraps hunk text into a patch envelope. */
export function patchOf(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
}

/** Every file below `dir` by `/`-separated relative path (empty when `dir` does not exist). */
export function readTree(dir: string): Tree {
  const tree: Tree = new Map();
  const walk = (abs: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(path.join(abs, e.name), childRel);
      else if (e.isFile()) tree.set(childRel, new Uint8Array(readFileSync(path.join(abs, e.name))));
    }
  };
  walk(dir, '');
  return tree;
}

/** The PatchtxError `fn` throws (anything else, or nothing, fails the test). */
export function failure(fn: () => unknown): PatchtxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PatchtxError) return e;
    throw e;
  }
  throw new Error('expected a PatchtxError');
}
