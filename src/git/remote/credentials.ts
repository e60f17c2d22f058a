// Credentials for a remote that asks for them (HTTP 401), from git's own credential helpers, as
// `git push` gets them: `git credential fill` with the URL (credential.helper and the rest of the
// credential configuration of the repository apply), then `git credential approve` when the
// server took them or `git credential reject` when it did not. Never a prompt: a run of patchtx
// is unattended (GIT_TERMINAL_PROMPT=0), and without a helper that knows the server the request
// fails as it would have. A URL with the user and password in it needs none of this, and is shown
// without them (anonymizeUrl), as git shows it.
import { PatchtxError } from '../../errors.js';
import { runProgram } from '../repo/run-program.js';
import type { AuthCallback, AuthFailureCallback, AuthSuccessCallback, GitAuth } from 'isomorphic-git';

export interface CredentialCallbacks {
  onAuth: AuthCallback;
  onAuthSuccess: AuthSuccessCallback;
  onAuthFailure: AuthFailureCallback;
}

/** `git credential ACTION` in `gitdir`'s repository with `input`; its output, or null when it failed. */
async function gitCredential(gitdir: string, action: 'fill' | 'approve' | 'reject', input: string): Promise<string | null> {
  const ran = await runProgram('git', ['credential', action], {
    input,
    cwd: gitdir,
    env: { ...process.env, GIT_DIR: gitdir, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' },
  });
  return ran.error || ran.status !== 0 ? null : ran.stdout.toString('utf8');
}

const fields = (text: string): Map<string, string> =>
  new Map(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

const describe = (url: string, auth: GitAuth): string => `url=${url}\nusername=${auth.username ?? ''}\npassword=${auth.password ?? ''}\n\n`;

/** isomorphic-git's auth callbacks over git's credential helpers for the repository at `gitdir`. */
export function credentialCallbacks(gitdir: string): CredentialCallbacks {
  return {
    onAuth: async (url) => {
      const filled = await gitCredential(gitdir, 'fill', `url=${url}\n\n`);
      if (filled === null) return undefined;
      const f = fields(filled);
      const username = f.get('username');
      const password = f.get('password');
      return username === undefined && password === undefined ? undefined : { username, password };
    },
    onAuthSuccess: async (url, auth) => {
      await gitCredential(gitdir, 'approve', describe(url, auth));
    },
    // the request then fails with the server's 401 (a cancel would read as a lost lease)
    onAuthFailure: async (url, auth) => {
      await gitCredential(gitdir, 'reject', describe(url, auth));
      return undefined;
    },
  };
}

/** The server wants credentials no git credential helper gave (or it refused the ones given). */
export function unauthorized(url: string, what: string): PatchtxError {
  return new PatchtxError(
    'io_error',
    `cannot ${what} ${anonymizeUrl(url)}: the server wants credentials (HTTP 401), and no git credential helper (credential.helper) gave ones it accepts`,
    { errno: 'HTTP401' },
  );
}

/**
 * The URL as git shows it in messages: without the user and password a URL may carry
 * (https://bot:TOKEN@host/repo.git is shown as https://host/repo.git), which would otherwise end
 * up in CI logs.
 */
export function anonymizeUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@(.*)$/is.exec(url);
  return m === null ? url : `${m[1]}${m[2]}`;
}

/**
 * `text` (an error's message, git's or ssh's words) with the credentials of `url` left out: the URL
 * in it as anonymizeUrl shows it, and its password wherever it follows its user name (ssh names the
 * host it was given, which for `ssh://user:password@host/` is `user:password@host`).
 */
export function withoutCredentials(text: string, url: string): string {
  let out = text.split(url).join(anonymizeUrl(url));
  let user = '';
  let password = '';
  try {
    ({ username: user, password } = new URL(url));
  } catch {
    return out;
  }
  if (password === '') return out;
  for (const u of new Set([user, decoded(user)])) for (const p of new Set([password, decoded(password)])) out = out.split(`${u}:${p}@`).join(`${u}:***@`);
  return out;
}

/** A URL's percent-encoded part as written in plain (as it is when it is not valid encoding). */
const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
