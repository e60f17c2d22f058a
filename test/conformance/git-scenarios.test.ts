// Every Codex apply_patch scenario, run through `patchtx apply` in a fresh git repository whose
// base commit holds the scenario's input/. Success: the working tree equals expected/ byte for
// byte (directories included), exactly one new commit whose parent is the base, `git status`
// clean, `git fsck` clean. Failure: tree and HEAD untouched.
// 015 is the deliberate divergence: the reference leaves the first hunk's Add on disk after the
// second hunk fails; patchtx is atomic, so the tree stays exactly as input/.
// patchtx's own scenarios (its documented differences from Codex) run the same way, always.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/patchtx.js';
import { cleanupRepos, git, hasScenarios, makeRepo, SCENARIOS_ABSENT, scenariosDir } from '../helpers/repos.js';
import { worktreeFiles } from '../helpers/snapshot.js';
import { projectScenariosDir, scenarioExpectation, scenarioNames } from '../helpers/scenarios.js';
import { exitCodeFor } from '../../src/errors.js';

const scenarios = !hasScenarios
  ? []
  : readdirSync(scenariosDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();

/** exit code patchtx gives each failing scenario (the reference exits 1 for all of them) */
const EXPECTED_FAILURES: Record<string, { code: number; kind: string }> = {
  '005_rejects_empty_patch': { code: 3, kind: 'parse_error' },
  '006_rejects_missing_context': { code: 1, kind: 'context_not_found' },
  '007_rejects_missing_file_delete': { code: 1, kind: 'file_not_found' },
  '008_rejects_empty_update_hunk': { code: 3, kind: 'parse_error' },
  '009_requires_existing_file_for_update': { code: 1, kind: 'file_not_found' },
  '012_delete_directory_fails': { code: 1, kind: 'is_directory' },
  '013_rejects_invalid_hunk_header': { code: 3, kind: 'parse_error' },
  '015_failure_after_partial_success_leaves_changes': { code: 1, kind: 'file_not_found' },
  // a lone CR is text, not a line ending (SCENARIOS.md, 024): `two\rthree` is one line
  '024_preserves_mixed_line_endings': { code: 1, kind: 'context_not_found' },
};

afterAll(cleanupRepos);

if (!hasScenarios) {
  console.warn(`note: ${SCENARIOS_ABSENT}`);
  it.skip(SCENARIOS_ABSENT, () => undefined);
}

describe.skipIf(!hasScenarios)('Codex scenarios through patchtx apply in git', () => {
  it('finds the scenario suite', () => {
    expect(scenarios.length).toBe(25);
  });

  for (const name of scenarios) {
    it(name, async () => {
      const dir = path.join(scenariosDir, name);
      const input = path.join(dir, 'input');
      const repo = makeRepo('fromdir', { source: existsSync(input) ? input : '/nonexistent-empty-source' });
      const base = git(repo, 'rev-parse', 'HEAD').trim();
      const before = worktreeFiles(repo);

      const out: string[] = [];
      const code = await main(['apply', '--json', '--repo', repo, path.join(dir, 'patch.txt')], {
        out: (t) => out.push(t),
        err: (t) => out.push(t),
      });
      const result = JSON.parse(out.join(''));
      const failure = EXPECTED_FAILURES[name];

      if (failure) {
        expect({ code, kind: result.error?.kind }).toEqual(failure);
        expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(base);
        expect(worktreeFiles(repo)).toEqual(before);
        if (name.startsWith('015')) expect(existsSync(path.join(repo, 'created.txt'))).toBe(false);
      } else {
        expect(code, out.join('')).toBe(0);
        expect(worktreeFiles(repo)).toEqual(worktreeFiles(path.join(dir, 'expected')));
        expect(git(repo, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('1');
        expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(base);
        expect(result.commit).toBe(git(repo, 'rev-parse', 'HEAD').trim());
      }
      expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
      git(repo, 'fsck', '--full', '--strict');
    });
  }

  it('keeps the patch text of each scenario as a note', () => {
    // cheap cross-check on the first success scenario: the note is the patch file, byte for byte
    const dir = path.join(scenariosDir, '001_add_file');
    const repo = makeRepo('empty');
    return main(['apply', '--json', '--repo', repo, path.join(dir, 'patch.txt')], { out: () => {}, err: () => {} }).then(() => {
      const note = git(repo, 'notes', '--ref=patchtx', 'show', 'HEAD');
      expect(note.replace(/\n$/, '')).toBe(readFileSync(path.join(dir, 'patch.txt'), 'utf8').replace(/\n$/, ''));
    });
  });
});

/** `patchtx apply --json` of the scenario's patch in a new repository whose one commit is input/. */
async function applyScenario(dir: string): Promise<{ repo: string; base: string; before: Record<string, string>; code: number; result: any; output: string }> {
  const input = path.join(dir, 'input');
  const repo = makeRepo('fromdir', { source: existsSync(input) ? input : '/nonexistent-empty-source' });
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  const before = worktreeFiles(repo);
  const out: string[] = [];
  const code = await main(['apply', '--json', '--repo', repo, path.join(dir, 'patch.txt')], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
  });
  return { repo, base, before, code, result: JSON.parse(out.join('')), output: out.join('') };
}

describe("patchtx's own scenarios through patchtx apply in git", () => {
  const names = scenarioNames(projectScenariosDir);

  it('finds the scenario folders', () => {
    expect(names.length).toBeGreaterThan(0);
  });

  for (const name of names) {
    it(name, async () => {
      const dir = path.join(projectScenariosDir, name);
      const expected = scenarioExpectation(dir);
      const { repo, base, before, code, result, output } = await applyScenario(dir);
      if (expected.error !== null) {
        expect({ code, kind: result.error?.kind }).toEqual({ code: exitCodeFor(expected.error), kind: expected.error });
        expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(base);
        expect(worktreeFiles(repo)).toEqual(before);
      } else {
        expect(code, output).toBe(0);
        expect(worktreeFiles(repo)).toEqual(worktreeFiles(path.join(dir, 'expected')));
        expect(git(repo, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('1');
        expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(base);
        const warned = (result.warnings as { kind: string }[]).map((w) => w.kind);
        for (const kind of expected.warnings) expect(warned).toContain(kind);
      }
      expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
      git(repo, 'fsck', '--full', '--strict');
    });
  }
});
