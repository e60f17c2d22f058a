// A soak test of "nothing lost": patchtx (apply, apply_patch, undo) runs in a loop among the things
// a user and git do to the same checkout at the same time: an editor that saves touched files
// (also in the middle of a run), `git commit -a`, `git checkout` to another branch and back,
// `git gc` (pruning at once). Every version the editor saved carries a marker line; after every
// step each marker must still be somewhere a user can get it back from: a file in the working
// tree, the index, or an object reachable from a ref or a reflog (a commit, a transaction's
// record). The schedule is random; its seed is printed and can be replayed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitAsync, gitEnv, makeRepo } from '../helpers/repos.js';
import { prng, seedFrom } from '../helpers/schedule.js';
import { leftoverFiles } from '../helpers/snapshot.js';

const SEED = seedFrom('PATCHTX_SOAK_SEED');
const rand = prng(SEED);
const STEPS = 150;
const FILES = ['a.txt', 'b.txt', 'c.txt', 'd.txt'];

beforeAll(() => {
  requireBuiltCli();
  console.log(`soak test seed: ${SEED} (replay with PATCHTX_SOAK_SEED=${SEED})`);
});

afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

// ---------------------------------------------------------------------------------------------
// The user: an editor that reloads a file and saves it with one more marker line

let nextMarker = 1;
const saved: string[] = [];

function editorSave(dir: string, file: string): void {
  const abs = path.join(dir, file);
  const marker = `editor-save-${nextMarker++}`;
  let old = '';
  try {
    old = readFileSync(abs, 'utf8');
  } catch {
    // a file the editor creates
  }
  writeFileSync(abs, `${old}${old === '' || old.endsWith('\n') ? '' : '\n'}${marker}\n`);
  saved.push(marker);
}

/** Saves `file` once, `delayMs` from now (while a command runs). */
async function saveLater(dir: string, file: string, delayMs: number): Promise<void> {
  await sleep(delayMs);
  editorSave(dir, file);
}

// ---------------------------------------------------------------------------------------------
// What a user can still get back: working-tree files, index entries, reachable objects

const markersOfBlob = new Map<string, string[]>();
const MARKER = /editor-save-\d+/g;

function worktreeText(dir: string): string {
  let all = '';
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (name === '.git') continue;
      const abs = path.join(d, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(abs);
      else if (st?.isFile()) all += readFileSync(abs, 'latin1') + '\n';
    }
  };
  walk(dir);
  return all;
}

function reachableBlobs(dir: string): string[] {
  const objects = git(dir, 'rev-list', '--all', '--reflog', '--objects')
    .split('\n')
    .map((l) => l.slice(0, 40))
    .filter((o) => /^[0-9a-f]{40}$/.test(o));
  const staged = git(dir, 'ls-files', '-s')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((o) => /^[0-9a-f]{40}$/.test(o));
  return [...new Set([...objects, ...staged])];
}

function learnBlobs(dir: string, oids: string[]): void {
  const fresh = oids.filter((o) => !markersOfBlob.has(o));
  if (fresh.length === 0) return;
  const out = execFileSync('git', ['cat-file', '--batch'], { cwd: dir, env: gitEnv, input: fresh.join('\n') + '\n', maxBuffer: 256 * 1024 * 1024 });
  let at = 0;
  for (const oid of fresh) {
    const eol = out.indexOf(10, at);
    const header = out.toString('latin1', at, eol);
    const size = Number(header.split(' ')[2]);
    const body = out.toString('latin1', eol + 1, eol + 1 + size);
    at = eol + 1 + size + 1;
    markersOfBlob.set(oid, header.split(' ')[1] === 'blob' ? (body.match(MARKER) ?? []) : []);
  }
}

function lostMarkers(dir: string): string[] {
  const found = new Set<string>(worktreeText(dir).match(MARKER) ?? []);
  const oids = reachableBlobs(dir);
  learnBlobs(dir, oids);
  for (const o of oids) for (const m of markersOfBlob.get(o) ?? []) found.add(m);
  return saved.filter((m) => !found.has(m));
}

// ---------------------------------------------------------------------------------------------
// patchtx's side

const applyPatchBin = (): string => binPath('apply_patch');

