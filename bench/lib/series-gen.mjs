// A series of patches, each made against the repository as the patches before it left it (as an
// agent's session makes them): the warm section, the agent loop and the replay case apply the
// same series with patchtx and with git, each on its own copy, so that both see the same state
// before every patch. Each patch is written as V4A (for patchtx) and as a unified diff (for `git
// apply --index`) from the same edits; the diff is written here rather than by `git diff`, since a
// series of hundreds of patches would otherwise cost a git commit per patch to prepare. Whether
// the two copies end equal is checked by the caller (their trees after each patch).
import { applyEdits, codeLines, pickEdit, rng } from './codegen.mjs';
import { CONTEXT, repoFileLines, repoFilePath } from './e2e-gen.mjs';

const body = (l) => l.map(() => true);

/** The files of a generated repository as a series leaves them, made on first use. */
export class SeriesModel {
  constructor(nFiles, seed) {
    this.paths = Array.from({ length: nFiles }, (_, i) => repoFilePath(i));
    this.index = new Map(this.paths.map((p, i) => [p, i]));
    this.files = new Map(); // path -> { lines, body }
    this.r = rng(seed);
    this.serial = 0; // makes every new line and added file unique
  }

  file(p) {
    let f = this.files.get(p);
    if (!f) {
      f = repoFileLines(this.index.get(p));
      this.files.set(p, f);
    }
    return f;
  }

  /** `n` distinct live paths */
  pick(n) {
    const out = new Set();
    while (out.size < Math.min(n, this.paths.length)) out.add(this.paths[this.r.int(0, this.paths.length - 1)]);
    return [...out];
  }

  drop(p) {
    const i = this.paths.indexOf(p);
    this.paths[i] = this.paths[this.paths.length - 1];
    this.paths.pop();
    this.files.delete(p);
    this.index.delete(p);
  }

  /**
   * The next patch: `nTouch` files, mostly Updates of 1-2 chunks, `adds` new files and `deletes`
   * removed ones among them. Returns { v4a, diff, files }.
   */
  next(nTouch, { adds = 0, deletes = 0 } = {}) {
    const r = this.r;
    const nUpd = nTouch - adds - deletes;
    const chosen = this.pick(nUpd + deletes);
    const v4a = ['*** Begin Patch'];
    const diff = [];
    for (const p of chosen.slice(0, nUpd)) {
      const f = this.file(p);
      const n = f.lines.length;
      const tag = `s${++this.serial}`;
      const edits = [];
      const first = pickEdit(r, f, r.int(CONTEXT, Math.floor(n / 3)), Math.floor(n / 2) - CONTEXT - 3, CONTEXT, `${tag}_0`);
      if (first) edits.push(first);
      if (r() < 0.5 || !first) {
        const from = Math.max(Math.floor(n / 2) + CONTEXT + 1, first ? first.at + first.del + 2 * CONTEXT + 1 : 0);
        const second = pickEdit(r, f, from, n, CONTEXT, `${tag}_1`);
        if (second) edits.push(second);
      }
      if (!edits.length) throw new Error(`bench series: no edit fits in ${p}`);
      const { newLines, v4a: section } = applyEdits(f.lines, edits, CONTEXT);
      v4a.push(`*** Update File: ${p}`, ...section);
      diff.push(`diff --git a/${p} b/${p}`, `--- a/${p}`, `+++ b/${p}`);
      let shift = 0;
      for (const e of edits) {
        const start = e.at - CONTEXT;
        const oldLen = 2 * CONTEXT + e.del;
        const newLen = 2 * CONTEXT + e.ins.length;
        diff.push(`@@ -${start + 1},${oldLen} +${start + 1 + shift},${newLen} @@`);
        for (let i = start; i < e.at; i++) diff.push(' ' + f.lines[i]);
        for (let i = e.at; i < e.at + e.del; i++) diff.push('-' + f.lines[i]);
        for (const l of e.ins) diff.push('+' + l);
        for (let i = e.at + e.del; i < e.at + e.del + CONTEXT; i++) diff.push(' ' + f.lines[i]);
        shift += e.ins.length - e.del;
      }
      // the new lines are unique (their tag), so later chunks may remove them too
      const newBody = [];
      let pos = 0;
      for (const e of edits) {
        for (; pos < e.at; pos++) newBody.push(f.body[pos]);
        newBody.push(...body(e.ins));
        pos = e.at + e.del;
      }
      for (; pos < f.lines.length; pos++) newBody.push(f.body[pos]);
      this.files.set(p, { lines: newLines, body: newBody });
    }
    for (const p of chosen.slice(nUpd)) {
      const { lines } = this.file(p);
      v4a.push(`*** Delete File: ${p}`);
      diff.push(
        `diff --git a/${p} b/${p}`,
        'deleted file mode 100644',
        `--- a/${p}`,
        '+++ /dev/null',
        `@@ -1,${lines.length} +0,0 @@`,
        ...lines.map((l) => '-' + l),
      );
      this.drop(p);
    }
    for (let k = 0; k < adds; k++) {
      const near = this.paths[r.int(0, this.paths.length - 1)];
      const p = `${near.slice(0, near.lastIndexOf('/'))}/added_${++this.serial}.ts`;
      const { lines } = codeLines(r.int(20, 60), 0xadd + this.serial, 50_000_000 + this.serial * 1000);
      v4a.push(`*** Add File: ${p}`, ...lines.map((l) => '+' + l));
      diff.push(
        `diff --git a/${p} b/${p}`,
        'new file mode 100644',
        '--- /dev/null',
        `+++ b/${p}`,
        `@@ -0,0 +1,${lines.length} @@`,
        ...lines.map((l) => '+' + l),
      );
      this.paths.push(p);
      this.index.set(p, -1);
      this.files.set(p, { lines, body: body(lines) });
    }
    v4a.push('*** End Patch');
    return { v4a: v4a.join('\n') + '\n', diff: diff.join('\n') + '\n', files: nTouch };
  }
}

/** adds and deletes of a patch of `n` files: as the CLI section's patches (1% each, at least one) from 10 files up; for 1-3 files, now and then one */
export function mixFor(n, r) {
  if (n >= 10) {
    const k = Math.max(1, Math.round(n / 100));
    return { adds: k, deletes: k };
  }
  const x = r();
  return x < 0.08 ? { adds: 1, deletes: 0 } : x < 0.12 && n > 1 ? { adds: 0, deletes: 1 } : { adds: 0, deletes: 0 };
}
