// The reference's scenario suite (codex-rs/apply-patch/tests/fixtures/scenarios, data copy in
// ../shared/conformance/codex/scenarios, read-only): every folder's patch is parsed and planned
// against an in-memory copy of input/, the plan is applied to that copy, and the result must
// equal expected/ byte for byte. Directories are implied by files here; empty directories left
// behind (004 keeps `old/`) are checked by the git-level runner, which works on a real tree.
// patchtx's own scenarios (its documented differences from Codex) run the same way, always.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planPatch } from '../../src/engine/plan.js';
import { PatchtxError, type ErrorKind } from '../../src/errors.js';
import { parsePatch } from '../../src/patch/parse.js';
import { hasScenarios, SCENARIOS_ABSENT, scenariosDir } from '../helpers/repos.js';
import { projectScenariosDir, scenarioExpectation, scenarioNames } from '../helpers/scenarios.js';
import { applyPlan, lookupOf, readTree, type Tree } from './support.js';

/** Scenarios the reference fails, and the kind of error patchtx must report for them. */
const FAILURES: Record<string, ErrorKind> = {
  '005_rejects_empty_patch': 'parse_error',
  '006_rejects_missing_context': 'context_not_found',
  '007_rejects_missing_file_delete': 'file_not_found',
  '008_rejects_empty_update_hunk': 'parse_error',
  '009_requires_existing_file_for_update': 'file_not_found',
  '012_delete_directory_fails': 'is_directory',
  '013_rejects_invalid_hunk_header': 'parse_error',
  '015_failure_after_partial_success_leaves_changes': 'file_not_found',
  // Rebuilt from ports that read a lone CR as a line ending; upstream (and git) read it as text,
  // so `two\rthree` is one line and the patch's ` two` / `-three` is not in the file.
  '024_preserves_mixed_line_endings': 'context_not_found',
};

/** The reference is not atomic: its Add in 015 stays on disk. patchtx changes nothing. */
const ATOMIC_DIVERGENCE = '015_failure_after_partial_success_leaves_changes';

/** Its expected/ is superseded (SCENARIOS.md): the patch fails and the input stays as it is. */
const SUPERSEDED_EXPECTED = '024_preserves_mixed_line_endings';

const scenarios = !hasScenarios
  ? []
  : readdirSync(scenariosDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();

function runScenario(dir: string): { tree: Tree; error?: unknown; warnings?: string[] } {
  const input = readTree(path.join(dir, 'input'));
  const patchText = readFileSync(path.join(dir, 'patch.txt'), 'utf8');
  try {
    const plan = planPatch(parsePatch(patchText), lookupOf(input));
    return { tree: applyPlan(input, plan), warnings: plan.warnings.map((w) => w.kind) };
  } catch (error) {
    return { tree: input, error };
  }
}

function asRecord(tree: Tree): Record<string, string> {
  // Bytes shown as latin1 so any difference (CR, UTF-8 bytes) is visible in the assertion diff.
  return Object.fromEntries([...tree].sort(([a], [b]) => a.localeCompare(b)).map(([p, b]) => [p, Buffer.from(b).toString('latin1')]));
}

if (!hasScenarios) {
  console.warn(`note: ${SCENARIOS_ABSENT}`);
  it.skip(SCENARIOS_ABSENT, () => undefined);
}

describe.skipIf(!hasScenarios)('Codex scenario suite', () => {
  it('finds all 25 scenario folders', () => {
    expect(scenarios).toHaveLength(25);
    for (const name of Object.keys(FAILURES)) expect(scenarios).toContain(name);
  });

  for (const name of scenarios) {
    const dir = path.join(scenariosDir, name);
    it(name, () => {
      const { tree, error } = runScenario(dir);
      const expectedKind = FAILURES[name];
      if (expectedKind === undefined) {
        expect(error).toBeUndefined();
      } else {
        expect(error).toBeInstanceOf(PatchtxError);
        expect((error as PatchtxError).kind).toBe(expectedKind);
      }
      if (name === ATOMIC_DIVERGENCE) {
        // Deliberate divergence: expected/ holds created.txt (the reference keeps the first
        // hunk's write); patchtx is atomic, so the tree equals input/, which is empty.
        expect(existsSync(path.join(dir, 'input'))).toBe(false);
        expect(asRecord(tree)).toEqual({});
        expect(asRecord(readTree(path.join(dir, 'expected')))).toHaveProperty(['created.txt']);
        return;
      }
      if (name === SUPERSEDED_EXPECTED) {
        expect(asRecord(tree)).toEqual(asRecord(readTree(path.join(dir, 'input'))));
        expect(asRecord(readTree(path.join(dir, 'expected')))).not.toEqual(asRecord(tree));
        return;
      }
      expect(asRecord(tree)).toEqual(asRecord(readTree(path.join(dir, 'expected'))));
    });
  }

  it('reports the reference messages for the failure scenarios', () => {
    const message = (name: string): string => String((runScenario(path.join(scenariosDir, name)).error as Error).message);
    expect(message('005_rejects_empty_patch')).toContain('No files were modified');
    expect(message('006_rejects_missing_context')).toMatch(/^Failed to find expected lines in modify\.txt:\nmissing\n/);
    expect(message('007_rejects_missing_file_delete')).toMatch(/^Failed to delete file missing\.txt/);
    expect(message('009_requires_existing_file_for_update')).toBe('Failed to read file to update missing.txt: No such file or directory');
    expect(message('012_delete_directory_fails')).toMatch(/^Failed to delete file dir/);
  });
});

describe("patchtx's own scenarios (its differences from Codex)", () => {
  const names = scenarioNames(projectScenariosDir);

  it('finds the scenario folders', () => {
    expect(names.length).toBeGreaterThan(0);
  });

  for (const name of names) {
    const dir = path.join(projectScenariosDir, name);
    it(name, () => {
      const { tree, error, warnings } = runScenario(dir);
      const expected = scenarioExpectation(dir);
      if (expected.error !== null) {
        expect(error).toBeInstanceOf(PatchtxError);
        expect((error as PatchtxError).kind).toBe(expected.error);
        expect(existsSync(path.join(dir, 'expected')), 'a failing scenario has no expected/').toBe(false);
        expect(asRecord(tree)).toEqual(asRecord(readTree(path.join(dir, 'input'))));
        return;
      }
      expect(error).toBeUndefined();
      expect(asRecord(tree)).toEqual(asRecord(readTree(path.join(dir, 'expected'))));
      for (const kind of expected.warnings) expect(warnings).toContain(kind);
    });
  }
});
