// Who is recorded as author or committer, and when, with git's sources and precedence:
//   name:  --author override, GIT_<ROLE>_NAME, <role>.name, user.name
//   email: --author override, GIT_<ROLE>_EMAIL, <role>.email, user.email, $EMAIL
//   date:  GIT_<ROLE>_DATE (see git-date.ts), else now in the local zone
// Unlike git, patchtx never guesses a name from the passwd file or an email from the host name: an
// identity it cannot find is an error that says how to set one. An empty environment variable counts
// as unset. timezoneOffset follows isomorphic-git (minutes, positive west of UTC; model/identity.ts).
import { PatchtxError } from '../../errors.js';
import type { GitConfig } from './config.js';
import { parseGitDate } from './git-date.js';
import type { Identity } from '../objects/model/identity.js';

export type IdentityRole = 'author' | 'committer';

/** What git strips from the ends of a name or email (control characters, space and punctuation). */
const isCrud = (c: string): boolean => c <= ' ' || '.,:;<>"\\\''.includes(c);

/** git's clean-up of identity parts: crud trimmed from both ends, the delimiters `<`, `>`, newline dropped. */
export function cleanIdentityPart(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isCrud(text[start]!)) start++;
  while (end > start && isCrud(text[end - 1]!)) end--;
  return text.slice(start, end).replace(/[<>\n]/g, '');
}

/** Parses `Name <email>`, an identity the caller gives for `role`. */
export function parseIdentityOverride(text: string, role: IdentityRole): { name: string; email: string } {
  const m = /^\s*([^<>]*?)\s*<([^<>]*)>\s*$/.exec(text);
  const name = m ? cleanIdentityPart(m[1]!) : '';
  if (!m || name === '') {
    throw new PatchtxError('usage', `the ${role} must look like "Name <email>", got ${JSON.stringify(text)}`, { option: role, value: text });
  }
  return { name, email: cleanIdentityPart(m[2]!) };
}

const nonEmpty = (v: string | null | undefined): string | undefined => (v === null || v === undefined || v === '' ? undefined : v);

export function resolveIdentity(
  config: GitConfig,
  role: IdentityRole,
  env: NodeJS.ProcessEnv = process.env,
  override?: string,
  now: Date = new Date(),
): Identity {
  const ROLE = role.toUpperCase();
  let name: string | undefined;
  let email: string | undefined;
  if (override !== undefined) {
    ({ name, email } = parseIdentityOverride(override, role));
  } else {
    name = nonEmpty(env[`GIT_${ROLE}_NAME`]) ?? nonEmpty(config.getRaw(`${role}.name`)) ?? nonEmpty(config.getRaw('user.name'));
    email = nonEmpty(env[`GIT_${ROLE}_EMAIL`]) ?? nonEmpty(config.getRaw(`${role}.email`)) ?? nonEmpty(config.getRaw('user.email')) ?? nonEmpty(env.EMAIL);
    name = name === undefined ? undefined : nonEmpty(cleanIdentityPart(name));
    email = email === undefined ? undefined : nonEmpty(cleanIdentityPart(email));
  }
  if (name === undefined || email === undefined) {
    const missing = [name === undefined ? 'name' : null, email === undefined ? 'email' : null].filter((x) => x !== null);
    const who = role === 'author' ? 'Author' : 'Committer';
    throw new PatchtxError(
      'missing_identity',
      `${who} identity unknown (no ${missing.join(' or ')}). Run ` +
        `git config user.name "Your Name" and git config user.email "you@example.com" ` +
        `(add --global to set it for every repository), or set GIT_${ROLE}_NAME and GIT_${ROLE}_EMAIL`,
      { role, missing },
    );
  }

  const dateVar = `GIT_${ROLE}_DATE`;
  const dateText = nonEmpty(env[dateVar]);
  if (dateText !== undefined) {
    const date = parseGitDate(dateText);
    if (!date) {
      throw new PatchtxError('usage', `invalid date format in ${dateVar}: ${dateText}`, { variable: dateVar, value: dateText });
    }
    return { name, email, timestamp: date.timestamp, timezoneOffset: date.timezoneOffset };
  }
  return { name, email, timestamp: Math.floor(now.getTime() / 1000), timezoneOffset: now.getTimezoneOffset() || 0 };
}
