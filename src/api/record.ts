// Library face of `patchtx show --json`: the record of a transaction (what a line of `patchtx
// export` holds: commit, message, author, files, Patch-Id, the patch text), with `regenerate` as
// show() takes it; a regenerated record is marked `regenerated: true`. Read-only.
import { showRecord } from '../commands/show.js';
import type { ExportRecord } from '../logs/patchtx-export.js';
import { sessionAt, settled, type Place } from './place.js';
import { commitArgument, regenerateOption, type ShowOptions } from './show.js';

export async function record(place: Place, commit: string, options?: ShowOptions): Promise<ExportRecord> {
  const rev = commitArgument('record', commit);
  const regenerate = regenerateOption('record', options);
  return settled(() => showRecord({ ...sessionAt(place), commit: rev, regenerate }));
}
