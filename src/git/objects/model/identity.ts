// A person and a moment, as git records them in commit headers and reflog lines:
// `Name <email> <unix seconds> <+hhmm|-hhmm>`.
//
// Time zones follow isomorphic-git's convention so that values can be handed to isomorphic-git
// unchanged: `timezoneOffset` is in minutes and has the sign of JavaScript's
// `Date.prototype.getTimezoneOffset()`, i.e. POSITIVE WEST of UTC. `+0200` is -120, `-0500` is 300,
// `+0000` is 0, and git's "unknown zone" spelling `-0000` is -0 (kept distinct so it round-trips).

export interface Identity {
  name: string;
  email: string;
  /** seconds since the Unix epoch */
  timestamp: number;
  /** minutes, positive west of UTC (see above) */
  timezoneOffset: number;
}

/** `+hhmm` / `-hhmm` for an offset in the convention above. */
export function formatTimezone(offset: number): string {
  const east = offset < 0 || (offset === 0 && !Object.is(offset, -0));
  const minutes = Math.abs(offset);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${east ? '+' : '-'}${hh}${mm}`;
}

/** Inverse of formatTimezone; null when `text` is not `[+-]hhmm`. */
export function parseTimezone(text: string): number | null {
  const m = /^([+-])(\d\d)(\d\d)$/.exec(text);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  // east of UTC is negative; `-0000` (zone unknown) becomes -0 so that it formats back as `-0000`
  return m[1] === '+' ? (minutes === 0 ? 0 : -minutes) : minutes === 0 ? -0 : minutes;
}

/** `Name <email> 1700000000 +0100` */
export function formatIdentity(id: Identity): string {
  return `${id.name} <${id.email}> ${id.timestamp} ${formatTimezone(id.timezoneOffset)}`;
}

/**
 * Parses `Name <email> <seconds> <zone>`. Old or hand-made commits sometimes break the shape
 * (missing date, odd zone); those still parse, with timestamp 0 / offset 0 for what is missing,
 * because patchtx only needs such commits' trees and parents.
 */
export function parseIdentity(text: string): Identity {
  const strict = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(text);
  if (strict) {
    return {
      name: strict[1]!,
      email: strict[2]!,
      timestamp: Number(strict[3]),
      timezoneOffset: parseTimezone(strict[4]!) ?? 0,
    };
  }
  const loose = /^(.*?) ?<([^>]*)>\s*(\d+)?\s*([+-]\d{4})?/.exec(text);
  if (loose) {
    return {
      name: loose[1]!,
      email: loose[2]!,
      timestamp: loose[3] ? Number(loose[3]) : 0,
      timezoneOffset: loose[4] ? (parseTimezone(loose[4]) ?? 0) : 0,
    };
  }
  return { name: text, email: '', timestamp: 0, timezoneOffset: 0 };
}
