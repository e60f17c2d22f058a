// Bounds on what one patch may ask for: its size, the length of a line, the number of file
// operations, and the matching work its chunks may cost. Every input is held to them, so that
// endless or absurd input (`yes | patchtx apply`, a device file, a chunk that would take hours
// to look for) ends in a clean `limit_exceeded` instead of exhausting memory or time. The
// defaults are far above what any real patch needs; a caller may raise them.
import { Buffer } from 'node:buffer';
import { PatchtxError } from '../errors.js';

export interface Limits {
  /** bytes of patch text (UTF-8) */
  patchBytes: number;
  /** bytes of one line of the patch, line ending excluded */
  lineBytes: number;
  /** Add, Delete and Update hunks */
  operations: number;
  /** line comparisons spent locating the chunks of one patch (see src/match/work.ts) */
  matchWork: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<Limits> = {
  patchBytes: 64 * MiB,
  lineBytes: MiB,
  operations: 10_000,
  matchWork: 200_000_000,
};

/** Each limit's name where people write it (option values, environment, error data). */
export const LIMIT_NAMES: Readonly<Record<keyof Limits, string>> = {
  patchBytes: 'patch-bytes',
  lineBytes: 'line-bytes',
  operations: 'operations',
  matchWork: 'match-work',
};

export function limitsWith(overrides: Partial<Limits> | undefined): Limits {
  return overrides === undefined ? { ...DEFAULT_LIMITS } : { ...DEFAULT_LIMITS, ...overrides };
}

/**
 * `limit_exceeded` for `key`: `what` says what went over (a sentence fragment, e.g. `the patch is
 * larger than 64 MiB`). data: `limit` (its name), `max`, and `value` when it is known.
 */
export function limitExceeded(key: keyof Limits, what: string, max: number, extra: Record<string, unknown> = {}): PatchtxError {
  const limit = LIMIT_NAMES[key];
  return new PatchtxError('limit_exceeded', `${what} (limit ${limit}=${max})`, { limit, max, ...extra });
}

/** `64 MiB`, `1.5 KiB`, `100 bytes`: a byte count as a person reads it. */
export function describeBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 * MiB],
    ['MiB', MiB],
    ['KiB', 1024],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  }
  return `${n} byte${n === 1 ? '' : 's'}`;
}

/** UTF-8 length of `s`, computed only when it could exceed `max` (3 bytes per UTF-16 unit at most). */
function overBytes(s: string, max: number): number | undefined {
  if (s.length * 3 <= max) return undefined;
  const size = Buffer.byteLength(s, 'utf8');
  return size > max ? size : undefined;
}

/** The whole text within `patchBytes`. */
export function checkPatchSize(text: string, limits: Limits): void {
  const size = overBytes(text, limits.patchBytes);
  if (size !== undefined) {
    throw limitExceeded('patchBytes', `the patch is larger than ${describeBytes(limits.patchBytes)}: ${size} bytes`, limits.patchBytes, { value: size });
  }
}

/** Line `index` (0-based, of the text as given) within `lineBytes`. */
export function checkLineLength(line: string, index: number, limits: Limits): void {
  const size = overBytes(line, limits.lineBytes);
  if (size !== undefined) throw lineTooLong(index + 1, limits.lineBytes, size);
}

export function lineTooLong(line: number, max: number, size?: number): PatchtxError {
  const what = `line ${line} of the patch is longer than ${describeBytes(max)}${size === undefined ? '' : `: ${size} bytes`}`;
  return limitExceeded('lineBytes', what, max, size === undefined ? { line } : { line, value: size });
}

export function tooManyOperations(line: number, max: number): PatchtxError {
  return limitExceeded(
    'operations',
    `the patch has more than ${max.toLocaleString('en-US')} operations (files added, deleted or updated); the one on line ${line} is over`,
    max,
    { line },
  );
}

const SIZE = /^(\d+)([kmg]?)$/i;

/**
 * `patch-bytes=128M,line-bytes=4M,operations=20000,match-work=1G`: names as in LIMIT_NAMES, whole
 * numbers, with K, M or G for powers of 1024. `source` names where the text came from, for the
 * usage error.
 */
export function parseLimitSpec(spec: string, source: string): Partial<Limits> {
  const out: Partial<Limits> = {};
  for (const part of spec.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = eq === -1 ? item : item.slice(0, eq).trim();
    const key = (Object.keys(LIMIT_NAMES) as Array<keyof Limits>).find((k) => LIMIT_NAMES[k] === name);
    const size = eq === -1 ? null : SIZE.exec(item.slice(eq + 1).trim());
    const value = size === null ? 0 : Number(size[1]) * 1024 ** ' kmg'.indexOf((size[2] || ' ').toLowerCase());
    if (key === undefined || !Number.isSafeInteger(value) || value < 1) {
      throw new PatchtxError(
        'usage',
        `${source}: '${item}' is not a limit; write NAME=N with NAME one of ${Object.values(LIMIT_NAMES).join(', ')} and N a positive whole number (K, M, G: times 1024, 1024², 1024³)`,
      );
    }
    out[key] = value;
  }
  return out;
}
