// The warm process: one Node process holding one library repository object (`openRepository`
// of the built dist/index.js), applying the patches the bench sends it, one JSON line each way:
//   in:  {"patch": "<file>"}          out: {"ms", "commit", "rss", "maxRss", "timing": [...]}
//   in:  {"exit": true}
// `ms` is the wall time of `repo.apply(text)` alone (the patch is read before the clock starts);
// rss is the resident set after the call, maxRss the process's peak so far (both kB). With
// PATCHTX_TIMING naming a file, the timing records the call wrote are handed back and the file
// emptied. Usage: node warm-worker.mjs <dist/index.js> <repository dir>
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const [lib, dir] = process.argv.slice(2);
const { openRepository } = await import(pathToFileURL(lib).href);
const repo = await openRepository({ dir });
const timingFile = process.env.PATCHTX_TIMING && process.env.PATCHTX_TIMING !== '1' ? process.env.PATCHTX_TIMING : null;
const reply = (o) => process.stdout.write(JSON.stringify(o) + '\n');
reply({ ready: true, rss: process.memoryUsage.rss() >> 10, maxRss: process.resourceUsage().maxRSS });

for await (const line of readline.createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.exit) break;
  const text = readFileSync(msg.patch, 'utf8');
  let out;
  const t0 = performance.now();
  try {
    const r = await repo.apply(text, { message: 'bench' });
    out = { ms: performance.now() - t0, commit: r.commit };
  } catch (e) {
    out = { ms: performance.now() - t0, error: `${e.kind ?? e.name}: ${e.message}` };
  }
  if (timingFile) {
    try {
      out.timing = readFileSync(timingFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      writeFileSync(timingFile, '');
    } catch {
      out.timing = [];
    }
  }
  reply({ ...out, rss: process.memoryUsage.rss() >> 10, maxRss: process.resourceUsage().maxRSS });
}
process.exit(0);
