// The date formats git accepts in GIT_AUTHOR_DATE / GIT_COMMITTER_DATE, reduced to what scripts and
// CI actually use:
//   git's own            `@1700000000 +0100`, `1700000000 +0100`, `@1700000000` (UTC)
//   ISO 8601             `2026-01-02T03:04:05Z`, `2026-01-02 03:04:05 +01:00`, `…05.123+0100`, no zone = local time
//   (git writes an explicit `-0000` as `+0000`; so do we)
//   RFC 2822             `Fri, 02 Jan 2026 03:04:05 +0100` (weekday optional)
// Offsets use the isomorphic-git convention of model/identity.ts (minutes, positive west of UTC).
import { parseTimezone } from '../objects/model/identity.js';

export interface GitDate {
  timestamp: number;
  timezoneOffset: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `Z`, `+hh`, `+hhmm`, `+hh:mm` → minutes (positive west); null when malformed. */
function parseZone(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0;
  const m = /^([+-])(\d\d):?(\d\d)?$/.exec(zone);
  if (!m) return null;
  // git writes an explicit -0000 in a date as +0000
  const offset = parseTimezone(`${m[1]}${m[2]}${m[3] ?? '00'}`);
  return offset === null ? null : offset || 0;
}

/** Seconds for a wall-clock time at `offset` (null: the local zone at that moment). */
function toGitDate(y: number, mo: number, d: number, h: number, mi: number, s: number, offset: number | null): GitDate | null {
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  if (offset === null) {
    const local = new Date(y, mo, d, h, mi, s);
    return { timestamp: Math.floor(local.getTime() / 1000), timezoneOffset: local.getTimezoneOffset() || 0 };
  }
  // wall clock = UTC - offset (offset is positive west), so UTC = wall clock + offset
  const utc = Date.UTC(y, mo, d, h, mi, s) / 1000 + offset * 60;
  return { timestamp: utc, timezoneOffset: offset };
}

/** Parses a date in one of the formats above; null when it is none of them. */
export function parseGitDate(text: string): GitDate | null {
  const t = text.trim();

  // a bare number is a timestamp only when it is large enough not to be a year or a day (as in git)
  const raw = /^(@)?(\d+)(?:\s+([+-]\d{4}))?$/.exec(t);
  if (raw && (raw[1] || raw[3] || raw[2]!.length >= 9)) {
    const timestamp = Number(raw[2]);
    // no zone: the local zone at that moment, as git does
    const offset = raw[3] ? parseTimezone(raw[3]) : new Date(timestamp * 1000).getTimezoneOffset();
    return offset === null ? null : { timestamp, timezoneOffset: offset || 0 };
  }

  // git wants a time of day with an ISO date
  const iso = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,]\d+)?)?\s*(Z|z|[+-]\d\d(?::?\d\d)?)?$/.exec(t);
  if (iso) {
    const offset = iso[7] === undefined ? null : parseZone(iso[7]);
    if (iso[7] !== undefined && offset === null) return null;
    return toGitDate(+iso[1]!, +iso[2]! - 1, +iso[3]!, +iso[4]!, +iso[5]!, +(iso[6] ?? 0), offset);
  }

  const rfc = /^(?:[A-Za-z]{3},?\s+)?(\d{1,2})\s+([A-Za-z]{3})[a-z]*\s+(\d{4})\s+(\d\d):(\d\d)(?::(\d\d))?\s*([+-]\d{4}|Z|UT|GMT)?$/.exec(t);
  if (rfc) {
    const month = MONTHS.indexOf(rfc[2]!.toLowerCase());
    if (month < 0) return null;
    const zone = rfc[7];
    const offset = zone === undefined ? null : /^[+-]/.test(zone) ? parseZone(zone) : 0;
    if (zone !== undefined && offset === null) return null;
    return toGitDate(+rfc[3]!, month, +rfc[1]!, +rfc[4]!, +rfc[5]!, +(rfc[6] ?? 0), offset);
  }
  return null;
}
