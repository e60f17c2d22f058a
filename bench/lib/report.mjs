// Medians, number formatting and plain-text tables.

export function median(xs) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const ms = (x) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0)) : 'n/a');
export const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : 'n/a');
export const mb = (kb) => (Number.isFinite(kb) ? (kb / 1024).toFixed(1) : 'n/a');

/** "median (min-max)" of a list of milliseconds */
export function spread(xs) {
  if (!xs.length) return 'n/a';
  return `${ms(median(xs))} (${ms(Math.min(...xs))}-${ms(Math.max(...xs))})`;
}

/** prints rows (arrays of strings) under headers, columns padded; numbers right-aligned */
export function table(headers, rows) {
  const all = [headers, ...rows];
  const w = headers.map((_, i) => Math.max(...all.map((r) => String(r[i] ?? '').length)));
  const fmt = (r) =>
    r
      .map((c, i) => {
        const s = String(c ?? '');
        return i === 0 ? s.padEnd(w[i]) : s.padStart(w[i]);
      })
      .join('  ');
  console.log(fmt(headers));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of rows) console.log(fmt(r));
}

/** one target line: PASS / FAIL from a measured boolean, or NOT MEASURED */
export function target(text, pass, detail) {
  const verdict = pass === undefined || pass === null ? 'NOT MEASURED' : pass ? 'PASS' : 'FAIL';
  console.log(`  [${verdict.padEnd(4)}] ${text}${detail ? `  -- ${detail}` : ''}`);
  return verdict;
}

export function envInt(name, dflt) {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

export function envList(name, dflt) {
  const v = process.env[name];
  if (!v) return dflt;
  return v.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: bad entry ${JSON.stringify(s)}`);
    return n;
  });
}
