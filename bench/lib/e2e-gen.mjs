// End-to-end benchmark input: a packed git repository of N code-like files, and for a number of
// touched files the same change as a V4A patch and as a unified diff (`git diff --cached` of the
// change made with plain file writes in a scratch copy).
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyEdits, codeLines, pickEdit, rng } from './codegen.mjs';
import { git } from './proc.mjs';

export const CONTEXT = 3;
const FILES_PER_DIR = 100;
const DIRS_PER_PKG = 20;

/** the path of file number i (0-based) in a generated repository */
export function repoFilePath(i) {
  const dir = Math.floor(i / FILES_PER_DIR);
  const pkg = Math.floor(dir / DIRS_PER_PKG);
  return `src/pkg_${String(pkg).padStart(2, '0')}/mod_${String(dir % DIRS_PER_PKG).padStart(2, '0')}/file_${String(i % FILES_PER_DIR).padStart(3, '0')}.ts`;
}

/** contents of file number i: 40..110 lines, ~2-5 KB */
export function repoFileLines(i) {
  const r = rng(0xf11e + i);
  return codeLines(r.int(40, 110), 0xc0de + i, i * 1000);
}

/**
 * Creates a repository of `nFiles` files at `dir` (nested dirs: src/pkg_PP/mod_MM/file_FFF.ts,
 * 100 files per directory), committed with the git CLI on branch main, then `git gc` (packed
 * objects, packed refs). Returns { dir, nFiles, bytes, head }.
 */
export function makeRepo(dir, nFiles) {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Bench User');
  git(dir, 'config', 'user.email', 'bench@patchtx.invalid');
  git(dir, 'config', 'core.autocrlf', 'false');
  let bytes = 0;
  let madeDir = '';
  for (let i = 0; i < nFiles; i++) {
    const p = path.join(dir, repoFilePath(i));
    const d = path.dirname(p);
    if (d !== madeDir) {
      mkdirSync(d, { recursive: true });
      madeDir = d;
    }
    const text = repoFileLines(i).lines.join('\n') + '\n';
    bytes += text.length;
    writeFileSync(p, text);
  }
  writeFileSync(path.join(dir, 'README.md'), `# bench repository\n\n${nFiles} generated files.\n`);
  git(dir, 'add', '-A');
  git(dir, '-c', 'gc.auto=0', 'commit', '-q', '-m', `base: ${nFiles} files`); // no background auto-gc racing the gc below
  git(dir, 'gc', '-q');
  const loose = /^count: (\d+)/m.exec(git(dir, 'count-objects', '-v'))[1];
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  let packedRefs = '';
  try {
    packedRefs = readFileSync(path.join(dir, '.git/packed-refs'), 'utf8');
  } catch {
    /* checked below */
  }
  if (loose !== '0' || !packedRefs.includes(head)) {
    throw new Error(`bench generator: ${dir} is not fully packed after git gc (loose objects: ${loose})`);
  }
  return { dir, nFiles, bytes, head };
}

/**
 * Plans and materialises a change touching `nTouch` files of `repo` (mostly Updates with 1-2
 * chunks each; max(1, nTouch/100) Adds and as many Deletes) in `scratch`, a pristine copy of the
 * repository (plain file writes, then `git add -A`; the caller resets it afterwards), writes `<caseDir>/patch.v4a` and
 * `<caseDir>/patch.diff`, and returns { v4aPath, diffPath, expectedTree, updates, adds, deletes,
 * v4aBytes, diffBytes, touched: { restore, remove }, selfCheck } where expectedTree is `git write-tree` of the scratch copy
 * after the change. `selfCheck(applyDiff)` re-applies every Update body with the given V4A
 * applier and compares with the written contents.
 */
