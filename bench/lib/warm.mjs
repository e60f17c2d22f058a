// Part 3: warm. One Node process holding one library repository object (bench/lib/warm-worker.mjs)
// applies a series of patches; git's CLI (`git apply --index` + `git commit`) applies the same
// series to its own copy of the repository, patch by patch, alternating who goes first. On this
// machine's disk and on a tmpfs copy. Then the agent loop (many patches of 1-3 files), the same
// with pauses between patches, and the warm process's resident memory.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { baseRepo, quick, repoSizes, touchCounts } from './bases.mjs';
import { cleanup, copyRepo, gitEnv, gitTry, makeWorkRoot } from './proc.mjs';
import { phaseLine, showPhases } from './phases.mjs';
import { envInt, mb, median, ms, ratio, spread, table, target } from './report.mjs';
import { SeriesModel, mixFor } from './series-gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const TARGETS = { 10: 0.25, 100: 0.5, 1000: 0.7 };
const LOOP_TARGET = 0.2;
const RSS_LIMIT_MB = 200;
const sleep = (s) => new Promise((res) => setTimeout(res, s * 1000));

/** the warm process: sends a patch file, gets back the call's time, its commit, RSS and timing */
export class WarmProcess {
  constructor(lib, dir, timingFile) {
    const env = { ...gitEnv, ...(timingFile ? { PATCHTX_TIMING: timingFile } : {}) };
    this.child = spawn(process.execPath, [path.join(here, 'warm-worker.mjs'), lib, dir], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.waiting = [];
    this.stderr = '';
    this.child.stderr.on('data', (d) => (this.stderr += d));
    readline.createInterface({ input: this.child.stdout }).on('line', (l) => this.waiting.shift()?.resolve(JSON.parse(l)));
    this.child.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`the warm process exited (${code}):\n${this.stderr}`));
    });
    this.ready = new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  apply(patchFile) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(JSON.stringify({ patch: patchFile }) + '\n');
    });
  }

  close() {
    this.child.stdin.end(JSON.stringify({ exit: true }) + '\n');
  }
}

/** git's CLI doing the job: `git apply --index` then `git commit`, wall time of both spawns */
export function gitJob(dir, diffFile) {
  const t0 = performance.now();
  const a = spawnSync('git', ['apply', '--index', diffFile], { cwd: dir, env: gitEnv, encoding: 'utf8' });
  if (a.status !== 0) return { error: `git apply --index ${diffFile}: exit ${a.status}: ${a.stderr}` };
  const c = spawnSync('git', ['commit', '-q', '-m', 'bench'], { cwd: dir, env: gitEnv, encoding: 'utf8' });
  if (c.status !== 0) return { error: `git commit: exit ${c.status}: ${c.stderr}` };
  return { ms: performance.now() - t0 };
}

const treeOf = (dir) => gitTry(dir, 'rev-parse', 'HEAD^{tree}').stdout.trim();

/** two copies of `base` (patchtx's and git's) under `root`, index refreshed, synced */
export function twoCopies(base, root) {
  const ptx = path.join(root, 'patchtx');
  const git = path.join(root, 'git');
  for (const d of [ptx, git]) {
    copyRepo(base, d);
    gitTry(d, 'update-index', '-q', '--refresh');
  }
  spawnSync('sync');
  return { ptx, git };
}

/** storage roots: this disk (os.tmpdir()) and tmpfs (/dev/shm), as BENCH_STORAGE selects */
function storages() {
  const want = (process.env.BENCH_STORAGE || 'disk,tmpfs').split(',').map((s) => s.trim());
  const out = [];
  if (want.includes('disk')) out.push({ name: 'disk', root: os.tmpdir() });
  if (want.includes('tmpfs')) {
    if (existsSync('/dev/shm')) out.push({ name: 'tmpfs', root: '/dev/shm' });
    else console.log('  (no /dev/shm here: the tmpfs copy is NOT MEASURED)');
  }
  return out;
}

/**
 * Applies `patch` ({ v4a, diff }) with both tools, in `order`; returns { ptx, git } (ms) or
 * { error }. The two copies' trees are compared afterwards when `check`.
 */
