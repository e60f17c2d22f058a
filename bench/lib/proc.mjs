// Process helpers: git with an isolated config and a fixed identity, repository copies, and
// timed child processes with their peak RSS.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/**
 * Set in some environments (a corporate or sandbox CA bundle): every Node process then reads and
 * parses that bundle at start, which costs tens of milliseconds and has nothing to do with either
 * tool (patchtx opens no network connection). It is removed from the children's environment; the
 * e2e header says so and prints what it costs here.
 */
export const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;

/** no user or system git config, a fixed identity and clock, for git and patchtx alike */
export const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench Author',
  GIT_AUTHOR_EMAIL: 'author@patchtx.invalid',
  GIT_COMMITTER_NAME: 'Bench Committer',
  GIT_COMMITTER_EMAIL: 'committer@patchtx.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};
delete gitEnv.NODE_EXTRA_CA_CERTS;

/** median wall ms of `runs` starts of `cmd args` (no /usr/bin/time wrapper), with `env` */
export function startMedian(cmd, args, env = gitEnv, runs = 9) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(cmd, args, { env, stdio: 'ignore' });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[runs >> 1];
}

/** runs git in `dir`, returns stdout (string, or Buffer with { raw: true }); throws with stderr on failure */
export function git(dir, ...args) {
  let raw = false;
  if (typeof args[args.length - 1] === 'object') raw = args.pop().raw;
  try {
    const out = execFileSync('git', args, { cwd: dir, env: gitEnv, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
    return raw ? out : out.toString('utf8');
  } catch (e) {
    throw new Error(`git ${args.join(' ')} failed in ${dir}:\n${e.stderr?.toString() ?? e.message}`);
  }
}

/** like git() but returns { status, stdout, stderr } instead of throwing */
export function gitTry(dir, ...args) {
  const r = spawnSync('git', args, { cwd: dir, env: gitEnv, maxBuffer: 1 << 30, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `cp -a src dest` */
export function copyRepo(src, dest) {
  const r = spawnSync('cp', ['-a', src, dest], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cp -a ${src} ${dest} failed: ${r.stderr}`);
}

/** a fresh work root under os.tmpdir(); remove it with cleanup() */
export function makeWorkRoot(tag) {
  return mkdtempSync(path.join(os.tmpdir(), `patchtx-bench-${tag}-`));
}

export function cleanup(dir) {
  if (dir && !process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
}

const here = path.dirname(fileURLToPath(import.meta.url));
const TIME = '/usr/bin/time';

/**
 * How peak RSS is measured: 'time' = GNU `/usr/bin/time -f %M` around the command (max RSS of
 * the process and its waited-for children, kB); 'wrapper' = bench/lib/rss-wrap.mjs imports the
 * Node program in-process and reports process.resourceUsage().maxRSS at exit (Node programs only).
 */
export const rssMethod = (() => {
  if (process.env.BENCH_RSS === 'wrapper' || !existsSync(TIME)) return 'wrapper';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'patchtx-bench-probe-'));
  try {
    const out = path.join(dir, 'rss');
    const r = spawnSync(TIME, ['-f', '%M', '-o', out, 'true']);
    return r.status === 0 && /^\d+\s*$/m.test(readFileSync(out, 'utf8')) ? 'time' : 'wrapper';
  } catch {
    return 'wrapper';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

/**
 * Runs `cmd args` in `cwd` with gitEnv, timing the wall clock around the whole child (including
 * the /usr/bin/time wrapper, ~1 ms). `node: true` marks a Node program (cmd = script path), which
 * the fallback wrapper can measure; `env` replaces gitEnv. Returns { ms, status, stdout, stderr, rssKB (or null) }.
 */
export function timed(cmd, args, { cwd, rssFile, node = false, env = gitEnv }) {
  let file = cmd;
  let argv = args;
  if (node) {
    file = process.execPath;
    argv = rssMethod === 'wrapper' ? [path.join(here, 'rss-wrap.mjs'), rssFile, cmd, ...args] : [cmd, ...args];
  }
  if (rssMethod === 'time') {
    argv = ['-f', '%M', '-o', rssFile, file, ...argv];
    file = TIME;
  }
  rmSync(rssFile, { force: true });
  const t0 = performance.now();
  const r = spawnSync(file, argv, { cwd, env, maxBuffer: 1 << 28, encoding: 'utf8' });
  const ms = performance.now() - t0;
  let rssKB = null;
  try {
    // GNU time writes "Command exited with non-zero status N" before the number on failure
    const m = /(\d+)\s*$/.exec(readFileSync(rssFile, 'utf8'));
    if (m) rssKB = Number(m[1]);
  } catch {
    /* no number: the program died before reporting */
  }
  return { ms, status: r.status, signal: r.signal, error: r.error, stdout: r.stdout ?? '', stderr: r.stderr ?? '', rssKB };
}
