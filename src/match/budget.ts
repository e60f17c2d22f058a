// The matching work one patch may cost, counted in line comparisons (and lines stepped over), so
// that a chunk search that would take too long ends in `limit_exceeded` instead of holding the
// caller (and, in a transaction, the repository's locks) for minutes. One budget is shared by all
// the files of a plan. The search strategies in seek.ts keep the work of each search in proportion
// to the file; the budget bounds how many such searches one patch may ask for.
import { limitExceeded } from '../patch/limits.js';

export interface MatchBudget {
  /** work done so far */
  used: number;
  readonly max: number;
}

export function matchBudget(max = Number.POSITIVE_INFINITY): MatchBudget {
  return { used: 0, max };
}

/** Counts `work`; throws `limit_exceeded` (limit `match-work`) once the budget is spent. */
export function spend(budget: MatchBudget, work: number): void {
  budget.used += work;
  if (budget.used > budget.max) {
    throw limitExceeded(
      'matchWork',
      `locating the chunks of the patch needs more than ${budget.max.toLocaleString('en-US')} line comparisons (a file of many repeated lines?)`,
      budget.max,
    );
  }
}
