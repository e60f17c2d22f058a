// Part 4: replay. A series of several hundred small patches (1-3 files each, made by the bench
// on the 2,000-file repository as an agent's session would make them) written as a Codex session
// file; `patchtx replay` applies it in one process, with its progress bar on (run under a
// pseudo-terminal with `script`, where that exists; else `--progress=jsonl`, the closest form
// for a pipe), against git's CLI doing the same job: `git apply --index` + `git commit` per patch.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { baseRepo, quick } from './bases.mjs';
import { cleanup, gitEnv, gitTry, makeWorkRoot } from './proc.mjs';
import { phaseLine, showPhases, timingRecords } from './phases.mjs';
import { envInt, median, ms, ratio, spread, target } from './report.mjs';
import { SeriesModel, mixFor } from './series-gen.mjs';
import { gitJob, twoCopies } from './warm.mjs';

const TARGET = 0.5;
const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const hasScript = (() => {
  const r = spawnSync('script', ['-q', '-e', '-c', 'true', '/dev/null'], { stdio: 'ignore' });
  return r.status === 0;
})();

/** a Codex session file: one apply_patch custom tool call per patch, each recorded as applied */
function rolloutOf(patches) {
  const ts = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const lines = [
    { timestamp: ts(0), type: 'session_meta', payload: { id: 'bench-session', cwd: '/bench/project', timestamp: ts(0) } },
    { timestamp: ts(0), type: 'turn_context', payload: { cwd: '/bench/project', turn_id: 'turn-1' } },
  ];
  patches.forEach((p, i) => {
    const call = `call_${i + 1}`;
    lines.push({ timestamp: ts(i + 1), type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', call_id: call, input: p.v4a } });
    lines.push({ timestamp: ts(i + 1), type: 'event_msg', payload: { type: 'patch_apply_end', call_id: call, success: true } });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

export async function runReplay({ repoRoot }) {
  const cli = path.resolve(repoRoot, process.env.BENCH_PATCHTX_CLI || 'dist/patchtx.cjs');
  const count = envInt('BENCH_REPLAY', quick ? 60 : 250);
  const runs = envInt('BENCH_REPLAY_RUNS', quick ? 1 : 2);
  const size = envInt('BENCH_REPLAY_FILES', 2_000);
  const verdicts = [];
  if (!existsSync(cli)) {
    console.log(`\n!! replay NOT MEASURED: ${cli} does not exist (build first)`);
    return { verdicts: [target('replay', null)], failed: false, incomplete: true };
  }
  const how = hasScript
    ? `patchtx replay --repo <copy> log.jsonl under a pseudo-terminal (script -q -e -c ... /dev/null), so its progress bar is drawn as on a terminal`
    : `patchtx replay --repo <copy> --progress=jsonl log.jsonl (no \`script\` here for a pseudo-terminal: one JSON event per entry on stderr instead of the bar)`;
  console.log(`\n== Replay: ${count} patches of 1-3 files in one Codex session file, ${size}-file repo, ${runs} run(s) each ==`);
  console.log(`patchtx: ${how}; whole process, wall time`);
  console.log(`git:     git apply --index <patch.diff> && git commit -q -m bench per patch (two spawns each), wall time of the whole series`);
  const root = makeWorkRoot('replay');
  let failed = false;
  const ptx = [];
  const git = [];
  let records = [];
  const outside = []; // ms per patch outside the marked transactions (start-up included)
  try {
    const base = baseRepo(size);
    const model = new SeriesModel(size, 0x4e91a7);
    const patches = [];
    for (let i = 0; i < count; i++) {
      const k = model.r.int(1, 3);
      patches.push(model.next(k, mixFor(k, model.r)));
    }
    const log = path.join(root, 'session.jsonl');
    writeFileSync(log, rolloutOf(patches));
    const diffs = patches.map((p, i) => {
      const f = path.join(root, `p${i + 1}.diff`);
      writeFileSync(f, p.diff);
      return f;
    });
    const timingFile = process.env.BENCH_TIMING !== '0' ? path.join(root, 'timing.jsonl') : null;
    for (let run = 0; run < runs && !failed; run++) {
      const copies = twoCopies(base.dir, mkdtempSync(path.join(os.tmpdir(), 'patchtx-bench-replay-')));
      try {
        for (const who of run % 2 ? ['git', 'patchtx'] : ['patchtx', 'git']) {
          if (who === 'patchtx') {
            const args = hasScript ? ['replay', '--repo', copies.ptx, log] : ['replay', '--repo', copies.ptx, '--progress=jsonl', log];
            const cmd = hasScript ? 'script' : process.execPath;
            const argv = hasScript ? ['-q', '-e', '-c', [process.execPath, cli, ...args].map(shq).join(' '), '/dev/null'] : [cli, ...args];
            if (timingFile) writeFileSync(timingFile, '');
            const env = { ...gitEnv, ...(timingFile ? { PATCHTX_TIMING: timingFile } : {}) };
            const t0 = performance.now();
            const r = spawnSync(cmd, argv, { env, encoding: 'utf8', maxBuffer: 1 << 28 });
            const wall = performance.now() - t0;
            if (r.status !== 0 || !/Replayed \d+ entries: \d+ applied/.test(r.stdout)) {
              console.log(`\n!! patchtx replay FAILED (exit ${r.status}):\n${(r.stdout + r.stderr).slice(-2000)}`);
              failed = true;
              break;
            }
            ptx.push(wall);
            if (hasScript && !r.stdout.includes('\r\x1b[2K')) console.log('  (note: no progress bar was drawn in this run)');
            if (timingFile) {
              const recs = timingRecords(readFileSync(timingFile, 'utf8'));
              records = records.concat(recs);
              if (recs.length) outside.push((wall - recs[0].at - recs.reduce((a, x) => a + x.total, 0)) / count);
            }
          } else {
            const t0 = performance.now();
            for (const d of diffs) {
              const g = gitJob(copies.git, d);
              if (g.error) {
                console.log(`\n!! git FAILED in the replay series: ${g.error}`);
                failed = true;
                break;
              }
            }
            if (!failed) git.push(performance.now() - t0);
          }
        }
        if (!failed) {
          const trees = [copies.ptx, copies.git].map((d) => gitTry(d, 'rev-parse', 'HEAD^{tree}').stdout.trim());
          const counts = [copies.ptx, copies.git].map((d) => gitTry(d, 'rev-list', '--count', 'HEAD').stdout.trim());
          if (trees[0] !== trees[1] || counts[0] !== String(count + 1) || counts[1] !== String(count + 1)) {
            console.log(`\n!! replay: the results differ: trees ${trees.join(' / ')}, commits ${counts.join(' / ')} (expected ${count + 1} each)`);
            failed = true;
          }
          const st = gitTry(copies.ptx, 'status', '--porcelain');
          if (st.stdout.trim()) {
            console.log(`\n!! replay: git status is not clean after patchtx's replay:\n${st.stdout.slice(0, 1000)}`);
            failed = true;
          }
        }
      } finally {
        cleanup(path.dirname(copies.ptx));
      }
    }
  } finally {
    cleanup(root);
  }
  if (ptx.length)
    console.log(`  patchtx ${spread(ptx)} ms (${ms(median(ptx) / count)} ms per patch), git ${spread(git)} ms (${ms(median(git) / count)} ms per patch)`);
  if (records.length >= 100) {
    // growth along the series (packs and commits pile up): the first and the last 50 transactions
    const first = records.slice(0, 50);
    const last = records.slice(count - 50, count);
    const col = (rs, f) => ms(median(rs.map(f)));
    console.log(
      `  per transaction (timing marks, run 1): first 50 entries ${col(first, (r) => r.total)} ms (objects: write ${col(first, (r) => r.phases['objects: write'] ?? 0)}), last 50 ${col(last, (r) => r.total)} ms (objects: write ${col(last, (r) => r.phases['objects: write'] ?? 0)})`,
    );
  }
  console.log('\nTargets (replay):');
  const q = median(ptx) / median(git);
  const v = target(
    `replay of ${count} patches: patchtx's whole replay <= ${TARGET}x git's`,
    ptx.length && git.length ? q <= TARGET : null,
    ptx.length ? `${ms(median(ptx))} vs ${ms(median(git))} ms = ${ratio(q)}` : undefined,
  );
  verdicts.push(v);
  if ((v === 'FAIL' || showPhases) && records.length)
    console.log(
      `         where patchtx's time goes, per patch: ${phaseLine(records)}; outside the transactions (reading the log, the replayed-entries scan, progress, start-up and exit spread over the patches) ${ms(median(outside))} ms per patch`,
    );
  return { verdicts, failed, incomplete: false };
}
