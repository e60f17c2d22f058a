// Scenario folders in the reference suite's layout (`patch.txt`, optional `input/`, `expected/`),
// read the same way by the engine runner and the real-repository runner. patchtx's own folders
// may say instead that the patch fails: `expected-error` holds the error kind (the tree must then
// stay as input/), and `expected-warnings` the warning kinds a successful run must report.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorKind } from '../../src/errors.js';
import { repoRoot } from './repos.js';

/** patchtx's documented differences from Codex, as scenarios; always present. */
export const projectScenariosDir = path.join(repoRoot, 'test/scenarios/patchtx');

/** The scenario folders below `root`, sorted; files at the root (README, attributes) are not scenarios. */
export function scenarioNames(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export interface ScenarioExpectation {
  /** the kind the patch must fail with, or null when it must apply */
  error: ErrorKind | null;
  /** warning kinds a successful run must report (each at least once) */
  warnings: string[];
}

const lines = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
    : [];

export function scenarioExpectation(dir: string): ScenarioExpectation {
  const error = lines(path.join(dir, 'expected-error'))[0];
  return { error: (error ?? null) as ErrorKind | null, warnings: lines(path.join(dir, 'expected-warnings')) };
}
