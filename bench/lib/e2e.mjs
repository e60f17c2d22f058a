// Part 2: end to end on real git repositories. `patchtx apply` with a V4A patch against
// `git apply --index` + `git commit` with the equivalent unified diff, each run on a fresh copy.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeChange } from './e2e-gen.mjs';
import { baseRepo, quick, repoSizes, touchCounts } from './bases.mjs';
import { cleanup, extraCaCerts, gitEnv, gitTry, makeWorkRoot, rssMethod, startMedian, timed } from './proc.mjs';
import { WorkCopy, freshMode } from './workcopy.mjs';
import { envInt, mb, median, ms, ratio, spread, table, target } from './report.mjs';
import { phaseLine, showPhases, timingRecords } from './phases.mjs';
import { probeLine } from './disk-probe.mjs';
import { gitEnv as baseEnv } from './proc.mjs';

// issue 17's targets for the CLI, one process per patch: for 10 files, patchtx minus `node -e 0`
// (measured in the same runs) against git's whole job; for 100 and 1,000 files, the whole of it
const LIMITS = { 10: 1.5, 100: 1.0, 1000: 0.8 };

/**
 * How the copy is left before each timed run: `synced` (restored, then `sync`: the files the run
 * replaces are on disk, their blocks written) or `unsynced` (restored, no sync: what the restore
 * wrote is still in the page cache, as after `git reset --hard`). BENCH_SYNC=1, 0 or both.
 */
const syncModes = (() => {
  const v = process.env.BENCH_SYNC ?? 'both';
  if (v === '1') return ['synced'];
  if (v === '0') return ['unsynced'];
  if (v === 'both') return ['synced', 'unsynced'];
  throw new Error(`BENCH_SYNC must be 1, 0 or both, got ${v}`);
})();
const patchtxEnv = process.env.BENCH_TIMING === '0' ? baseEnv : { ...baseEnv, PATCHTX_TIMING: '1' };
/** bare Node start-up, spawned as patchtx is (under /usr/bin/time when that measures RSS) */
const nodeRun = () => {
  const [file, argv] = rssMethod === 'time' ? ['/usr/bin/time', ['-f', '%M', '-o', os.devNull, process.execPath, '-e', '0']] : [process.execPath, ['-e', '0']];
  const t0 = performance.now();
  spawnSync(file, argv, { env: baseEnv, stdio: 'ignore' });
  return { ms: performance.now() - t0 };
};

const RSS_LIMIT_MB = 150;
const tail = (s, n = 40) => {
  const lines = s.trimEnd().split('\n');
  return (lines.length > n ? [`... (${lines.length - n} lines before)`, ...lines.slice(-n)] : lines).map((l) => `    | ${l}`).join('\n');
};

/** cheap check after every run: HEAD is one new commit on top of the base, with the expected tree */
function checkResult(work, repo, expectedTree) {
  const r = gitTry(work, 'log', '-1', '--format=%T %P', 'HEAD');
  const [tree, ...parents] = r.stdout.trim().split(' ');
  if (r.status !== 0) return `git log failed: ${r.stderr}`;
  if (parents.length !== 1 || parents[0] !== repo.head)
    return `HEAD is not exactly one new commit on top of the base (parents: ${parents.join(' ') || 'none'}, base: ${repo.head})`;
  if (tree !== expectedTree) return `HEAD^{tree} is ${tree}, expected ${expectedTree} (the tree of the change made in the scratch copy)`;
  return null;
}

/** thorough check, once per case and tool: fsck, clean status, still on main */
function checkThoroughly(work, fsck) {
  const problems = [];
  if (fsck) {
    const f = gitTry(work, 'fsck', '--no-progress', '--strict');
    if (f.status !== 0 || f.stdout.trim() || f.stderr.trim()) problems.push(`git fsck is not clean (exit ${f.status}):\n${tail(f.stdout + f.stderr)}`);
  }
  const s = gitTry(work, 'status', '--porcelain', '--untracked-files=all');
  if (s.status !== 0 || s.stdout.trim()) problems.push(`git status --porcelain is not empty:\n${tail(s.stdout + s.stderr)}`);
  const h = gitTry(work, 'symbolic-ref', 'HEAD');
  if (h.stdout.trim() !== 'refs/heads/main') problems.push(`HEAD is not refs/heads/main: ${h.stdout.trim()} ${h.stderr.trim()}`);
  return problems;
}

