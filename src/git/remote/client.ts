// isomorphic-git's Node HTTP client with git's HTTP settings for one remote (http-config.ts): the
// extra headers go with every request through isomorphic-git's own `headers`; the TLS settings
// (the certificates to check the server's against, or no check; the client's own certificate) through the client's options of
// the connection, which it hands to Node's https.request (they mean nothing to an http:// URL).
import type { HttpClient } from 'isomorphic-git';
import type { TlsSettings } from './http-config.js';

/** The HTTP settings of a remote, as fetchRef and pushRef take them. */
export interface HttpSettings {
  /** headers every request carries (git's http.extraHeader) */
  headers?: Record<string, string>;
  /** the server's certificate check and the client's certificate (git's http.ssl* settings) */
  tls?: TlsSettings;
}

/** The client isomorphic-git is given for a fetch or push with `settings`. */
export async function httpClient(settings: HttpSettings): Promise<HttpClient> {
  const { default: http } = await import('isomorphic-git/http/node');
  const tls = settings.tls ?? {};
  if (Object.keys(tls).length === 0) return http;
  // the Node client passes fetchOptions on to the request of each connection
  return { request: (req) => http.request({ ...req, fetchOptions: { ...tls } } as Parameters<HttpClient['request']>[0]) };
}
