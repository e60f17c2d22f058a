// The plan is pure: the patch and what the touched paths hold in, new contents out. So it is made
// before the journal and index.lock are taken, and however long a patch takes to place (up to its
// match-work limit), git is not locked out meanwhile. Under the lock, the load of the touched paths
// and the plan are used as they are when nothing the load was read from has changed
// (tx/load-witness.ts); otherwise the paths are read again, as the dirty checks require, and the
// plan made ahead is used when every answer it was made from is still the same, else made again
// from what the lock protects.
import { sameBytes } from '../engine/content.js';
import { planPatch } from '../engine/plan.js';
import type { FileLookup, Plan, PlanOptions } from '../engine/types.js';
import type { Patch } from '../patch/types.js';

export interface PlannedAhead {
  /** the plan, or what planning threw (an error is as much a function of the inputs as a plan) */
  outcome: { plan: Plan } | { error: unknown };
  /** each path the planner read, with what it read first (undefined: no file) */
  reads: Map<string, Uint8Array | undefined>;
  /** each path the planner asked about, and whether it was a directory */
  directories: Map<string, boolean>;
}

/** planPatch over `lookup`, recording every question it asked and the answer. */
export function planAhead(patch: Patch, lookup: FileLookup, options: PlanOptions): PlannedAhead {
  const reads = new Map<string, Uint8Array | undefined>();
  const directories = new Map<string, boolean>();
  const recording: FileLookup = {
    read: (p) => {
      const bytes = lookup.read(p);
      if (!reads.has(p)) reads.set(p, bytes);
      return bytes;
    },
    isDirectory: (p) => {
      const is = lookup.isDirectory(p);
      if (!directories.has(p)) directories.set(p, is);
      return is;
    },
  };
  try {
    return { outcome: { plan: planPatch(patch, recording, options) }, reads, directories };
  } catch (error) {
    return { outcome: { error }, reads, directories };
  }
}

/**
 * The plan made ahead when `lookup` gives every answer it was made from (throwing what planning
 * threw then), or undefined when something it read has changed.
 */
export function planMadeAhead(ahead: PlannedAhead, lookup: FileLookup): Plan | undefined {
  for (const [p, before] of ahead.reads) {
    const now = lookup.read(p);
    if (before === undefined ? now !== undefined : now === undefined || !sameBytes(before, now)) return undefined;
  }
  for (const [p, was] of ahead.directories) if (lookup.isDirectory(p) !== was) return undefined;
  return planOutcome(ahead);
}

/** The plan made ahead (throwing what planning threw), for the very lookup it was made from. */
export function planOutcome(ahead: PlannedAhead): Plan {
  if ('error' in ahead.outcome) throw ahead.outcome.error;
  return ahead.outcome.plan;
}
