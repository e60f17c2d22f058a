// Part 1: the pure engine, in memory. patchtx's applyPatch (library face, dist/index.js) against
// applyDiff of @openai/agents-core on the same big file and the same chunks.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { makeEngineCase } from './engine-gen.mjs';
import { envInt, envList, median, ms, ratio, spread, table, target } from './report.mjs';

// A full GC before every timed call keeps one call's garbage out of the next call's time.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const decoder = new TextDecoder('utf-8', { fatal: true });
const asText = (v) => (typeof v === 'string' ? v : v instanceof Uint8Array ? decoder.decode(v) : v);

/** loads patchtx's applyPatch; returns { fn } or { problem } */
async function loadPatchtx(repoRoot) {
  const lib = path.resolve(repoRoot, process.env.BENCH_PATCHTX_LIB || 'dist/index.js');
  if (!existsSync(lib)) return { lib, problem: `${lib} does not exist: build it first (npm run build; npm run bench builds and runs)` };
  let mod;
  try {
    mod = await import(pathToFileURL(lib).href);
  } catch (e) {
    return { lib, problem: `importing ${lib} failed:\n${e.stack ?? e}` };
  }
  if (typeof mod.applyPatch !== 'function') {
    return { lib, problem: `${lib} has no applyPatch export (exports: ${Object.keys(mod).join(', ') || 'none'})` };
  }
  // parsePatch + planPatch (the engine below applyPatch, without its per-file unified diffs):
  // timed as an extra, informational column when the bundle exports them
  const plan =
    typeof mod.parsePatch === 'function' && typeof mod.planPatch === 'function'
      ? (text, path, bytes) =>
          mod.planPatch(mod.parsePatch(text), {
            read: (p) => (p === path ? bytes : undefined),
            isDirectory: (p) => path.startsWith(p + '/'),
          })
      : null;
  return { lib, fn: mod.applyPatch, plan };
}

function firstDifference(a, b) {
  const al = a.split('\n');
  const bl = b.split('\n');
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i]) return `line ${i + 1}: expected ${JSON.stringify(bl[i])}, got ${JSON.stringify(al[i])}`;
  }
  return 'identical lines (difference in line endings?)';
}

/** throws a loud error unless `out` is the expected text */
function verify(who, c, out) {
  if (out === c.expected) return;
  const what = typeof out === 'string' ? firstDifference(out, c.expected) : `result is ${out === null ? 'null' : typeof out}`;
  throw new Error(`OUTPUT MISMATCH: ${who} on ${c.lines} lines / ${c.chunks} chunks does not produce the expected file: ${what}`);
}

export async function runEngine({ repoRoot }) {
  // in-memory runs are cheap (tens of ms): more of them steady the medians on a noisy machine
  const runs = envInt('BENCH_ENGINE_RUNS', envInt('BENCH_RUNS', 21));
  const warmup = envInt('BENCH_WARMUP', 5);
  const sizes = envList('BENCH_ENGINE_LINES', [100_000, 200_000]);
  const nChunks = envInt('BENCH_ENGINE_CHUNKS', 500);
  const { applyDiff } = await import('@openai/agents-core');
  const px = await loadPatchtx(repoRoot);

  console.log(
    `\n== Engine (in memory): one ${sizes.map((s) => s / 1000 + 'k').join(' / ')}-line file, ${nChunks} chunks, ${runs} runs after ${warmup} warm-up ==`,
  );
  console.log(`patchtx: applyPatch(patchText, { [path]: text }) from ${px.lib}`);
  console.log(`peer:    applyDiff(text, diff) from @openai/agents-core (diff = the Update body, no envelope)`);
  if (px.problem) console.log(`\n!! patchtx engine NOT MEASURED: ${px.problem}\n`);

  const results = [];
  for (const n of sizes) {
    const c = makeEngineCase(n, nChunks);
    const files = { [c.path]: c.text };
    const contenders = [{ name: 'peer', call: () => applyDiff(c.text, c.diff), out: (r) => r, times: [] }];
    if (px.fn) {
      contenders.unshift({
        name: 'patchtx',
        call: () => px.fn(c.patch, files),
        out: (r) => asText(r?.files?.[c.path]),
        times: [],
        warnings: (r) => r?.warnings,
      });
    }
    if (px.plan) {
      const bytes = new TextEncoder().encode(c.text);
      contenders.push({
        name: 'plan',
        call: () => px.plan(c.patch, c.path, bytes),
        out: (r) => asText(r?.files?.get?.(c.path)),
        times: [],
      });
    }
    const once = async (k) => {
      gc();
      const t0 = performance.now();
      let r = k.call();
      if (r && typeof r.then === 'function') r = await r;
      const t = performance.now() - t0;
      verify(k.name, c, k.out(r));
      return { t, r };
    };
    for (let w = 0; w < warmup; w++) {
      for (const k of contenders) {
        const { r } = await once(k);
        const warns = k.warnings?.(r);
        if (w === 0 && Array.isArray(warns) && warns.length) {
          console.log(`note: patchtx reported ${warns.length} warning(s) on ${n} lines, first: ${JSON.stringify(warns[0])}`);
        }
      }
    }
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? [...contenders].reverse() : contenders; // alternate who goes first
      for (const k of order) k.times.push((await once(k)).t);
    }
    const get = (name) => contenders.find((k) => k.name === name)?.times ?? [];
    if (process.env.BENCH_DUMP) console.log(n, JSON.stringify(Object.fromEntries(contenders.map((k) => [k.name, k.times.map((t) => +t.toFixed(1))]))));
    results.push({ n, patchtx: get('patchtx'), peer: get('peer'), plan: get('plan') });
  }

  const rows = results.map((r) => {
    const p = median(r.patchtx);
    const q = median(r.peer);
    return [`${r.n / 1000}k lines, ${nChunks} chunks`, spread(r.patchtx), spread(r.peer), ratio(q / p), spread(r.plan)];
  });
  const [a, b] = results;
  const growth = (k) => (a && b ? median(b[k]) / median(a[k]) : NaN);
  console.log('');
  table(['case', 'patchtx ms median (min-max)', 'peer ms median (min-max)', 'peer/patchtx', 'info: patchtx plan only'], rows);
  if (a && b) {
    console.log(
      `growth ${b.n / 1000}k/${a.n / 1000}k (median/median): patchtx ${ratio(growth('patchtx'))}, peer ${ratio(growth('peer'))}, patchtx plan only ${ratio(growth('plan'))}`,
    );
  }
  console.log('(info: "plan only" = parsePatch + planPatch with bytes in and out, i.e. applyPatch without its unified diffs; not a target)');
  console.log('\nTargets (engine):');
  const verdicts = [];
  for (const r of results) {
    const q = median(r.peer) / median(r.patchtx);
    verdicts.push(target(`patchtx >= 2x faster than peer on ${r.n / 1000}k lines`, px.fn ? q >= 2 : null, px.fn ? `peer/patchtx = ${ratio(q)}` : undefined));
  }
  if (a && b) {
    const g = growth('patchtx');
    verdicts.push(target(`patchtx growth ${b.n / 1000}k/${a.n / 1000}k <= 2.3x`, px.fn ? g <= 2.3 : null, px.fn ? `${ratio(g)}` : undefined));
  }
  return { verdicts, incomplete: Boolean(px.problem) };
}
