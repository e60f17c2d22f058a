// docs/json.md's table of warning kinds is the one WARNING_KINDS in src/warnings.ts generates: a
// kind added, removed or reworded there fails here until the document says the same. That every
// warning emitted has one of these kinds is the type checker's part (PlanWarning's `kind`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WARNING_KINDS, type WarningKind } from '../src/warnings.js';

function warningTable(): string {
  const rows = (Object.entries(WARNING_KINDS) as [WarningKind, string][]).map(([kind, meaning]) => `| \`${kind}\` | ${meaning} |`);
  return ['| kind | meaning |', '| --- | --- |', ...rows].join('\n');
}

/** The table that follows the `## Warning kinds` heading. */
function documentedTable(): string {
  const doc = readFileSync(new URL('../docs/json.md', import.meta.url), 'utf8');
  const section = doc.split('\n## Warning kinds\n')[1];
  if (section === undefined) throw new Error('docs/json.md has no "## Warning kinds" section');
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe('warning kinds', () => {
  it("docs/json.md's table of warning kinds is the one WARNING_KINDS generates", () => {
    const expected = warningTable();
    expect(documentedTable(), `docs/json.md's warning table should read:\n${expected}\n`).toBe(expected);
  });
});