function runApplyPatch(dir: string, patch: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [applyPatchBin()], { cwd: dir, env: gitEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(patch);
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The first line of each file is `value N`; a patch bumps it (the editor only appends). */
function bumpPatch(dir: string, file: string): string | null {
  let first: string;
  try {
    first = readFileSync(path.join(dir, file), 'utf8').split('\n')[0]!;
  } catch {
    return null;
  }
  const m = /^value (\d+)$/.exec(first);
  if (!m) return null;
  return `*** Begin Patch\n*** Update File: ${file}\n@@\n-value ${m[1]}\n+value ${Number(m[1]) + 1}\n*** End Patch\n`;
}

/** Exit statuses a run may end with here: applied, does not apply, usage/environment, stale, dirty, undo refused. */
const PATCHTX_OK_EXITS = [0, 1, 2, 5, 6, 7];

interface Trace {
  step: number;
  action: string;
  detail: string;
}

describe('soak: patchtx among an editor, git commit, git checkout and git gc', () => {
  it(`loses no byte the editor saved over ${STEPS} random steps`, async () => {
    const dir = makeRepo('empty');
    git(dir, 'config', 'gc.auto', '0');
    for (const f of FILES) writeFileSync(path.join(dir, f), 'value 0\nfiller line\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'Files the soak test edits');
    git(dir, 'branch', 'side');
    const trace: Trace[] = [];
    const problems: string[] = [];

    for (let step = 1; step <= STEPS; step++) {
      const action = pick(['apply', 'apply', 'apply_patch', 'delete', 'add-over', 'commit', 'checkout', 'gc', 'undo', 'save'] as const);
      const file = pick(FILES);
      let detail = file;
      const during = (ms: number): Promise<void> => (rand() < 0.6 ? saveLater(dir, file, ms) : Promise.resolve());
      if (action === 'apply' || action === 'apply_patch') {
        const patch = bumpPatch(dir, file);
        if (patch === null) continue;
        const args = ['apply', '--json', ...(rand() < 0.5 ? ['--dirty=include'] : [])];
        const run = action === 'apply' ? runCli(args, { cwd: dir, input: patch }) : runApplyPatch(dir, patch);
        const [r] = await Promise.all([run, during(Math.floor(rand() * 250))]);
        detail += ` exit ${r.status}`;
        const allowed = action === 'apply' ? PATCHTX_OK_EXITS : [0, 1];
        if (!allowed.includes(r.status ?? -1)) problems.push(`step ${step} ${action}: exit ${r.status}: ${r.stdout}${r.stderr}`);
      } else if (action === 'delete') {
        if (!existsSync(path.join(dir, file))) continue;
        const r = await runApplyPatch(dir, `*** Begin Patch\n*** Delete File: ${file}\n*** End Patch\n`);
        detail += ` exit ${r.status}`;
        if (r.status !== 0 && r.status !== 1) problems.push(`step ${step} delete: exit ${r.status}: ${r.stderr}`);
      } else if (action === 'add-over') {
        // an Add where the file is missing from the commit but the user has an untracked one,
        // or re-creating a deleted file
        if (existsSync(path.join(dir, file)) && git(dir, 'ls-files', file).trim() !== '') continue;
        if (rand() < 0.7) editorSave(dir, file);
        const r = await runApplyPatch(dir, `*** Begin Patch\n*** Add File: ${file}\n+value 0\n+filler line\n*** End Patch\n`);
        detail += ` exit ${r.status}`;
        if (r.status !== 0 && r.status !== 1) problems.push(`step ${step} add-over: exit ${r.status}: ${r.stderr}`);
      } else if (action === 'commit') {
        const r = await gitAsync(dir, 'commit', '-q', '-a', '-m', `user commit at step ${step}`);
        detail = `exit ${r.status}`;
      } else if (action === 'checkout') {
        const patch = bumpPatch(dir, file);
        const [co] = await Promise.all([gitAsync(dir, 'checkout', '-q', 'side'), patch ? runCli(['apply', '--json'], { cwd: dir, input: patch }) : null]);
        const back = await gitAsync(dir, 'checkout', '-q', 'main');
        detail = `to side exit ${co.status}, back exit ${back.status}`;
      } else if (action === 'gc') {
        const patch = bumpPatch(dir, file);
        const [gc] = await Promise.all([
          gitAsync(dir, 'gc', '-q', '--prune=now'),
          patch ? runCli(['apply', '--json', '--dirty=include'], { cwd: dir, input: patch }) : null,
          during(Math.floor(rand() * 150)),
        ]);
        detail = `gc exit ${gc.status}`;
      } else if (action === 'undo') {
        const r = await runCli(['undo', '--json'], { cwd: dir });
        detail = `exit ${r.status}`;
        if (!PATCHTX_OK_EXITS.includes(r.status ?? -1)) problems.push(`step ${step} undo: exit ${r.status}: ${r.stdout}${r.stderr}`);
      } else {
        editorSave(dir, file);
      }
      trace.push({ step, action, detail });
      // let a run that lost a lock race finish writing before looking (nothing runs in the background)
      const lost = lostMarkers(dir);
      if (lost.length > 0) {
        problems.push(`after step ${step} (${action} ${detail}) lost: ${lost.join(', ')}`);
        break;
      }
    }

    const summary = trace.map((t) => `${t.step} ${t.action} ${t.detail}`).join('\n');
    expect(problems, `seed ${SEED}\n${summary}`).toEqual([]);
    expect(saved.length).toBeGreaterThan(10);
    // the repository is sound and nothing is left locked
    const gitdir = path.join(dir, '.git');
    const recover = await runCli(['recover', '--json'], { cwd: dir });
    expect(recover.status, recover.stdout + recover.stderr).toBe(0);
    expect(leftoverFiles(gitdir)).toEqual([]);
    const fsck = await gitAsync(dir, 'fsck', '--no-progress', '--no-dangling');
    expect(fsck.status, fsck.stderr).toBe(0);
  });
});
