// A directory as the reference harness compares it: every file (bytes) and every directory,
// by relative path; symlinks and other node kinds are skipped. `.git` is left out.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Snapshot = Map<string, { kind: 'dir' } | { kind: 'file'; bytes: string }>;

export function snapshotDir(root: string, skipGit = true): Snapshot {
  const out: Snapshot = new Map();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (skipGit && rel === '' && name === '.git') continue;
      const abs = path.join(dir, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(abs);
      if (st.isDirectory()) {
        out.set(r, { kind: 'dir' });
        walk(abs, r);
      } else if (st.isFile()) {
        // hex keeps CR, NUL and invalid UTF-8 visible in a failing assertion
        out.set(r, { kind: 'file', bytes: readFileSync(abs).toString('hex') });
      }
    }
  };
  try {
    walk(root, '');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return out;
}
