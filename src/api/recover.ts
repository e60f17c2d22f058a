// Library face of `patchtx recover`: finish or drop what an interrupted run left (every other call
// does it first too); the result is the object `patchtx recover --json` prints.
import { recoverCommand } from '../commands/recover.js';
import { recoverJson, type RecoverJson } from '../commands/results.js';
import { sessionAt, settled, type Place } from './place.js';

export async function recover(place: Place): Promise<RecoverJson> {
  return settled(async () => recoverJson(await recoverCommand(sessionAt(place))));
}
