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
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { PatchtxError } from '../../errors.js';
import { expandHome, type GitConfig } from '../repo/config.js';
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

/** A file one of the settings names: where it came from (for messages), and its path. */
interface SettingFile {
  /** the setting, lower case as git names it (http.sslcainfo), or the environment variable */
  key: string;
  file: string;
}

/** The bytes of a file a TLS setting names; a file that cannot be read is the setting's usage error. */
function readSetting(s: SettingFile, what: string, url: string): Buffer {
  try {
    return readFileSync(s.file);
  } catch (e) {
    throw new PatchtxError('usage', `cannot read ${what} ${s.file} (${s.key}, for ${anonymizeUrl(url)}): ${(e as Error).message}`, {
      key: s.key,
      file: s.file,
    });
  }
}

/** The certificates of a CA directory OpenSSL looks them up in (http.sslCAPath): the files named
 * by a subject hash, as c_rehash names them (`1a2b3c4d.0`); one that cannot be read (a dangling
 * link) is passed over, as OpenSSL passes it over. */
function caDirectory(s: SettingFile, url: string): Buffer[] {
  let names: string[];
  try {
    names = readdirSync(s.file);
  } catch (e) {
    throw new PatchtxError('usage', `cannot read the certificates directory ${s.file} (${s.key}, for ${anonymizeUrl(url)}): ${(e as Error).message}`, {
      key: s.key,
      file: s.file,
    });
  }
  const found: Buffer[] = [];
  for (const n of names.filter((name) => /^[0-9a-f]{8}\.\d+$/.test(name))) {
    try {
      found.push(readFileSync(path.join(s.file, n)));
    } catch {
      // not a readable file: not a certificate OpenSSL would find either
    }
  }
  return found;
}

/** The certificates Node checks a server's against by default: its own roots and those of
 * NODE_EXTRA_CA_CERTS, which a `ca` option given would otherwise leave out. */
function defaultCertificates(env: NodeJS.ProcessEnv): Array<string | Buffer> {
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (!extra) return [...rootCertificates];
  try {
    return [...rootCertificates, readFileSync(extra)];
  } catch {
    return [...rootCertificates]; // Node itself warns about such a file and goes on without it
  }
}

/** A PEM private key protected by a passphrase (PKCS#8 or the traditional form). */
const isEncryptedKey = (pem: Buffer): boolean => /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: *4, *ENCRYPTED/.test(pem.toString('latin1'));

/** The client certificate and key, checked before anything is sent: each must be what it is said
 * to be (PEM, as git's default http.sslCertType and http.sslKeyType), and the key not protected. */
function clientCertificate(cert: SettingFile, key: SettingFile, url: string): { cert: Buffer; key: Buffer } {
  const certBytes = readSetting(cert, "http.sslCert's certificate", url);
  const keyBytes = key.file === cert.file ? certBytes : readSetting(key, "http.sslKey's key", url);
  const refuse = (s: SettingFile, why: string): PatchtxError =>
    new PatchtxError('usage', `the client ${why} ${s.file} (${s.key}, for ${anonymizeUrl(url)})`, { key: s.key, file: s.file });
  try {
    new X509Certificate(certBytes);
  } catch {
    throw refuse(cert, 'certificate is not a certificate in PEM form:');
  }
  if (isEncryptedKey(keyBytes)) throw refuse(key, 'key is protected by a passphrase, which patchtx does not ask for (use a key without one):');
  try {
    createPrivateKey(keyBytes);
  } catch {
    throw refuse(key, 'key is not a private key in PEM form:');
  }
  return { cert: certBytes, key: keyBytes };
}

/**
 * git's TLS settings for `url`: http.sslVerify, http.sslCAInfo and http.sslCAPath (the server's
 * certificate check), http.sslCert and http.sslKey (the client's certificate), each chosen by URL
 * as git chooses them and each overridden by its environment variable as in git (GIT_SSL_NO_VERIFY,
 * GIT_SSL_CAINFO, GIT_SSL_CAPATH, GIT_SSL_CERT, GIT_SSL_KEY). A relative path is taken from `base`
 * (the working tree's top, or the git directory of a bare repository: where git runs). A setting
 * set but empty is refused, as git refuses it; so is a key protected by a passphrase (git would
 * ask for it; patchtx asks nothing).
 */
export function tlsSettings(config: GitConfig, env: NodeJS.ProcessEnv, url: string, base: string): TlsSettings {
  if (!/^https:\/\//i.test(url)) return {};
  const setting = (name: string, variable: string): SettingFile | undefined => {
    const fromEnv = env[variable];
    // (a key written without `=` reads as not set)
    const value = fromEnv ?? applicable(config, name, url).pop() ?? undefined;
    if (value === undefined) return undefined;
    const key = fromEnv !== undefined ? variable : `http.${name}`;
    if (value === '') {
      throw new PatchtxError('usage', `${key} is set but empty (for ${anonymizeUrl(url)}): give it a file, or unset it`, { key });
    }
    return { key, file: path.resolve(base, fromEnv !== undefined ? value : expandHome(value, env.HOME ?? os.homedir())) };
  };
  const verify = applicable(config, 'sslverify', url).pop();
  const off = verify !== undefined && verify !== null && /^(false|no|off|0)$/i.test(verify.trim());
  const settings: TlsSettings = {};
  if (env.GIT_SSL_NO_VERIFY !== undefined || off) {
    settings.rejectUnauthorized = false;
  } else {
    const file = setting('sslcainfo', 'GIT_SSL_CAINFO');
    const dir = setting('sslcapath', 'GIT_SSL_CAPATH');
    const fromDir = dir === undefined ? [] : caDirectory(dir, url);
    if (file !== undefined) settings.ca = [readSetting(file, "http.sslCAInfo's certificates", url), ...fromDir];
    else if (dir !== undefined) settings.ca = [...defaultCertificates(env), ...fromDir];
  }
  const cert = setting('sslcert', 'GIT_SSL_CERT');
  if (cert === undefined) return settings;
  return { ...settings, ...clientCertificate(cert, setting('sslkey', 'GIT_SSL_KEY') ?? cert, url) };
}
