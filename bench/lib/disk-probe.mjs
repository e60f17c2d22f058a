// What removing a file costs on the storage the bench runs on, synced or not: on a file system
// mounted with online discard, removing a file whose blocks were written costs a discard of those
// blocks (and on ext4 a file not yet synced may have no blocks yet: delayed allocation), and both
// tools remove (then write anew) every file a patch changes. Printed in the CLI
// section's header, with the mount options, so that its two kinds of copy can be read.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, ms } from './report.mjs';

/** the mount (point, type, options) holding `dir`, from /proc/mounts; null elsewhere */
export function mountOf(dir) {
  let best = null;
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, point, type, options] = line.split(' ');
      if (!point) continue;
      const inside = dir === point || dir.startsWith(point.endsWith('/') ? point : `${point}/`);
      if (inside && (!best || point.length > best.point.length)) best = { point, type, options };
    }
  } catch {
    /* not Linux */
  }
  return best;
}

/**
 * ms per file of replacing `n` 4 KB files (unlink, then write anew, as both tools do for a file a
 * patch changes) in a fresh directory under `root`, with the old files synced first or not
 */
export function replaceCost(root, synced, n = 300) {
  const dir = mkdtempSync(path.join(root, 'patchtx-bench-probe-'));
  try {
    const data = Buffer.alloc(4096, 'x');
    const files = Array.from({ length: n }, (_, i) => path.join(dir, `f${i}`));
    for (const f of files) writeFileSync(f, data);
    if (synced) spawnSync('sync');
    const t0 = performance.now();
    for (const f of files) {
      unlinkSync(f);
      writeFileSync(f, data);
    }
    return (performance.now() - t0) / n;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function probeLine(root) {
  const m = mountOf(root);
  const one = (synced) => median([0, 1, 2].map(() => replaceCost(root, synced)));
  return `replacing a 4 KB file (unlink, write) in ${root} (${m ? `${m.type} at ${m.point}, options ${m.options}` : 'mount unknown'}): ${ms(one(true))} ms per file when the old files were synced, ${ms(one(false))} ms when not (300 files, median of 3)`;
}
