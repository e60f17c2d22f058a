// Argument checks for the library functions: JavaScript callers get a clear `usage` error
// instead of a TypeError from somewhere deep inside.
import { PatchtxError } from '../errors.js';

/** A short description of a value's type for messages: `a number`, `null`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  const type = typeof value;
  return type === 'object' ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})` : `a ${type}`;
}

export function usageError(message: string): PatchtxError {
  return new PatchtxError('usage', message);
}

export function requirePatchText(fn: string, patchText: unknown): string {
  if (typeof patchText !== 'string') {
    throw usageError(`${fn}: the patch text must be a string, got ${describeValue(patchText)}`);
  }
  return patchText;
}
