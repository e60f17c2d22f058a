// Where patchtx's time goes: the timing records its transactions write with PATCHTX_TIMING set
// (src/timing.ts: one JSON line per transaction, phase -> ms, and the fsync time inside them),
// summarised as the median of each phase over a case's runs.
import { median, ms } from './report.mjs';

/** the records in a text (a CLI's stderr, a timing file): lines of {"timing":1,...} */
export function timingRecords(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{"timing":')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      /* a line cut short: not counted */
    }
  }
  return out;
}

/**
 * One line per case: the median of each phase over `records`, in the order the phases came.
 * `walls` (optional, same order): the wall time of each run measured outside, to show the time
 * before the transaction started (a CLI's start-up) and after it ended (exit).
 */
export function phaseLine(records, walls) {
  if (!records.length) return '(no timing records)';
  const names = [];
  for (const r of records) for (const k of Object.keys(r.phases)) if (!names.includes(k)) names.push(k);
  const parts = names.map((k) => `${k} ${ms(median(records.map((r) => r.phases[k] ?? 0)))}`);
  const fsync = records.map((r) => r.within?.fsync ?? 0);
  const total = median(records.map((r) => r.total));
  let head = '';
  if (walls && walls.length === records.length) {
    head = `before the transaction (start-up) ${ms(median(records.map((r) => r.at)))}, `;
    const after = walls.map((w, i) => w - records[i].at - records[i].total);
    parts.push(`after it (exit) ${ms(median(after))}`);
  }
  return `${head}${parts.join(', ')}; marked total ${ms(total)}${median(fsync) > 0 ? `, of which fsync ${ms(median(fsync))}` : ''} (medians ms, ${records.length} runs)`;
}

/** BENCH_TIMING=all: the phases of every case, not only of those whose target fails */
export const showPhases = process.env.BENCH_TIMING === 'all';
