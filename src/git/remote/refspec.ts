// A remote's remote-tracking ref for a branch, as git finds it: through the remote's fetch
// refspecs (`remote.<name>.fetch`, `+refs/heads/*:refs/remotes/<name>/*` as `git clone` writes
// them), not from the remote's name, which may hold a `/` (`git clone -o team/up`). A remote with
// no fetch refspec (a bare clone) has no remote-tracking refs; a negative refspec (`^refs/...`)
// that matches the branch leaves it without one too.
import type { GitConfig } from '../repo/config.js';

/** `name` mapped through the pattern pair `src`, `dst` (at most one `*` each), or null when `src` does not match. */
function mapThrough(src: string, dst: string, name: string): string | null {
  const star = src.indexOf('*');
  if (star < 0) return src === name ? dst : null;
  const prefix = src.slice(0, star);
  const suffix = src.slice(star + 1);
  if (name.length < prefix.length + suffix.length || !name.startsWith(prefix) || !name.endsWith(suffix)) return null;
  const middle = name.slice(prefix.length, name.length - suffix.length);
  return dst.includes('*') ? dst.replace('*', middle) : null;
}

/** Whether a negative refspec's pattern (`^refs/heads/wip/*`) names `name`. */
const excludes = (pattern: string, name: string): boolean => mapThrough(pattern, pattern, name) !== null;

/** The ref `ref` of `remote` is fetched into here (refs/remotes/origin/main), or null when none is. */
export function trackingRefFor(config: GitConfig, remote: string, ref: string): string | null {
  const specs = config.getAll(`remote.${remote}.fetch`).map((s) => s.trim());
  if (specs.some((s) => s.startsWith('^') && excludes(s.slice(1), ref))) return null;
  for (const spec of specs) {
    if (spec.startsWith('^')) continue;
    const plain = spec.startsWith('+') ? spec.slice(1) : spec;
    const colon = plain.indexOf(':');
    if (colon < 0) continue;
    const dst = plain.slice(colon + 1);
    const mapped = dst === '' ? null : mapThrough(plain.slice(0, colon), dst, ref);
    if (mapped !== null) return mapped;
  }
  return null;
}