async function both(warm, copies, dir, patch, n, order, check) {
  const v4a = path.join(dir, `p${n}.v4a`);
  const diff = path.join(dir, `p${n}.diff`);
  writeFileSync(v4a, patch.v4a);
  writeFileSync(diff, patch.diff);
  const out = {};
  for (const who of order) {
    if (who === 'patchtx') {
      const r = await warm.apply(v4a);
      if (r.error) return { error: `patchtx (warm) on patch ${n}: ${r.error}` };
      if (!r.commit) return { error: `patchtx (warm) on patch ${n}: no commit` };
      out.ptx = r.ms;
      out.rss = r.rss;
      out.maxRss = r.maxRss;
      out.timing = r.timing ?? [];
    } else {
      const g = gitJob(copies.git, diff);
      if (g.error) return { error: g.error };
      out.git = g.ms;
    }
  }
  cleanup(v4a);
  cleanup(diff);
  if (check) {
    const a = treeOf(copies.ptx);
    const b = treeOf(copies.git);
    if (!a || a !== b) return { error: `after patch ${n} the trees differ: patchtx ${a}, git ${b}` };
  }
  return out;
}

export async function runWarm({ repoRoot }) {
  const lib = path.resolve(repoRoot, process.env.BENCH_PATCHTX_LIB || 'dist/index.js');
  const sizes = repoSizes();
  const touches = touchCounts();
  const runs = envInt('BENCH_WARM_RUNS', quick ? 3 : 5);
  const warmup = envInt('BENCH_WARM_WARMUP', quick ? 1 : 2);
  const loopN = envInt('BENCH_LOOP', quick ? 40 : 200);
  const pauseN = process.env.BENCH_PAUSE_PATCHES === '0' ? 0 : envInt('BENCH_PAUSE_PATCHES', quick ? 2 : 3);
  const pauseS = Number(process.env.BENCH_PAUSE_S || (quick ? 1 : 3));
  const longN = Number(process.env.BENCH_RSS_PATCHES || 0);
  const timing = process.env.BENCH_TIMING !== '0';
  const verdicts = [];
  if (!existsSync(lib)) {
    console.log(`\n!! warm NOT MEASURED: ${lib} does not exist (build first)`);
    return { verdicts: [target('warm section', null)], failed: false, incomplete: true };
  }
  console.log(`\n== Warm: one Node process, one repository object (openRepository of ${path.relative(repoRoot, lib)}), against git's CLI ==`);
  console.log(
    `method: a series of patches, each made on the files as the patches before it left them; patchtx (in the warm process) and git (git apply --index + git commit, two spawns) each apply it to their own copy, alternating who goes first; after every patch both copies' trees must be equal. No restore and no sync between patches (what the previous patch wrote is in the page cache, as in an agent's session); the copies are synced once when made. patchtx's time is repo.apply() alone, measured in its process; git's the wall time of its two spawns. ${warmup} warm-up patches, then ${runs} timed, per case.`,
  );
  const root = makeWorkRoot('warm');
  const rows = [];
  const loops = [];
  let failed = false;
  let peakAt1000 = 0;
  try {
    for (const size of sizes) {
      const base = baseRepo(size);
      console.log(`\nrepo ${size} files (generated in ${base.seconds.toFixed(1)} s)`);
      for (const st of storages()) {
        const sroot = mkdtempSync(path.join(st.root, 'patchtx-bench-warm-'));
        const copies = twoCopies(base.dir, sroot);
        const timingFile = timing ? path.join(root, `timing-${size}-${st.name}.jsonl`) : null;
        const warm = new WarmProcess(lib, copies.ptx, timingFile);
        const model = new SeriesModel(size, 0x5e71e5 + size);
        const r = model.r;
        let n = 0;
        try {
          await warm.ready;
          for (const touch of touches) {
            if (touch > size / 2) continue;
            const row = { size, storage: st.name, touch, ptx: [], git: [], warm: [], rss: 0, timing: [] };
            for (let i = 0; i < warmup + runs; i++) {
              const out = await both(warm, copies, root, model.next(touch, mixFor(touch, r)), ++n, i % 2 ? ['git', 'patchtx'] : ['patchtx', 'git'], true);
              if (out.error) throw new Error(out.error);
              if (i < warmup) row.warm.push(out.ptx);
              else {
                row.ptx.push(out.ptx);
                row.git.push(out.git);
                row.timing.push(...out.timing);
              }
              row.rss = Math.max(row.rss, out.maxRss);
            }
            if (touch === 1000) peakAt1000 = Math.max(peakAt1000, row.rss);
            rows.push(row);
            console.log(
              `  ${st.name}, ${touch} files: patchtx ${spread(row.ptx)} ms (warm-up ${row.warm.map(ms).join(', ')}), git ${spread(row.git)} ms, patchtx/git ${ratio(median(row.ptx) / median(row.git))}; warm process peak RSS ${mb(row.rss)} MB`,
            );
          }
          if (st.name === 'disk') {
            // the agent loop: many small patches in a row, then a few with pauses between them
            const loop = { size, ptx: [], git: [], rss: [], pausedPtx: [], pausedGit: [] };
            for (let i = 0; i < loopN; i++) {
              const k = r.int(1, 3);
              const out = await both(
                warm,
                copies,
                root,
                model.next(k, mixFor(k, r)),
                ++n,
                i % 2 ? ['git', 'patchtx'] : ['patchtx', 'git'],
                (i + 1) % 50 === 0 || i === loopN - 1,
              );
              if (out.error) throw new Error(out.error);
              loop.ptx.push(out.ptx);
              loop.git.push(out.git);
              if ((i + 1) % 100 === 0 || i === loopN - 1) loop.rss.push([i + 1, out.rss, out.maxRss]);
            }
            if (size === sizes[0] && pauseN > 0) {
              for (let i = 0; i < pauseN; i++) {
                const k = r.int(1, 3);
                const patch = model.next(k, mixFor(k, r));
                // a pause before each tool's patch: both come to it idle
                for (const who of i % 2 ? ['git', 'patchtx'] : ['patchtx', 'git']) {
                  await sleep(pauseS);
                  const out = await both(warm, copies, root, patch, `${n + 1}-${who}`, [who], false);
                  if (out.error) throw new Error(out.error);
                  if (who === 'patchtx') loop.pausedPtx.push(out.ptx);
                  else loop.pausedGit.push(out.git);
                }
                n++;
                const a = treeOf(copies.ptx);
                if (a !== treeOf(copies.git)) throw new Error(`after paused patch ${i + 1} the trees differ`);
              }
            }
            loops.push(loop);
            const sum = (xs) => xs.reduce((a, b) => a + b, 0);
            console.log(
              `  agent loop, ${loopN} patches of 1-3 files: patchtx total ${ms(sum(loop.ptx))} ms (per patch ${spread(loop.ptx)}), git total ${ms(sum(loop.git))} ms (${spread(loop.git)}), patchtx/git ${ratio(sum(loop.ptx) / sum(loop.git))}; RSS after patch ${loop.rss.map(([k, rss]) => `${k}: ${mb(rss)} MB`).join(', ')}`,
            );
            if (loop.pausedPtx.length)
              console.log(
                `  with a ${pauseS} s pause before each patch (${pauseN} patches): patchtx ${spread(loop.pausedPtx)} ms, git ${spread(loop.pausedGit)} ms, totals ${ms(sum(loop.pausedPtx))} / ${ms(sum(loop.pausedGit))} ms = ${ratio(sum(loop.pausedPtx) / sum(loop.pausedGit))}`,
              );
            if (size === sizes[0] && longN > 0) {
              console.log(`  long run: ${longN} patches of 1,000 files (patchtx only), RSS after each 100:`);
              const samples = [];
              for (let i = 0; i < longN; i++) {
                const patch = model.next(1000, mixFor(1000, r));
                const v4a = path.join(root, 'long.v4a');
                writeFileSync(v4a, patch.v4a);
                const out = await warm.apply(v4a);
                if (out.error) throw new Error(`long run, patch ${i + 1}: ${out.error}`);
                // git's copy follows, untimed, so that later sections stay comparable
                const diff = path.join(root, 'long.diff');
                writeFileSync(diff, patch.diff);
                const g = gitJob(copies.git, diff);
                if (g.error) throw new Error(g.error);
                peakAt1000 = Math.max(peakAt1000, out.maxRss);
                if ((i + 1) % 100 === 0 || i === longN - 1) {
                  samples.push([i + 1, out.rss, out.maxRss]);
                  console.log(`    ${i + 1}: ${mb(out.rss)} MB (peak so far ${mb(out.maxRss)})`);
                }
              }
              loops.at(-1).long = samples;
            }
          }
        } catch (e) {
          console.log(`\n!! warm FAILED (${size}-file repo, ${st.name}): ${e.message}`);
          failed = true;
        } finally {
          warm.close();
          cleanup(sroot);
        }
      }
    }
  } finally {
    cleanup(root);
  }

  console.log('');
  table(
    ['files touched', 'repo files', 'storage', 'patchtx warm ms median (min-max)', 'git ms median (min-max)', 'patchtx/git', 'target', 'warm peak RSS MB'],
    rows.map((r) => [
      String(r.touch),
      String(r.size),
      r.storage,
      spread(r.ptx),
      spread(r.git),
      ratio(median(r.ptx) / median(r.git)),
      `<= ${TARGETS[r.touch] ?? '?'}x`,
      mb(r.rss),
    ]),
  );
  console.log('\nTargets (warm):');
  for (const r of rows) {
    const q = median(r.ptx) / median(r.git);
    const limit = TARGETS[r.touch];
    if (limit === undefined) continue;
    const v = target(
      `warm ${r.touch} files, ${r.size}-file repo, ${r.storage}: patchtx <= ${limit}x git`,
      r.ptx.length ? q <= limit : null,
      `${ms(median(r.ptx))} vs ${ms(median(r.git))} ms = ${ratio(q)}`,
    );
    verdicts.push(v);
    if ((v === 'FAIL' || showPhases) && r.timing.length) console.log(`         where patchtx's time goes: ${phaseLine(r.timing)}`);
  }
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  for (const l of loops) {
    verdicts.push(
      target(
        `agent loop, ${l.ptx.length} patches of 1-3 files, ${l.size}-file repo: patchtx total <= ${LOOP_TARGET}x git's`,
        l.ptx.length ? sum(l.ptx) / sum(l.git) <= LOOP_TARGET : null,
        `${ms(sum(l.ptx))} / ${ms(sum(l.git))} ms = ${ratio(sum(l.ptx) / sum(l.git))}`,
      ),
    );
    if (l.pausedPtx.length)
      verdicts.push(
        target(
          `agent loop with ${pauseS} s pauses (${l.pausedPtx.length} patches), ${l.size}-file repo: patchtx total <= ${LOOP_TARGET}x git's`,
          sum(l.pausedPtx) / sum(l.pausedGit) <= LOOP_TARGET,
          `${ms(sum(l.pausedPtx))} / ${ms(sum(l.pausedGit))} ms = ${ratio(sum(l.pausedPtx) / sum(l.pausedGit))}`,
        ),
      );
  }
  verdicts.push(
    target(
      `warm process peak RSS <= ${RSS_LIMIT_MB} MB with 1,000-file patches`,
      peakAt1000 ? peakAt1000 / 1024 <= RSS_LIMIT_MB : null,
      peakAt1000 ? `${mb(peakAt1000)} MB` : undefined,
    ),
  );
  const long = loops.find((l) => l.long?.length >= 2)?.long;
  if (long)
    verdicts.push(
      target(
        `warm process RSS flat over ${long.at(-1)[0]} patches of 1,000 files (last sample <= 1.1x the first)`,
        long.at(-1)[1] / long[0][1] <= 1.1,
        long.map(([k, rss]) => `${k}: ${mb(rss)}`).join(', ') + ' MB',
      ),
    );
  const flat = loops.filter((l) => l.rss.length >= 2);
  if (flat.length) {
    const grow = flat.map((l) => l.rss.at(-1)[1] / l.rss[0][1]);
    verdicts.push(
      target(
        'warm process RSS flat over the agent loop (last sample <= 1.1x the first)',
        grow.every((g) => g <= 1.1),
        flat.map((l) => `${l.size}-file repo: ${l.rss.map(([k, rss]) => `${k}: ${mb(rss)}`).join(', ')} MB`).join('; '),
      ),
    );
  }
  return { verdicts, failed, incomplete: false };
}
