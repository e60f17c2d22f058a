// The options of the Responses API / Agents SDK surface: where the transaction goes (begin()'s
// options), what its commits say (commit()'s), and how calls are grouped into commits. Checked
// as the rest of the library checks its options: an unknown one or a wrong type is `usage`.
import type { BeginOptions, CommitOptions } from '../api/begin.js';
import { optionalBoolean, optionalChoice, optionalString, optionalStringArray, readLimits, readOptionsObject } from '../api/args.js';

export interface SurfaceOptions extends Omit<BeginOptions, 'dialect'>, Omit<CommitOptions, 'expectHead'> {
  /**
   * Whose final-newline rules the diffs follow: `agents-sdk` (the default: the Agents SDK's
   * applyDiff, which harnesses of the Responses API were built against) or `codex`.
   */
  dialect?: 'agents-sdk' | 'codex';
}

export interface ReadSurface<G extends string> {
  begin: BeginOptions;
  commit: Omit<CommitOptions, 'expectHead'>;
  grouping: G | undefined;
}

export function readSurfaceOptions<G extends string>(fn: string, options: unknown, groupingKey: string, groupings: readonly G[]): ReadSurface<G> {
  const keys = ['ref', 'base', 'dirty', 'strict', 'limits', 'dialect', 'message', 'author', 'committer', 'trailers', groupingKey];
  const o = readOptionsObject(fn, options, keys);
  return {
    begin: {
      ref: optionalString(fn, 'ref', o.ref),
      base: optionalString(fn, 'base', o.base),
      dirty: optionalChoice(fn, 'dirty', o.dirty, ['refuse', 'include'] as const),
      strict: optionalBoolean(fn, 'strict', o.strict),
      limits: readLimits(fn, o.limits),
      dialect: optionalChoice(fn, 'dialect', o.dialect, ['agents-sdk', 'codex'] as const) ?? 'agents-sdk',
    },
    commit: {
      message: optionalString(fn, 'message', o.message),
      author: optionalString(fn, 'author', o.author),
      committer: optionalString(fn, 'committer', o.committer),
      trailers: optionalStringArray(fn, 'trailers', o.trailers),
    },
    grouping: optionalChoice(fn, groupingKey, o[groupingKey], groupings),
  };
}

/** The commit's trailers: the caller's, then a Call-Id for each call it holds (as replay writes them). */
export function trailersFor(commit: ReadSurface<string>['commit'], callIds: readonly (string | null)[]): string[] {
  return [...(commit.trailers ?? []), ...callIds.filter((id): id is string => id !== null && id !== '').map((id) => `Call-Id=${id}`)];
}
