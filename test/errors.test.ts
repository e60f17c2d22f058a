// The README's exit-code table is the one ERROR_KINDS in src/errors.ts generates: a kind added,
// renumbered or reworded there fails here until the README says the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, exitCodeFor, PatchtxError, type ErrorKind } from '../src/errors.js';

function exitCodeTable(): string {
  const rows = (Object.entries(ERROR_KINDS) as [ErrorKind, { exit: number; meaning: string }][])
    .sort(([, a], [, b]) => a.exit - b.exit)
    .map(([kind, { exit, meaning }]) => `| ${exit} | \`${kind}\` | ${meaning} |`);
  return ['| code | kind | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The table that follows the `### Exit codes` heading. */
function readmeTable(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n### Exit codes\n')[1];
  if (section === undefined) throw new Error('README.md has no "### Exit codes" section');
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe('error kinds', () => {
  it("the README's exit-code table is the one ERROR_KINDS generates", () => {
    const expected = exitCodeTable();
    expect(readmeTable(), `README.md's exit-code table should read:\n${expected}\n`).toBe(expected);
  });

  it('every kind has its exit code, and an error carries its kind and data', () => {
    expect(exitCodeFor('no_changes')).toBe(1);
    expect(exitCodeFor('parse_error')).toBe(3);
    expect(exitCodeFor('io_error')).toBe(74);
    expect(exitCodeFor('internal')).toBe(70);
    const e = new PatchtxError('dirty', 'touched paths are dirty', { paths: ['a.txt'] });
    expect(e.toJSON()).toEqual({ kind: 'dirty', message: 'touched paths are dirty', paths: ['a.txt'] });
    expect(e.code).toBe('dirty');
  });
});
