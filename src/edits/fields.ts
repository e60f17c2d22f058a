// Reading one edit operation's fields from JSON: every wrong or missing field is a `parse_error`
// naming the operation's index and the field, so a caller can fix its list without guessing.
import { PatchtxError } from '../errors.js';
import { pathProblem, plainPath, quotePath } from '../patch/paths.js';

/** An operation as given: an object, read field by field. */
export class OpFields {
  constructor(
    readonly index: number,
    readonly name: string,
    private readonly o: Record<string, unknown>,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(o)) {
      if (key !== 'op' && !allowed.includes(key)) {
        throw this.error(`unknown field '${key}' (${this.name} takes ${allowed.join(', ')})`, key);
      }
    }
  }

  error(message: string, field?: string): PatchtxError {
    return new PatchtxError('parse_error', `operations[${this.index}] (${this.name}): ${message}`, {
      operation: this.index,
      format: 'ops',
      ...(field === undefined ? {} : { field }),
    });
  }

  string(key: string): string {
    const v = this.o[key];
    if (typeof v !== 'string') throw this.error(`'${key}' must be a string, got ${describe(v)}`, key);
    return v;
  }

  /** A repository-relative path a patch could name; `./src//x` is taken as `src/x`, as in V4A. */
  path(key: string): string {
    const p = this.string(key);
    const plain = plainPath(p, true);
    const problem = p === '' ? 'it is empty' : pathProblem(plain);
    if (problem !== null) {
      throw new PatchtxError('path_rejected', `operations[${this.index}] (${this.name}): path ${quotePath(p)} is rejected: ${problem}`, {
        path: p,
        operation: this.index,
      });
    }
    return plain;
  }

  optionalBoolean(key: string): boolean {
    const v = this.o[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw this.error(`'${key}' must be a boolean, got ${describe(v)}`, key);
    return v;
  }

  wholeNumber(key: string): number {
    const v = this.o[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw this.error(`'${key}' must be a whole number (0 or more), got ${describe(v)}`, key);
    return v;
  }
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
