// The transaction layer's errors name what is wrong and what would help in the caller's terms
// (`data.option`: the option whose value is wrong; `data.remedy`: the setting that would get past
// the error), not in any program's. Here `patchtx` names its flags for them: the option's flag in
// front of the message, the remedy's flag after it.
import { PatchtxError, type ErrorDataOf } from '../errors.js';

/** patchtx's flag for each option of the transaction layer that an error may name. */
const FLAGS: Readonly<Record<string, string>> = {
  message: '-m',
  ref: '--ref',
  base: '--base',
  expectHead: '--expect-head',
  trailers: '--trailer',
  author: '--author',
  committer: '--committer',
  repoDir: '--repo',
  dirty: '--dirty',
  revert: '--revert',
  keepMetadata: '--keep-metadata',
  grouping: '--commit',
  regenerate: '--regenerate',
  expected: '--expect',
};

/** Options that are switches: their flag alone sets them. */
const SWITCHES = new Set(['revert', 'regenerate']);

/** `--flag VALUE`; a choice among fixed words is spelled `--flag=WORD`, as the help shows it; a
 * switch (`revert`, `regenerate`, whose setting is 'true') is the flag alone. */
function flagSetting(option: string, value: string): string {
  if (SWITCHES.has(option)) return FLAGS[option]!;
  return option === 'dirty' ? `${FLAGS[option]}=${value}` : `${FLAGS[option]} ${value}`;
}

/** `e` with patchtx's flags named, when it names an option; the option names leave its data. */
export function withFlagHints(e: unknown): unknown {
  if (!(e instanceof PatchtxError)) return e;
  const { option, remedy, ...data } = e.data;
  if (option === undefined && remedy === undefined) return e;
  let message = e.message;
  if (option !== undefined && FLAGS[option] !== undefined) message = `${FLAGS[option]}: ${message}`;
  if (remedy !== undefined && FLAGS[remedy.option] !== undefined) message = `${message} (${flagSetting(remedy.option, remedy.value)})`;
  const hinted = new PatchtxError(e.kind, message, data as ErrorDataOf<typeof e.kind>);
  hinted.stack = e.stack;
  return hinted;
}
