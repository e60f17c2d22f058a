// Scratch space and inputs of the command tests: temporary directories, patch files and V4A
// text, the patch most tests start from, and the process environment a test runs under.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const scratch: string[] = [];

export function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'patchtx-cli-'));
  scratch.push(d);
  return d;
}

export function cleanupScratch(): void {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes `text` to a new patch file and returns its path. */
export function patchFile(text: string): string {
  const f = path.join(tempDir(), 'change.patch');
  writeFileSync(f, text);
  return f;
}

/** A V4A patch from its hunk lines. */
export function v4a(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
}

/** No user or system git config and no identity from the environment: tests see only the repository's config. */
export function isolateGitEnv(): void {
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  for (const k of [
    'GIT_AUTHOR_NAME',
    'GIT_AUTHOR_EMAIL',
    'GIT_AUTHOR_DATE',
    'GIT_COMMITTER_NAME',
    'GIT_COMMITTER_EMAIL',
    'GIT_COMMITTER_DATE',
    'EMAIL',
    'GIT_DIR',
    'GIT_WORK_TREE',
    'NO_COLOR',
    'FORCE_COLOR',
  ]) {
    delete process.env[k];
  }
}

/** Runs `fn` with some environment variables set (undefined: unset), restoring them afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The patch most tests start from: an update, an add and an update of the executable script. */
export const BASIC_PATCH = v4a(
  '*** Update File: src/math.js',
  '@@',
  ' export function add(a, b) {',
  '-  return a + b;',
  '+  return a + b; // sum',
  ' }',
  '*** Add File: src/new.js',
  '+export const x = 1;',
  '*** Update File: bin/run.sh',
  '@@',
  '-echo hello',
  '+echo hi',
);

export const BASIC_SUMMARY = 'Success. Updated the following files:\nA src/new.js\nM src/math.js\nM bin/run.sh\n';