export function makeChange(repo, nTouch, caseDir, scratch) {
  mkdirSync(caseDir, { recursive: true });
  const r = rng(nTouch * 7919 + repo.nFiles);
  const nAdd = Math.max(1, Math.round(nTouch / 100));
  const nDel = nAdd;
  const nUpd = nTouch - nAdd - nDel;
  if (nUpd < 1 || nUpd + nDel > repo.nFiles) throw new Error(`bench: cannot touch ${nTouch} files of ${repo.nFiles}`);

  // distinct files for updates and deletes, spread over the repository
  const chosen = new Set();
  while (chosen.size < nUpd + nDel) chosen.add(r.int(0, repo.nFiles - 1));
  const picked = [...chosen];
  const updIdx = picked.slice(0, nUpd);
  const delIdx = picked.slice(nUpd);

  const ops = []; // { path, v4a: string[] }
  const checks = [];
  const restore = []; // paths a run changes or deletes: copied back from the base to reset a work copy
  const remove = []; // paths a run creates (files, and the new directory): removed to reset a work copy
  for (const i of updIdx) {
    const p = repoFilePath(i);
    const file = repoFileLines(i);
    const n = file.lines.length;
    const edits = [];
    const first = pickEdit(r, file, r.int(CONTEXT, Math.floor(n / 3)), Math.floor(n / 2) - CONTEXT - 3, CONTEXT, `${i}_0`);
    if (first) edits.push(first);
    if (r() < 0.5 || !first) {
      const from = Math.max(Math.floor(n / 2) + CONTEXT + 1, first ? first.at + first.del + 2 * CONTEXT + 1 : 0);
      const second = pickEdit(r, file, from, n, CONTEXT, `${i}_1`);
      if (second) edits.push(second);
    }
    if (!edits.length) throw new Error(`bench generator: no edit fits in ${p}`);
    const { newLines, v4a } = applyEdits(file.lines, edits, CONTEXT);
    const before = file.lines.join('\n') + '\n';
    const after = newLines.join('\n') + '\n';
    const abs = path.join(scratch, p);
    if (readFileSync(abs, 'utf8') !== before) throw new Error(`bench generator: ${p} differs from its generator`);
    writeFileSync(abs, after);
    ops.push({ path: p, v4a: [`*** Update File: ${p}`, ...v4a] });
    restore.push(p);
    checks.push({ path: p, before, after, body: v4a.join('\n') + '\n' });
  }
  for (const i of delIdx) {
    const p = repoFilePath(i);
    unlinkSync(path.join(scratch, p));
    ops.push({ path: p, v4a: [`*** Delete File: ${p}`] });
    restore.push(p);
  }
  for (let k = 0; k < nAdd; k++) {
    const dir = path.dirname(repoFilePath(r.int(0, repo.nFiles - 1)));
    // the first Add goes into a new directory, the others into existing ones
    const p = k === 0 ? `${dir}/generated/added_${k}.ts` : `${dir}/added_${k}.ts`;
    remove.push(k === 0 ? `${dir}/generated` : p);
    const lines = codeLines(r.int(20, 60), 0xadd + k + nTouch, 9_000_000 + k * 1000).lines;
    mkdirSync(path.dirname(path.join(scratch, p)), { recursive: true });
    writeFileSync(path.join(scratch, p), lines.join('\n') + '\n');
    ops.push({ path: p, v4a: [`*** Add File: ${p}`, ...lines.map((l) => '+' + l)] });
  }
  ops.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const v4aText = ['*** Begin Patch', ...ops.flatMap((o) => o.v4a), '*** End Patch'].join('\n') + '\n';
  git(scratch, 'add', '-A');
  const diffText = git(scratch, 'diff', '--cached', '--no-renames', '--no-color', '--no-ext-diff', '-U3', { raw: true });
  const expectedTree = git(scratch, 'write-tree').trim();
  const numstat = git(scratch, 'diff', '--cached', '--no-renames', '--name-only').trim().split('\n');
  if (numstat.length !== nTouch) throw new Error(`bench generator: diff touches ${numstat.length} files, wanted ${nTouch}`);

  const v4aPath = path.join(caseDir, 'patch.v4a');
  const diffPath = path.join(caseDir, 'patch.diff');
  writeFileSync(v4aPath, v4aText);
  writeFileSync(diffPath, diffText);
  return {
    v4aPath,
    diffPath,
    expectedTree,
    updates: nUpd,
    adds: nAdd,
    deletes: nDel,
    v4aBytes: Buffer.byteLength(v4aText),
    diffBytes: diffText.length,
    touched: { restore, remove },
    selfCheck(applyDiff) {
      for (const c of checks) {
        const got = applyDiff(c.before, c.body);
        if (got !== c.after) throw new Error(`bench generator: V4A body for ${c.path} does not reproduce the change (checked with applyDiff)`);
      }
      return checks.length;
    },
  };
}
