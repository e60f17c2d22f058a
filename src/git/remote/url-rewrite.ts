// git's URL rewriting: `url.<base>.insteadOf = <prefix>` makes a URL that starts with <prefix>
// start with <base> instead (`srv:repo.git` -> `https://git.example.com/repo.git`), and
// `url.<base>.pushInsteadOf` does the same for URLs pushed to only. The longest matching prefix
// wins. As git does, a remote's URL pushed to is rewritten by pushInsteadOf when one matches and by
// insteadOf otherwise, and an explicit pushurl by insteadOf alone (it is already the push URL).
import type { GitConfig } from '../repo/config.js';

/** The longest rule of `name` (insteadof, pushinsteadof) whose prefix starts `url`, applied; null when none matches. */
function rewrite(config: GitConfig, name: 'insteadof' | 'pushinsteadof', url: string): string | null {
  let best: { base: string; prefix: string } | null = null;
  for (const e of config.entries) {
    if (e.section !== 'url' || e.subsection === null || e.name !== name || e.value === null) continue;
    if (url.startsWith(e.value) && (best === null || e.value.length > best.prefix.length)) best = { base: e.subsection, prefix: e.value };
  }
  return best === null ? null : best.base + url.slice(best.prefix.length);
}

/** `url` as git fetches from it. */
export const fetchUrl = (config: GitConfig, url: string): string => rewrite(config, 'insteadof', url) ?? url;

/** `url` as git pushes to it: `explicit` when it is a remote's pushurl. */
export const pushUrl = (config: GitConfig, url: string, explicit: boolean): string =>
  (explicit ? null : rewrite(config, 'pushinsteadof', url)) ?? fetchUrl(config, url);

/** Whether a rule of either kind rewrites `url`. */
export const isRewritten = (config: GitConfig, url: string): boolean =>
  rewrite(config, 'insteadof', url) !== null || rewrite(config, 'pushinsteadof', url) !== null;
