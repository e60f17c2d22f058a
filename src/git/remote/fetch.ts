// Fetching one ref of a remote over smart HTTP(S) with isomorphic-git (one on this machine or over ssh: via-git.ts): its commits and their
// objects come into this repository's object store (as a pack), and its value is returned. No ref
// of this repository is changed here: isomorphic-git's own remote-tracking ref is written under a
// name of this run's, and removed (the caller updates the refs it means to, with their locks).
// isomorphic-git takes where to write it from the remote's fetch refspec in the configuration:
// the configuration it reads (and only it) is given one for the run's name, so that the
// repository's own file is not written.
// The pack a fetch writes is recorded as patchtx's own (own-packs.ts), so that the fold that keeps
// the number of patchtx's packs bounded takes it in too; a long-lived clone that retries its pushes
// would otherwise gather one pack per fetch until git's gc. Only a pack that was not there before
// the fetch: one of the same name already there is someone else's.
import fs from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { anonymizeUrl, credentialCallbacks, unauthorized, withoutCredentials } from './credentials.js';
import { httpClient } from './client.js';
import type { TlsSettings } from './http-config.js';
import { recordOwnPack } from '../objects/own-packs.js';
import { fetchViaGit, viaGitTransport } from './via-git.js';

export interface FetchRefOptions {
  gitdir: string;
  url: string;
  /** the full ref to fetch (refs/heads/main, refs/notes/patchtx) */
  ref: string;
  /**
   * a commit of this repository the remote has too (the tip a lost push was built on, the
   * remote's notes last merged): the server then sends only what came after it
   */
  have?: string;
  /** headers every HTTP request carries (git's http.extraHeader) */
  headers?: Record<string, string>;
  /** the server's certificate check and the client's certificate (git's http.ssl* settings) */
  tls?: TlsSettings;
}

type IsoError = Error & { code?: string; data?: { statusCode?: number; what?: string } };

/** `fs` whose reads of the repository's config file see a fetch refspec for `remote` too. */
function withRefspec(gitdir: string, remote: string, ref: string): { promises: typeof fs.promises } {
  const configFile = path.resolve(gitdir, 'config');
  const extra = `\n[remote "${remote}"]\n\tfetch = +${ref}:refs/remotes/${remote}/fetched\n`;
  const readFile = (async (file: fs.PathLike | fs.promises.FileHandle, options?: unknown) => {
    const data = await fs.promises.readFile(file as fs.PathLike, options as BufferEncoding);
    if (typeof file !== 'string' || path.resolve(file) !== configFile) return data;
    return typeof data === 'string' ? data + extra : Buffer.concat([data as Buffer, Buffer.from(extra)]);
  }) as typeof fs.promises.readFile;
  return { promises: { ...fs.promises, readFile } };
}

/** The file names in objects/pack/ (none when it does not exist yet). */
function packNames(gitdir: string): string[] {
  try {
    return fs.readdirSync(path.join(gitdir, 'objects', 'pack'));
  } catch {
    return [];
  }
}

/**
 * The remote's value of `ref` (null: it has none), its objects now in this repository. One
 * round of the protocol: the advertisement gives the ref's value (a ref the server does not have
 * is no error), then the objects are asked for. isomorphic-git tells the server of one commit this
 * repository has, the value of the local ref it is given: a scratch ref at `have` (or none), so
 * that the server can leave out what it knows is here. The fetched ref's own local value would
 * not do: a local branch or notes ref holds commits the server has never seen, and the server,
 * finding no commit in common, would send the ref's whole history.
 */
export async function fetchRef(opts: FetchRefOptions): Promise<string | null> {
  if (viaGitTransport(opts.url)) return fetchViaGit(opts.gitdir, opts.url, opts.ref);
  const git = await import('isomorphic-git');
  const http = await httpClient(opts);
  const scratch = `patchtx-fetch-${process.pid}`;
  const scratchDir = path.join(opts.gitdir, 'refs', 'remotes', scratch);
  try {
    const have = `refs/remotes/${scratch}/have`;
    if (opts.have !== undefined) {
      fs.mkdirSync(scratchDir, { recursive: true });
      fs.writeFileSync(path.join(opts.gitdir, have), `${opts.have}\n`);
    }
    const before = new Set(packNames(opts.gitdir));
    const result = await git.fetch({
      fs: withRefspec(opts.gitdir, scratch, opts.ref),
      http,
      gitdir: opts.gitdir,
      url: opts.url,
      headers: opts.headers,
      ...credentialCallbacks(opts.gitdir),
      remote: scratch,
      ref: have,
      remoteRef: opts.ref,
      singleBranch: true,
      tags: false,
    });
    // where isomorphic-git wrote the pack (its result has it, its types do not say so)
    const packfile = (result as { packfile?: string }).packfile;
    const written = packfile === undefined ? null : /pack-([0-9a-f]{40})\.pack$/.exec(packfile);
    if (written && !before.has(`pack-${written[1]}.pack`)) await recordOwnPack(opts.gitdir, written[1]!);
    // null only from a server with no refs at all
    return result.fetchHead;
  } catch (e) {
    const err = e as IsoError;
    if (err instanceof PatchtxError) throw err;
    // the advertisement does not name the ref
    if (err.code === 'NotFoundError' && err.data?.what === opts.ref) return null;
    if (err.code === 'HttpError' && err.data?.statusCode === 401) throw unauthorized(opts.url, 'fetch from');
    throw new PatchtxError('io_error', `cannot fetch ${opts.ref} from ${anonymizeUrl(opts.url)}: ${withoutCredentials(err.message, opts.url)}`, {
      errno: err.code,
    });
  } finally {
    fs.rmSync(scratchDir, { recursive: true, force: true });
  }
}
