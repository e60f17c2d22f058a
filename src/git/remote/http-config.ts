// git's per-URL HTTP settings for a remote: `http.extraHeader` (what CI checkouts write, an
// Authorization header, so that the job's token reaches the server) and `http.<url>.extraHeader`,
// chosen by git's URL matching (http.<url>.* in git-config): the scheme, host and port must be the
// same, the configured path a prefix of the URL's at a `/`, the configured user (if any) the URL's;
// a more specific match wins over a less specific one seen before, and one seen after a more
// specific one is ignored. An empty value clears the headers gathered so far. The TLS settings
// (http.sslVerify, http.sslCAInfo, http.sslCAPath, http.sslCert, http.sslKey, and their GIT_SSL_*
// variables) are chosen the same way, and handed to the HTTP client's TLS connection (see client.ts).
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
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

/** What the HTTP client is given for an https:// URL: the certificates to check the server's
 * against (or no check), and the client's own certificate and key when the server asks for one. */
export interface TlsSettings {
  /** in place of the default certificates, as git's http.sslCAInfo replaces them; with
   * http.sslCAPath alone, the default ones and those of the directory */
  ca?: Array<string | Buffer>;
  rejectUnauthorized?: false;
  /** http.sslCert: the certificate this client shows a server that asks for one */
  cert?: Buffer;
  /** http.sslKey (else the certificate's file, which may hold both): its private key */
  key?: Buffer;
}

/** `~/` at the start of a path setting is the home directory, as git reads its pathname settings. */
const expandHome = (file: string, env: NodeJS.ProcessEnv): string => (file.startsWith('~/') ? path.join(env.HOME ?? os.homedir(), file.slice(2)) : file);

/** The bytes of a file a TLS setting names; a file that cannot be read is the setting's usage error. */
function readSetting(file: string, key: string, what: string, url: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new PatchtxError('usage', `cannot read ${what} ${file} (${key}, for ${anonymizeUrl(url)}): ${(e as Error).message}`, { key, file });
  }
}

/** The files of a CA directory OpenSSL looks certificates up in (http.sslCAPath): those named by a
 * subject hash, as c_rehash names them (`1a2b3c4d.0`). */
function caDirectory(dir: string, url: string): Buffer[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new PatchtxError('usage', `cannot read the certificates directory ${dir} (http.sslcapath, for ${anonymizeUrl(url)}): ${(e as Error).message}`, {
      key: 'http.sslcapath',
      file: dir,
    });
  }
  return names.filter((n) => /^[0-9a-f]{8}\.\d+$/.test(n)).map((n) => readSetting(path.join(dir, n), 'http.sslcapath', 'the certificate', url));
}

/** A PEM private key protected by a passphrase (PKCS#8 or the traditional form). */
const isEncryptedKey = (pem: Buffer): boolean => /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: *4, *ENCRYPTED/.test(pem.toString('latin1'));

/**
 * git's TLS settings for `url`: http.sslVerify, http.sslCAInfo and http.sslCAPath (the server's
 * certificate check), http.sslCert and http.sslKey (the client's certificate), each chosen by URL
 * as git chooses them and each overridden by its environment variable as in git (GIT_SSL_NO_VERIFY,
 * GIT_SSL_CAINFO, GIT_SSL_CAPATH, GIT_SSL_CERT, GIT_SSL_KEY). A key protected by a passphrase is
 * refused (git would ask for the passphrase; patchtx asks nothing).
 */
export function tlsSettings(config: GitConfig, env: NodeJS.ProcessEnv, url: string): TlsSettings {
  if (!/^https:\/\//i.test(url)) return {};
  const last = (name: string): string | undefined => {
    const value = applicable(config, name, url).pop();
    return value === undefined || value === null || value === '' ? undefined : expandHome(value, env);
  };
  const verify = applicable(config, 'sslverify', url).pop();
  const off = verify !== undefined && verify !== null && /^(false|no|off|0)$/i.test(verify.trim());
  const settings: TlsSettings = {};
  if (env.GIT_SSL_NO_VERIFY !== undefined || off) {
    settings.rejectUnauthorized = false;
  } else {
    const file = env.GIT_SSL_CAINFO || last('sslcainfo');
    const dir = env.GIT_SSL_CAPATH || last('sslcapath');
    const fromDir = dir === undefined ? [] : caDirectory(dir, url);
    if (file !== undefined) settings.ca = [readSetting(file, 'http.sslcainfo', "http.sslCAInfo's certificates", url), ...fromDir];
    else if (dir !== undefined) settings.ca = [...rootCertificates, ...fromDir];
  }
  const certFile = env.GIT_SSL_CERT || last('sslcert');
  if (certFile === undefined) return settings;
  const keyFile = env.GIT_SSL_KEY || last('sslkey') || certFile;
  settings.cert = readSetting(certFile, 'http.sslcert', "http.sslCert's certificate", url);
  settings.key = keyFile === certFile ? settings.cert : readSetting(keyFile, 'http.sslkey', "http.sslKey's key", url);
  if (isEncryptedKey(settings.key)) {
    throw new PatchtxError(
      'usage',
      `the client key ${keyFile} (for ${anonymizeUrl(url)}) is protected by a passphrase, which patchtx does not ask for: use a key without one`,
      { key: keyFile === certFile ? 'http.sslcert' : 'http.sslkey', file: keyFile },
    );
  }
  return settings;
}
