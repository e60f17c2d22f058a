// Argument checks for the library functions: JavaScript callers get a clear `usage` error
// instead of a TypeError from somewhere deep inside.
import { PatchtxError, type ErrorDataOf } from '../errors.js';
import { DEFAULT_LIMITS, type Limits } from '../patch/limits.js';

/** A short description of a value's type for messages: `a number`, `null`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  const type = typeof value;
  return type === 'object' ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})` : `a ${type}`;
}

export function usageError(message: string, data: ErrorDataOf<'usage'> = {}): PatchtxError {
  return new PatchtxError('usage', message, data);
}

export function requirePatchText(fn: string, patchText: unknown): string {
  if (typeof patchText !== 'string') {
    throw usageError(`${fn}: the patch text must be a string, got ${describeValue(patchText)}`);
  }
  return patchText;
}

/** An options argument: an object, or nothing (`{}`); its keys must be among `known`. */
export function readOptionsObject(fn: string, options: unknown, known: readonly string[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options) || options instanceof Uint8Array) {
    throw usageError(`${fn}: options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw usageError(`${fn}: options.${key} is not an option (${known.join(', ')})`, { key, option: key });
  }
  return options as Record<string, unknown>;
}

export function optionalString(fn: string, key: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw usageError(`${fn}: options.${key} must be a string, got ${describeValue(value)}`, { option: key });
  return value;
}

export function optionalBoolean(fn: string, key: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw usageError(`${fn}: options.${key} must be a boolean, got ${describeValue(value)}`, { option: key });
  return value;
}

export function optionalChoice<T extends string>(fn: string, key: string, value: unknown, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    const got = typeof value === 'string' ? `'${value}'` : describeValue(value);
    throw usageError(`${fn}: options.${key} must be ${choices.map((c) => `'${c}'`).join(' or ')}, got ${got}`, { option: key });
  }
  return value as T;
}

export function optionalStringArray(fn: string, key: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw usageError(`${fn}: options.${key} must be an array of strings, got ${describeValue(value)}`, { option: key });
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') throw usageError(`${fn}: options.${key}[${i}] must be a string, got ${describeValue(item)}`, { option: key });
  }
  return [...(value as string[])];
}

/** A whole number of at least `min`. */
export function optionalWholeNumber(fn: string, key: string, value: unknown, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw usageError(`${fn}: options.${key} must be a whole number of at least ${min}, got ${typeof value === 'number' ? value : describeValue(value)}`, {
      option: key,
    });
  }
  return value;
}

/** Seconds to wait for another transaction's lock: a finite number, 0 or more. */
export function optionalSeconds(fn: string, key: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw usageError(`${fn}: options.${key} must be a number of seconds (0 or more), got ${typeof value === 'number' ? value : describeValue(value)}`, {
      option: key,
    });
  }
  return value;
}

/** `limits`: bounds on the patch and on matching work, each a positive whole number. */
export function readLimits(fn: string, limits: unknown): Partial<Limits> {
  if (limits === undefined) return {};
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) {
    throw usageError(`${fn}: options.limits must be an object, got ${describeValue(limits)}`, { option: 'limits' });
  }
  const out: Partial<Limits> = {};
  for (const [key, value] of Object.entries(limits)) {
    if (!(key in DEFAULT_LIMITS)) {
      throw usageError(`${fn}: options.limits.${key} is not a limit (${Object.keys(DEFAULT_LIMITS).join(', ')})`, { option: 'limits', key });
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw usageError(`${fn}: options.limits.${key} must be a positive whole number, got ${describeValue(value)}`, { option: 'limits', key });
    }
    out[key as keyof Limits] = value;
  }
  return out;
}