function dirBytes(dir) {
  const r = spawnSync('du', ['-sk', dir], { encoding: 'utf8' });
  return Number(r.stdout.split('\t')[0]) * 1024;
}

export async function runE2E({ repoRoot }) {
  const runs = envInt('BENCH_RUNS', quick ? 3 : 4);
  const sizes = repoSizes();
  const touches = touchCounts();
  const cli = path.resolve(repoRoot, process.env.BENCH_PATCHTX_CLI || 'dist/patchtx.cjs');
  const { applyDiff } = await import('@openai/agents-core');
  let cliProblem = existsSync(cli) ? null : `${cli} does not exist: build it first (npm run build; npm run bench builds and runs)`;

  console.log(`\n== End to end (git): repos of ${sizes.join(' / ')} files, patches touching ${touches.join(' / ')} files, ${runs} runs each ==`);
  console.log(`patchtx: node ${path.relative(process.cwd(), cli) || cli} apply --repo <copy> -m bench <patch.v4a>`);
  console.log(`git:     git apply --index <patch.diff> && git commit -q -m bench   (two spawns, both timed)`);
  console.log(
    `fresh repo per run: ${freshMode === 'copy' ? 'rm -rf + cp -a of the packed base repo' : 'cp -a once, then reset to pristine before each run (bench/lib/workcopy.mjs; BENCH_FRESH=copy for a full cp -a every run)'}, then git update-index --refresh, all untimed; ${syncModes.map((m) => (m === 'synced' ? 'synced: then `sync` (the files a run replaces are on disk)' : 'unsynced: no sync (what the restore wrote is in the page cache, as after git reset --hard)')).join('; ')}${syncModes.length > 1 ? ' -- both kinds in the same rotation, each reported' : ''}`,
  );
  console.log(
    `peak RSS: ${rssMethod === 'time' ? 'GNU /usr/bin/time -f %M around each command (wall time includes this wrapper for both tools)' : 'process.resourceUsage().maxRSS via bench/lib/rss-wrap.mjs (patchtx only)'}`,
  );
  // the floor under the 10-file case: what starting each tool costs before it does any work
  const nodeStart = startMedian(process.execPath, ['-e', '0']);
  // patchtx --version: Node plus loading the bundle (with its code cache) and parsing arguments, no work
  const patchtxStart = cliProblem ? null : startMedian(process.execPath, [cli, '--version']);
  console.log(
    `start-up floor (median of 9, measured now): node -e 0 ${ms(nodeStart)} ms, git --version ${ms(startMedian('git', ['--version']))} ms${patchtxStart === null ? '' : `, patchtx --version ${ms(patchtxStart)} ms`}`,
  );
  if (extraCaCerts !== undefined) {
    const withCerts = startMedian(process.execPath, ['-e', '0'], { ...gitEnv, NODE_EXTRA_CA_CERTS: extraCaCerts });
    console.log(
      `NODE_EXTRA_CA_CERTS is set here and is removed from both tools' environment: with it every Node start reads that CA bundle (node -e 0: ${ms(withCerts)} ms with it, ${ms(nodeStart)} ms without); patchtx opens no network connection`,
    );
  }
  // what separates the two kinds of copy: the cost of replacing a file whose blocks are on disk
  console.log(probeLine(os.tmpdir()));
  if (existsSync('/dev/shm')) console.log(probeLine('/dev/shm'));
  if (cliProblem) console.log(`\n!! patchtx end to end NOT MEASURED: ${cliProblem}\n`);

  const root = makeWorkRoot('e2e');
  const results = [];
  // the 10-file case of each repository size, kept for the paired size comparison at the end
  const kept = new Map();
  let pairedSizes = null;
  let failed = false;
  try {
    for (const size of sizes) {
      let t0 = performance.now();
      const repo = baseRepo(size);
      const repoBytes = dirBytes(repo.dir);
      const gitBytes = dirBytes(path.join(repo.dir, '.git'));
      const wc = new WorkCopy(repo, path.join(root, `work-${size}`));
      console.log(
        `\nrepo ${size} files: ${(repo.bytes / 1e6).toFixed(1)} MB of text, ${(repoBytes / 1e6).toFixed(1)} MB on disk (.git ${(gitBytes / 1e6).toFixed(1)} MB, packed), generated in ${repo.seconds.toFixed(1)} s`,
      );
      for (const touch of touches) {
        if (touch > size / 2) {
          console.log(`  skipping ${touch} files on a ${size}-file repo (more than half of it)`);
          continue;
        }
        t0 = performance.now();
        const caseDir = path.join(root, `case-${size}-${touch}`);
        wc.prepare();
        const change = makeChange(repo, touch, caseDir, wc.dir); // edits made in the work copy
        wc.touch(change.touched);
        const checked = change.selfCheck(applyDiff);
        console.log(
          `  case ${touch} files: ${change.updates} updates, ${change.adds} adds, ${change.deletes} deletes; V4A ${(change.v4aBytes / 1024).toFixed(0)} KB, unified diff ${(change.diffBytes / 1024).toFixed(0)} KB; prepared in ${((performance.now() - t0) / 1000).toFixed(1)} s (${checked} V4A bodies re-checked with applyDiff)`,
        );

        const work = wc.dir;
        const rssFile = path.join(root, 'rss');
        const patchtxRun = () => {
          const r = timed(cli, ['apply', '--repo', work, '-m', 'bench', change.v4aPath], { cwd: work, rssFile, node: true, env: patchtxEnv });
          return {
            ms: r.ms,
            rssKB: r.rssKB,
            timing: timingRecords(r.stderr),
            fail: r.status === 0 ? null : r,
            cmd: `node ${cli} apply --repo ${work} -m bench ${change.v4aPath}`,
          };
        };
        const gitRun = () => {
          const a = timed('git', ['apply', '--index', change.diffPath], { cwd: work, rssFile });
          if (a.status !== 0) return { fail: a, cmd: `git apply --index ${change.diffPath}` };
          const c = timed('git', ['commit', '-q', '-m', 'bench'], { cwd: work, rssFile });
          if (c.status !== 0) return { fail: c, cmd: 'git commit -q -m bench' };
          return { ms: a.ms + c.ms, rssKB: Math.max(a.rssKB ?? 0, c.rssKB ?? 0) || null };
        };
        // one entry per tool and kind of restore (synced or not); `node -e 0` beside the 10-file
        // case, in the same rotation, for the part of patchtx's time above Node's start-up
        const tools = [];
        for (const mode of syncModes) {
          for (const name of ['patchtx', 'git']) {
            tools.push({
              name,
              mode,
              run: name === 'patchtx' ? patchtxRun : gitRun,
              times: [],
              rss: [],
              timing: [],
              verified: false,
              failed: name === 'patchtx' && Boolean(cliProblem),
            });
          }
        }
        if (touch <= 10) tools.push({ name: 'node -e 0', mode: null, run: nodeRun, times: [], rss: [], timing: [], verified: true, failed: false, bare: true });
        for (let i = 0; i < runs; i++) {
          const order = i % 2 ? [...tools].reverse() : tools; // alternate who goes first
          for (const tool of order) {
            if (tool.failed) continue;
            if (tool.bare) {
              tool.times.push(tool.run().ms);
              continue;
            }
            wc.prepare(tool.mode === 'synced');
            wc.touch(change.touched);
            const r = tool.run();
            if (r.fail) {
              const f = r.fail;
              console.log(`\n!! ${tool.name} FAILED on ${touch} files / ${size}-file repo (run ${i + 1}, ${tool.mode}): ${r.cmd}`);
              console.log(`   exit ${f.status}${f.signal ? `, signal ${f.signal}` : ''}${f.error ? `, ${f.error.message}` : ''}`);
              if (f.stderr.trim()) console.log(`   stderr:\n${tail(f.stderr)}`);
              if (f.stdout.trim()) console.log(`   stdout:\n${tail(f.stdout)}`);
              tool.failed = true;
              failed = true;
              continue;
            }
            const problem = checkResult(work, repo, change.expectedTree);
            const problems = problem ? [problem] : [];
            if (!problem && !tool.verified) {
              problems.push(...checkThoroughly(work, tool.name === 'patchtx' || process.env.BENCH_FSCK_GIT === '1'));
              tool.verified = true;
            }
            if (problems.length) {
              console.log(
                `\n!! ${tool.name} produced a WRONG RESULT on ${touch} files / ${size}-file repo (run ${i + 1}):\n${problems.map((p) => `   - ${p}`).join('\n')}`,
              );
              tool.failed = true;
              failed = true;
              continue;
            }
            tool.times.push(r.ms);
            if (r.rssKB) tool.rss.push(r.rssKB);
            if (r.timing?.length === 1) tool.timing.push({ ...r.timing[0], wall: r.ms });
          }
        }
        const bare = tools.find((t) => t.bare);
        for (const mode of syncModes) {
          const [p, g] = ['patchtx', 'git'].map((n) => tools.find((t) => t.name === n && t.mode === mode));
          results.push({
            size,
            touch,
            mode,
            repoBytes,
            patchtx: p.failed ? [] : p.times,
            patchtxRss: p.failed ? [] : p.rss,
            timing: p.failed ? [] : p.timing,
            git: g.failed ? [] : g.times,
            gitRss: g.rss,
            node: bare ? bare.times : [],
          });
          const row = results[results.length - 1];
          const ok = (t) => (t.failed ? 'FAILED' : t.times.length ? 'equal' : 'not run');
          console.log(
            `    ${mode}: patchtx ${spread(row.patchtx)} ms, git ${spread(row.git)} ms${bare ? `, node -e 0 ${spread(bare.times)} ms` : ''}; result tree ${change.expectedTree.slice(0, 12)} (scratch copy): patchtx ${ok(p)}, git ${ok(g)}`,
          );
        }
        const p = tools[0];
        if (touch === 10 && (size === 2_000 || size === 20_000) && !p.failed) kept.set(size, { repo, wc, change, caseDir, run: patchtxRun });
        else cleanup(caseDir);
      }
      console.log(
        `  work copies (BENCH_FRESH=${freshMode}): ${wc.fullCopies} full cp -a, ${wc.restores} restores${wc.fallbacks ? `, ${wc.fallbacks} restores NOT pristine -> full copy` : ''}`,
      );
      if (!kept.has(size)) {
        wc.dispose();
      }
    }
    // The size target compares patchtx with itself on two repositories. Measured in two sections
    // of the run, minutes apart, it mostly measures how busy the machine was in each; here the
    // two cases alternate run by run, so both see the same conditions.
    const small = kept.get(2_000);
    const big = kept.get(20_000);
    if (small && big) {
      console.log(`\npaired: the 10-file case on the 2,000- and the 20,000-file repo, alternating, ${runs} runs each (${syncModes[0]})`);
      for (const k of [small, big]) k.times = [];
      let pairFailed = false;
      for (let i = 0; i < runs && !pairFailed; i++) {
        for (const k of i % 2 ? [big, small] : [small, big]) {
          k.wc.prepare(syncModes[0] === 'synced');
          k.wc.touch(k.change.touched);
          const r = k.run();
          const problem = r.fail ? `exit ${r.fail.status}: ${tail(r.fail.stderr)}` : checkResult(k.wc.dir, k.repo, k.change.expectedTree);
          if (problem) {
            console.log(`\n!! patchtx FAILED in the paired runs (${k.repo.nFiles}-file repo, run ${i + 1}): ${problem}`);
            failed = pairFailed = true;
            break;
          }
          k.times.push(r.ms);
        }
      }
      if (!pairFailed) {
        console.log(`  2,000-file repo ${spread(small.times)} ms, 20,000-file repo ${spread(big.times)} ms`);
        pairedSizes = { small: small.times, big: big.times };
      }
    }
  } finally {
    for (const k of kept.values()) {
      k.wc.dispose();
      cleanup(k.caseDir);
    }
    cleanup(root);
    if (process.env.BENCH_KEEP) console.log(`(BENCH_KEEP set: work files left in ${root})`);
  }

  console.log('');
  const aboveNode = (r) => median(r.patchtx) - median(r.node);
  table(
    [
      'files touched',
      'repo files',
      'copy',
      'patchtx ms median (min-max)',
      'git ms median (min-max)',
      'patchtx/git',
      'patchtx - node -e 0',
      '(that)/git',
      'patchtx peak RSS MB',
      'git peak RSS MB',
    ],
    results.map((r) => [
      String(r.touch),
      `${r.size} (${(r.repoBytes / 1e6).toFixed(0)} MB)`,
      r.mode,
      spread(r.patchtx),
      spread(r.git),
      ratio(median(r.patchtx) / median(r.git)),
      r.node.length ? ms(aboveNode(r)) : '',
      r.node.length ? ratio(aboveNode(r) / median(r.git)) : '',
      mb(Math.max(...r.patchtxRss)),
      mb(Math.max(...r.gitRss)),
    ]),
  );
  if (syncModes.length > 1) {
    const differ = results
      .filter((r) => r.mode === 'synced')
      .map((a) => {
        const b = results.find((r) => r.mode === 'unsynced' && r.size === a.size && r.touch === a.touch);
        return b && `${a.touch} files / ${a.size}: ${ratio(median(a.patchtx) / median(a.git))} synced, ${ratio(median(b.patchtx) / median(b.git))} unsynced`;
      })
      .filter(Boolean);
    console.log(`patchtx/git by kind of copy: ${differ.join('; ')}`);
  }

  console.log('\nTargets (end to end, one process per patch):');
  const verdicts = [];
  const have = (xs) => xs.length > 0;
  for (const r of results) {
    const limit = LIMITS[r.touch];
    if (limit === undefined) continue;
    const g = median(r.git);
    const bare = r.touch <= 10;
    const p = bare ? aboveNode(r) : median(r.patchtx);
    const label = bare ? `patchtx - node -e 0 <= ${limit}x git` : `patchtx <= ${limit}x git`;
    const v = target(
      `${label}: ${r.touch} files, ${r.size}-file repo, ${r.mode}`,
      have(r.patchtx) && have(r.git) && (!bare || have(r.node)) ? p <= limit * g : null,
      have(r.patchtx)
        ? bare
          ? `${ms(median(r.patchtx))} - ${ms(median(r.node))} = ${ms(p)} ms vs git ${ms(g)} ms (${ratio(p / g)}; whole patchtx/git ${ratio(median(r.patchtx) / g)})`
          : `${ms(p)} ms vs git ${ms(g)} ms (patchtx/git ${ratio(p / g)})`
        : undefined,
    );
    verdicts.push(v);
    if ((v === 'FAIL' || showPhases) && r.timing.length)
      console.log(
        `         where patchtx's time goes: ${phaseLine(
          r.timing,
          r.timing.map((t) => t.wall),
        )}`,
      );
  }
  const allRss = results.flatMap((r) => r.patchtxRss);
  verdicts.push(
    target(
      `patchtx peak RSS <= ${RSS_LIMIT_MB} MB (max over all runs)`,
      allRss.length ? Math.max(...allRss) / 1024 <= RSS_LIMIT_MB : null,
      allRss.length ? `${mb(Math.max(...allRss))} MB` : undefined,
    ),
  );
  const small = results.find((r) => r.touch === 10 && r.size === 2_000 && r.mode === syncModes[0]);
  const big = results.find((r) => r.touch === 10 && r.size === 20_000 && r.mode === syncModes[0]);
  if (small && big) {
    // the verdict uses the paired runs; the two sections' medians are shown beside them
    const sections =
      have(big.patchtx) && have(small.patchtx)
        ? `; in the sections above ${ms(median(big.patchtx))} / ${ms(median(small.patchtx))} ms = ${ratio(median(big.patchtx) / median(small.patchtx))}`
        : '';
    const gitRatio = have(big.git) && have(small.git) ? `; git (sections): ${ratio(median(big.git) / median(small.git))}` : '';
    const q = pairedSizes ? median(pairedSizes.big) / median(pairedSizes.small) : NaN;
    verdicts.push(
      target(
        'patchtx 10 files: 20,000-file repo <= 1.2x the 2,000-file repo (paired runs)',
        pairedSizes ? q <= 1.2 : null,
        pairedSizes
          ? `${ms(median(pairedSizes.big))} / ${ms(median(pairedSizes.small))} ms = ${ratio(q)}${sections}${gitRatio}`
          : sections || gitRatio
            ? `paired runs missing${sections}${gitRatio}`
            : undefined,
      ),
    );
  }
  return { verdicts, failed, incomplete: Boolean(cliProblem) };
}
