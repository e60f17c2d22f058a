// Fallback peak-RSS probe, used only when GNU /usr/bin/time is not available:
//   node rss-wrap.mjs <out-file> <program.js> [args...]
// runs <program.js> in this process (as if it were the main module) and writes
// process.resourceUsage().maxRSS (kB) to <out-file> when the process exits.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [out, program, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], program, ...args];
process.on('exit', () => {
  writeFileSync(out, `${process.resourceUsage().maxRSS}\n`);
});
await import(pathToFileURL(program).href);
