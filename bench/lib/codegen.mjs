// Deterministic generator of code-like text and of V4A chunks over it.
//
// Every generated "body" line carries a unique number, so any window of lines that contains a
// body line occurs exactly once in its file: the context of a chunk built around removed body
// lines is never ambiguous. Headers, closing braces and blank lines repeat, as in real code.

/** mulberry32: small, fast, seedable PRNG returning floats in [0, 1) */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  next.pick = (arr) => arr[Math.floor(next() * arr.length)];
  return next;
}

const VERBS = ['load', 'parse', 'merge', 'render', 'resolve', 'update', 'compute', 'format', 'validate', 'emit', 'flush', 'scan'];
const NOUNS = ['config', 'record', 'buffer', 'token', 'session', 'payload', 'index', 'entry', 'node', 'range', 'cursor', 'batch'];
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** one unique, code-like statement line; `id` makes it unique */
export function statement(r, id) {
  const v = r.pick(VERBS);
  const n = r.pick(NOUNS);
  const k = r.int(2, 9999);
  switch (r.int(0, 7)) {
    case 0:
      return `  const ${n}${id} = ${v}${cap(n)}(${r.pick(NOUNS)}s, ${k});`;
    case 1:
      return `  if (${n}${id} > ${k}) return ${v}(${n}${id}, "${n}-${id}");`;
    case 2:
      return `  ${n}s.push({ id: ${id}, value: ${k} * ${r.int(2, 64)}, tag: "${v}" });`;
    case 3:
      return `  // ${v} the ${n} for slot ${id} (limit ${k})`;
    case 4:
      return `  total${id % 7} += ${n}${id}.length + ${k};`;
    case 5:
      return `    log.debug("${v} ${n} #${id}", { ${n}: ${n}${id % 13}, limit: ${k} });`;
    case 6:
      return `  await this.${v}${cap(n)}(${id}, options.${n} ?? ${k});`;
    default:
      return `  for (let i${id} = 0; i${id} < ${k}; i${id}++) ${n}s[i${id}] ^= ${id};`;
  }
}

/**
 * `count` lines of code-like text: functions of 3..12 statements, a closing brace and a blank
 * line each. Returns { lines: string[], body: boolean[] } (body[i]: line i is a unique statement).
 * `idBase` offsets the unique numbers (use different bases for different files).
 */
export function codeLines(count, seed, idBase = 0) {
  const r = rng(seed);
  const lines = [];
  const body = [];
  let id = idBase;
  while (lines.length < count) {
    lines.push(`export function ${r.pick(VERBS)}${cap(r.pick(NOUNS))}${id}(${r.pick(NOUNS)}, options = {}) {`);
    body.push(false);
    const n = r.int(3, 12);
    for (let i = 0; i < n; i++) {
      id++;
      lines.push(statement(r, id));
      body.push(true);
    }
    lines.push('}');
    body.push(false);
    lines.push('');
    body.push(false);
    id++;
  }
  lines.length = count;
  body.length = count;
  return { lines, body };
}

/**
 * Picks an edit (remove 1-2 consecutive body lines, add 1-2 new lines) at or after `from`,
 * with `ctx` lines of context available on both sides and nothing beyond `limit`.
 * Returns { at, del, ins } or null.
 */
export function pickEdit(r, file, from, limit, ctx, tag) {
  const { lines, body } = file;
  const del = r.int(1, 2);
  const end = Math.min(limit, lines.length - ctx - del); // last allowed `at`
  for (let at = Math.max(from, ctx); at <= end; at++) {
    let ok = true;
    for (let j = 0; j < del; j++) if (!body[at + j]) ok = false;
    if (!ok) continue;
    const nIns = r.int(1, 2);
    const ins = [];
    for (let j = 0; j < nIns; j++) {
      ins.push(`  const patched_${tag}_${j} = ${r.pick(VERBS)}${cap(r.pick(NOUNS))}(${r.pick(NOUNS)}, ${r.int(2, 9999)}); // changed`);
    }
    return { at, del, ins };
  }
  return null;
}

/**
 * Applies `edits` (sorted by `at`, non-overlapping including their context) to `lines`.
 * Returns { newLines, v4a } where v4a is the list of V4A section lines: for each edit a bare
 * `@@`, `ctx` context lines, the `-` lines, the `+` lines, `ctx` context lines.
 */
export function applyEdits(lines, edits, ctx) {
  const newLines = [];
  const v4a = [];
  let pos = 0;
  let lastEnd = -1; // last line index already used as context
  for (const e of edits) {
    const start = e.at - ctx;
    const after = e.at + e.del; // first line after the removed ones
    if (start <= lastEnd || start < 0 || after + ctx > lines.length) {
      throw new Error(`bench generator: overlapping or out-of-range edit at line ${e.at}`);
    }
    for (; pos < e.at; pos++) newLines.push(lines[pos]);
    newLines.push(...e.ins);
    pos = after;
    v4a.push('@@');
    for (let i = start; i < e.at; i++) v4a.push(' ' + lines[i]);
    for (let i = e.at; i < after; i++) v4a.push('-' + lines[i]);
    for (const l of e.ins) v4a.push('+' + l);
    for (let i = after; i < after + ctx; i++) v4a.push(' ' + lines[i]);
    lastEnd = after + ctx - 1;
  }
  for (; pos < lines.length; pos++) newLines.push(lines[pos]);
  return { newLines, v4a };
}
