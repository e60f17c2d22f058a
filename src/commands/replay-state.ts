// What a stopped replay leaves for the next run: the entry it stopped at, and the entries a user
// chose to drop (`skip`), in <gitdir>/patchtx/replay.json. Entries are named by the key their
// commit's Call-Id trailer carries, so the state means the same whichever log file names them.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import type { Repository } from '../git/repo/repository.js';

export interface ReplayState {
  /** the entry the last replay stopped at, or null when it finished (`keys`: the entries of the
   * commit it stopped at, which `skip` drops together) */
  stopped: { key: string; entry: number; log: string; keys?: string[] } | null;
  /** keys of entries dropped after they failed: later replays pass over them */
  skipped: string[];
}

export const replayStateFile = (repo: Repository): string => path.join(repo.gitdir, 'patchtx', 'replay.json');

export function readReplayState(repo: Repository): ReplayState {
  let text: string;
  try {
    text = readFileSync(replayStateFile(repo), 'utf8');
  } catch {
    return { stopped: null, skipped: [] };
  }
  try {
    const v = JSON.parse(text) as Partial<ReplayState>;
    const strings = (list: unknown): string[] | undefined => (Array.isArray(list) ? list.filter((s) => typeof s === 'string') : undefined);
    const stopped = v.stopped ? { ...v.stopped, keys: strings(v.stopped.keys) } : null;
    return { stopped, skipped: strings(v.skipped) ?? [] };
  } catch {
    throw new PatchtxError('corrupt_repository', `the replay state ${replayStateFile(repo)} is not JSON: delete it to start over`, {});
  }
}

/** Written whole and renamed into place: a killed run leaves the old state or the new. */
export function writeReplayState(repo: Repository, state: ReplayState): void {
  const file = replayStateFile(repo);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(state) + '\n');
  renameSync(`${file}.tmp`, file);
}
