#!/usr/bin/env node
// patchtx benchmark. Usage: node bench/run.mjs [engine] [e2e] [warm] [replay]   (default: all; see bench/README.md)
// Build first (npm run bench does: node scripts/build.mjs && node bench/run.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const parts = process.argv.slice(2);
const known = ['engine', 'e2e', 'warm', 'replay'];
if (parts.some((p) => p === '-h' || p === '--help' || !known.includes(p))) {
  console.log(`usage: node bench/run.mjs [engine] [e2e] [warm] [replay]     (default: all four; see bench/README.md)
env: BENCH_QUICK=1 (a short run: 2,000-file repo, 10 and 100 files, fewer runs)
     BENCH_RUNS (4 end to end, per kind of copy; 21 engine)  BENCH_ENGINE_RUNS  BENCH_WARMUP (5, engine)  BENCH_ENGINE_LINES (100000,200000)  BENCH_ENGINE_CHUNKS (500)
     BENCH_REPO_FILES (2000,20000)  BENCH_TOUCH (10,100,1000)  BENCH_FRESH (restore|copy)  BENCH_SYNC (both; 1 = synced copies only, 0 = unsynced only)
     BENCH_WARM_RUNS (5)  BENCH_WARM_WARMUP (2)  BENCH_STORAGE (disk,tmpfs)  BENCH_LOOP (200)  BENCH_PAUSE_PATCHES (3)  BENCH_PAUSE_S (3)  BENCH_RSS_PATCHES (0)
     BENCH_REPLAY (250)  BENCH_REPLAY_RUNS (2)  BENCH_REPLAY_FILES (2000)  BENCH_TIMING (1; 0 = no timing marks)
     BENCH_PATCHTX_LIB (dist/index.js)  BENCH_PATCHTX_CLI (dist/patchtx.cjs)  BENCH_KEEP (keep work dirs)  BENCH_RSS (wrapper)
     BENCH_FSCK_GIT (0; 1 = also fsck the git peer's result)  BENCH_ENFORCE (0; 1 = exit 1 on a FAILed target)  BENCH_DUMP (1 = every engine run's time)`);
  process.exit(parts.every((p) => p === '-h' || p === '--help') ? 0 : 2);
}
const selected = parts.length ? known.filter((k) => parts.includes(k)) : known;

const describe = (f) => {
  const p = path.join(repoRoot, f);
  if (!existsSync(p)) return `${f} missing`;
  const s = statSync(p);
  return `${f} ${(s.size / 1024).toFixed(0)} KB, built ${s.mtime.toISOString()}`;
};
const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'n/a';
  }
};
console.log(`patchtx benchmark, ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${sh('git', ['--version'])}, ${os.cpus().length} cpus (${os.cpus()[0]?.model ?? '?'}), load ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(
  `source HEAD ${sh('git', ['rev-parse', '--short', 'HEAD'])}${sh('git', ['status', '--porcelain', '--untracked-files=no']) ? ' (+ uncommitted changes)' : ''}; ${describe('dist/index.js')}; ${describe('dist/patchtx.cjs')}`,
);
console.log('every number below is measured in this run');

const mtimes = () =>
  ['dist/index.js', 'dist/patchtx.cjs']
    .map((f) => {
      try {
        return statSync(path.join(repoRoot, f)).mtimeMs;
      } catch {
        return 0;
      }
    })
    .join();
const builtAtStart = mtimes();
const verdicts = [];
let failed = false;
let incomplete = false;
const started = Date.now();
for (const part of selected) {
  try {
    const run = {
      engine: async () => (await import('./lib/engine.mjs')).runEngine({ repoRoot }),
      e2e: async () => (await import('./lib/e2e.mjs')).runE2E({ repoRoot }),
      warm: async () => (await import('./lib/warm.mjs')).runWarm({ repoRoot }),
      replay: async () => (await import('./lib/replay.mjs')).runReplay({ repoRoot }),
    }[part];
    const t0 = Date.now();
    const r = await run();
    console.log(`(${part}: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    verdicts.push(...r.verdicts);
    failed ||= Boolean(r.failed);
    incomplete ||= Boolean(r.incomplete);
  } catch (e) {
    console.error(`\n!! ${part} benchmark FAILED: ${e.stack ?? e}`);
    failed = true;
  }
}

(await import('./lib/bases.mjs')).disposeBases();

if (mtimes() !== builtAtStart) {
  console.log(`\n!! WARNING: dist/ was rebuilt while the benchmark ran; patchtx numbers may mix two builds. Run again.`);
}
const count = (v) => verdicts.filter((x) => x === v).length;
console.log(
  `\nSummary: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('NOT MEASURED')} not measured; ${((Date.now() - started) / 1000).toFixed(0)} s total`,
);
if (failed) {
  console.log('Result: ERROR (a tool failed or an output did not match; see the !! lines above)');
  process.exit(1);
}
if (incomplete) {
  console.log('Result: INCOMPLETE (patchtx could not be measured; see the !! lines above)');
  process.exit(2);
}
if (process.env.BENCH_ENFORCE === '1' && count('FAIL')) process.exit(1);
