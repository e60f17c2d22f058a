// How a replay's entries become commits (`--commit`): one per call, one per turn (Codex: the
// turn's id; Responses items: the response the calls came in), or one for the whole replay.
// Without a choice, a Responses item list is replayed a response at a time (the calls of one
// response are one answer of the model) and every other log a call at a time. A commit of several
// calls names them all in trailers: where they came from, their turns and their call ids, so each
// of them is found on the branch by a later run.
import { PatchtxError } from '../errors.js';
import type { LogEntry } from '../logs/types.js';

export type Grouping = 'per-call' | 'per-turn' | 'single';
export const GROUPINGS: readonly Grouping[] = ['per-call', 'per-turn', 'single'];

export const TURN_ID_TRAILER = 'Turn-Id';

interface Groupable {
  log: { name: string };
  entry: LogEntry;
  source: string;
  key: string;
}

const defaultGrouping = (entry: LogEntry): Grouping => (entry.format === 'responses-items' ? 'per-turn' : 'per-call');

/** The entries in commit-sized groups, in order. */
export function groupEntries<T extends Groupable>(planned: readonly T[], grouping: Grouping | undefined): T[][] {
  if (grouping !== undefined && grouping !== 'per-call') {
    const exported = planned.find((p) => p.entry.format === 'patchtx-export');
    if (exported)
      throw new PatchtxError('usage', `${exported.log.name} is a patchtx export: it is replayed a transaction at a time, not ${grouping}`, {
        option: 'grouping',
        value: grouping,
      });
  }
  if (grouping === 'single') return planned.length === 0 ? [] : [[...planned]];
  const groups: T[][] = [];
  let last: T | null = null;
  for (const p of planned) {
    const mode = grouping ?? defaultGrouping(p.entry);
    const sameTurn = mode === 'per-turn' && last !== null && last.log === p.log && p.entry.turn !== null && last.entry.turn === p.entry.turn;
    if (sameTurn) groups[groups.length - 1]!.push(p);
    else groups.push([p]);
    last = p;
  }
  return groups;
}

/** `KEY=VALUE` trailers naming a commit's calls: their sources, turns and call ids. */
export function groupTrailers(group: readonly Groupable[], replayedFrom: string, callId: string): string[] {
  const distinct = (values: (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null))];
  return [
    ...distinct(group.map((p) => p.source)).map((s) => `${replayedFrom}=${s}`),
    ...distinct(group.map((p) => p.entry.turn)).map((t) => `${TURN_ID_TRAILER}=${t}`),
    ...group.map((p) => `${callId}=${p.key}`),
  ];
}
