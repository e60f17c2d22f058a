// git's per-URL HTTP settings for a remote: `http.extraHeader` (what CI checkouts write, an
// Authorization header, so that the job's token reaches the server) and `http.<url>.extraHeader`,
// chosen by git's URL matching (http.<url>.* in git-config): the scheme, host and port must be the
// same, the configured path a prefix of the URL's at a `/`, the configured user (if any) the URL's;
// a more specific match wins over a less specific one seen before, and one seen after a more
// specific one is ignored. An empty value clears the headers gathered so far. The TLS settings
// http.sslVerify and http.sslCAInfo (and GIT_SSL_NO_VERIFY, GIT_SSL_CAINFO) are chosen the same way,
// and handed to the HTTP client's TLS connection (see client.ts).
import { readFileSync } from 'node:fs';
import { PatchtxError } from '../../errors.js';
import type { GitConfig } from '../repo/config.js';
import { anonymizeUrl } from './credentials.js';

/** How specifically a `http.<url>` subsection matches `url` (higher: more), or null when it does not. */
function specificity(pattern: string, url: URL): [number, number] | null {
  let p: URL;
  try {
    p = new URL(pattern);
  } catch {
    return null;
  }
  if (p.protocol !== url.protocol) return null;
  const hostOk =
    p.hostname === url.hostname ||
    (p.hostname.split('.').length === url.hostname.split('.').length &&
      p.hostname.split('.').every((label, i) => label === '*' || label === url.hostname.split('.')[i]));
  if (!hostOk || p.port !== url.port) return null;
  if (p.username !== '' && p.username !== url.username) return null;
  const prefix = p.pathname.replace(/\/+$/, '');
  const path = url.pathname;
  if (prefix !== '' && path !== prefix && !path.startsWith(`${prefix}/`)) return null;
  return [prefix.length, p.username === '' ? 0 : 1];
}

const better = (a: [number, number], b: [number, number]): number => a[0] - b[0] || a[1] - b[1];

/** The entries of `http[.<url>].<name>` that apply to `url`, as git keeps them (see above). */
function applicable(config: GitConfig, name: string, url: string): (string | null)[] {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return [];
  }
  let best: [number, number] = [-1, 0];
  const out: (string | null)[] = [];
  for (const e of config.entries) {
    if (e.section !== 'http' || e.name !== name) continue;
    const score = e.subsection === null ? ([-1, 0] as [number, number]) : specificity(e.subsection, target);
    if (score === null || better(score, best) < 0) continue;
    best = score;
    out.push(e.value);
  }
  return out;
}

/** The headers git would add to its requests to `url` (http.extraHeader). */
export function extraHeaders(config: GitConfig, url: string): Record<string, string> {
  let headers: Record<string, string> = {};
  for (const value of applicable(config, 'extraheader', url)) {
    if (value === null || value === '') {
      headers = {};
      continue;
    }
    const colon = value.indexOf(':');
    if (colon <= 0) throw new PatchtxError('usage', `http.extraHeader '${value.split(':')[0]}...' is not a header (NAME: VALUE)`, { key: 'http.extraheader' });
    headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/** What the HTTP client is given for an https:// URL: the certificates to check the server's against, or no check. */
export interface TlsSettings {
  /** in place of the default certificates, as git's http.sslCAInfo replaces them */
  ca?: Buffer;
  rejectUnauthorized?: false;
}

/** git's http.sslVerify and http.sslCAInfo for `url` (GIT_SSL_NO_VERIFY, GIT_SSL_CAINFO over them, as in git). */
export function tlsSettings(config: GitConfig, env: NodeJS.ProcessEnv, url: string): TlsSettings {
  if (!/^https:\/\//i.test(url)) return {};
  const last = (name: string): string | null | undefined => applicable(config, name, url).pop();
  const verify = last('sslverify');
  const off = verify !== undefined && verify !== null && /^(false|no|off|0)$/i.test(verify.trim());
  if (env.GIT_SSL_NO_VERIFY !== undefined || off) return { rejectUnauthorized: false };
  const file = env.GIT_SSL_CAINFO ?? last('sslcainfo');
  if (file === undefined || file === null || file === '') return {};
  try {
    return { ca: readFileSync(file) };
  } catch (e) {
    throw new PatchtxError('usage', `cannot read http.sslCAInfo's certificates ${file} (for ${anonymizeUrl(url)}): ${(e as Error).message}`, {
      key: 'http.sslcainfo',
      file,
    });
  }
}
