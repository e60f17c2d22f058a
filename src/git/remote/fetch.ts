// Fetching one ref of a remote over smart HTTP(S) with isomorphic-git (one on this machine: local.ts): its commits and their
// objects come into this repository's object store (as a pack), and its value is returned. No ref
// of this repository is changed here: isomorphic-git's own remote-tracking ref is written under a
// name of this run's, and removed (the caller updates the refs it means to, with their locks).
// isomorphic-git takes where to write it from the remote's fetch refspec in the configuration:
// the configuration it reads (and only it) is given one for the run's name, so that the
// repository's own file is not written.
import fs from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { credentialCallbacks, unauthorized } from './credentials.js';
import { fetchLocal, isLocalRemote } from './local.js';

export interface FetchRefOptions {
  gitdir: string;
  url: string;
  /** the full ref to fetch (refs/heads/main, refs/notes/patchtx) */
  ref: string;
}

type IsoError = Error & { code?: string; data?: { statusCode?: number } };

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

/** The remote's value of `ref` (null: it has none), its objects now in this repository. */
export async function fetchRef(opts: FetchRefOptions): Promise<string | null> {
  if (isLocalRemote(opts.url)) return fetchLocal(opts.gitdir, opts.url, opts.ref);
  const git = await import('isomorphic-git');
  const { default: http } = await import('isomorphic-git/http/node');
  const scratch = `patchtx-fetch-${process.pid}`;
  try {
    // only what the server advertises for the ref: a ref it does not have is no error
    const auth = credentialCallbacks(opts.gitdir);
    const refs = await git.listServerRefs({ http, url: opts.url, prefix: opts.ref, ...auth });
    const found = refs.find((r) => r.ref === opts.ref);
    if (found === undefined) return null;
    const result = await git.fetch({
      fs: withRefspec(opts.gitdir, scratch, opts.ref),
      http,
      gitdir: opts.gitdir,
      url: opts.url,
      ...auth,
      remote: scratch,
      ref: opts.ref,
      remoteRef: opts.ref,
      singleBranch: true,
      tags: false,
    });
    return result.fetchHead ?? found.oid;
  } catch (e) {
    const err = e as IsoError;
    if (err instanceof PatchtxError) throw err;
    if (err.code === 'HttpError' && err.data?.statusCode === 401) throw unauthorized(opts.url, 'fetch from');
    throw new PatchtxError('io_error', `cannot fetch ${opts.ref} from ${opts.url}: ${err.message}`, { errno: err.code });
  } finally {
    fs.rmSync(path.join(opts.gitdir, 'refs', 'remotes', scratch), { recursive: true, force: true });
  }
}
