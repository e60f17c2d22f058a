// The generated repositories, made once per bench run and shared by the sections (each works on
// copies of them and never changes them), and the settings every section reads alike.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeRepo } from './e2e-gen.mjs';
import { cleanup, makeWorkRoot } from './proc.mjs';
import { envList } from './report.mjs';

/** BENCH_QUICK=1: a short run to try the bench (the 2,000-file repository, 10 and 100 files, fewer runs) */
export const quick = process.env.BENCH_QUICK === '1';
export const repoSizes = () => [...new Set(envList('BENCH_REPO_FILES', quick ? [2_000] : [2_000, 20_000]))];
export const touchCounts = () => envList('BENCH_TOUCH', quick ? [10, 100] : [10, 100, 1_000]);

const made = new Map();
let root = null;

/** the packed repository of `size` generated files ({ dir, nFiles, bytes, head, seconds }), made on first use */
export function baseRepo(size) {
  if (!made.has(size)) {
    root ??= makeWorkRoot('repos');
    const t0 = performance.now();
    const repo = makeRepo(path.join(root, `base-${size}`), size);
    made.set(size, { ...repo, seconds: (performance.now() - t0) / 1000 });
  }
  return made.get(size);
}

export function disposeBases() {
  cleanup(root);
  made.clear();
  root = null;
}
