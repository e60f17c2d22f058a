// The commit hooks `git commit` runs, run on patchtx's commits the same way, so that a Change-Id or
// Signed-off-by line a hook adds is in the commit and a commit-msg hook can refuse it:
//   prepare-commit-msg FILE message   then   commit-msg FILE   (the message is written to FILE,
//   each hook may edit it, a hook that fails refuses the commit), and post-commit once the ref
//   has moved (its status is ignored, as git ignores it).
// `noVerify` skips commit-msg only, as `git commit --no-verify` does. pre-commit is never run: it
// checks what the index stages for the commit, and a transaction stages nothing there (its commit
// is made from the patch, and the index is brought in line only after the ref moved).
// The hooks run before the commit object is written: a refusal leaves nothing behind.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PatchtxError } from '../errors.js';
import { indexPathOf } from '../git/index/read.js';
import { appendTrailers, readTrailers, type Trailer } from '../git/objects/model/trailers.js';
import { formatTimezone, type Identity } from '../git/objects/model/identity.js';
import { findHook, ignoredHook, runHook } from '../git/repo/hooks.js';
import type { Session } from '../tx/session.js';

export interface HookContext {
  author: Identity;
  /** the run holds the index lock (checkout mode): the message file is git's own COMMIT_EDITMSG */
  checkout: boolean;
  /** skip commit-msg */
  noVerify?: boolean;
}

/** The environment git gives the commit hooks: the repository, the index, the author, no editor. */
function hookEnv(session: Session, ctx: HookContext): NodeJS.ProcessEnv {
  const { author } = ctx;
  return {
    ...session.env,
    GIT_DIR: path.resolve(session.repo.gitdir),
    ...(ctx.checkout ? { GIT_INDEX_FILE: path.resolve(indexPathOf(session.repo)) } : {}),
    GIT_PREFIX: '',
    GIT_EDITOR: ':',
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: `@${author.timestamp} ${formatTimezone(author.timezoneOffset)}`,
  };
}

/**
 * git's cleanup of a message given on the command line (`--cleanup=whitespace`): trailing
 * whitespace off every line, runs of blank lines made one, no blank lines at either end, and a
 * final newline.
 */
export function cleanupWhitespace(message: string): string {
  const out: string[] = [];
  for (const raw of message.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.length === 0 ? '' : out.join('\n') + '\n';
}

function refusedBy(hook: string, status: number | null, output: string): PatchtxError {
  const said = output.trim() === '' ? '' : `:\n${output.trimEnd()}`;
  const how = status === null ? 'was killed by a signal' : `exited with status ${status}`;
  return new PatchtxError('commit_refused', `the ${hook} hook refused the commit (it ${how}); nothing was committed${said}`, { hook, status, output });
}

/** What a hook that let the commit through printed, shown as git shows it. */
function showOutput(output: string): void {
  if (output !== '') process.stderr.write(output);
}

type MessageHook = 'prepare-commit-msg' | 'commit-msg';

/** The names of the hooks a commit's message may go through, in order: prepare-commit-msg, and commit-msg unless `noVerify`. */
const messageHookNames = (noVerify = false): readonly MessageHook[] => ['prepare-commit-msg', ...(noVerify ? [] : (['commit-msg'] as const))];

/** The hooks a commit's message goes through, in order (messageHookNames), those that are there to run. */
export function messageHooks(session: Session, noVerify = false): Array<{ name: MessageHook; file: string }> {
  const { repo, config, env } = session;
  return messageHookNames(noVerify)
    .map((name) => ({ name, file: findHook(repo, config, env, name) }))
    .filter((h): h is { name: MessageHook; file: string } => h.file !== null);
}

/**
 * git's hint for hooks that are there but not executable, which it skips (advice.ignoredHook=false
 * silences it): a hook someone meant to run is not run, and nothing else would say so.
 */
function hintIgnored(session: Session, names: readonly string[]): void {
  if (session.config.getBool('advice.ignoredHook') === false) return;
  for (const name of names) {
    const file = ignoredHook(session.repo, session.config, session.env, name);
    if (file === null) continue;
    process.stderr.write(
      `hint: The '${file}' hook was ignored because it's not set as executable.\n` +
        'hint: You can disable this warning with `git config advice.ignoredHook false`.\n',
    );
  }
}

/**
 * `message` without the lines of `trailers` it still has outside its trailer block (a hook that
 * appended a paragraph of its own left them in one that is no longer the last): they are appended
 * to the block again, and would otherwise be there twice.
 */
function withoutLines(message: string, trailers: readonly Trailer[]): string {
  if (trailers.length === 0) return message;
  const lines = new Set(trailers.map((t) => `${t.key}: ${t.value}`));
  return cleanupWhitespace(
    message
      .split('\n')
      .filter((l) => !lines.has(l))
      .join('\n'),
  );
}

/**
 * The message after prepare-commit-msg and commit-msg; `message` itself when neither hook is
 * there. patchtx's own trailers (`kept`) stay in it: a hook that dropped one gets it back.
 */
export async function messageThroughHooks(session: Session, message: string, kept: readonly Trailer[], ctx: HookContext): Promise<string> {
  const { repo } = session;
  const hooks = messageHooks(session, ctx.noVerify);
  hintIgnored(session, messageHookNames(ctx.noVerify));
  if (hooks.length === 0) return message;
  // runs on other refs may go on at the same time without the index lock: they get files of their own
  const own = ctx.checkout ? null : `COMMIT_EDITMSG-patchtx-${randomBytes(6).toString('hex')}`;
  const file = path.resolve(repo.gitdir, own ?? 'COMMIT_EDITMSG');
  fs.writeFileSync(file, message);
  try {
    const hookEnvironment = hookEnv(session, ctx);
    for (const hook of hooks) {
      const args = hook.name === 'prepare-commit-msg' ? [file, 'message'] : [file];
      const run = await runHook(repo, hook.file, args, hookEnvironment);
      if (run.status !== 0) throw refusedBy(hook.name, run.status, run.output);
      showOutput(run.output);
    }
    const edited = cleanupWhitespace(fs.readFileSync(file, 'utf8'));
    if (edited === '') {
      const hook = hooks[hooks.length - 1]!.name;
      throw new PatchtxError('commit_refused', `the commit message is empty after the ${hook} hook: nothing was committed`, { hook, status: 0, output: '' });
    }
    const present = readTrailers(edited);
    const missing = kept.filter((t) => !present.some((p) => p.key === t.key && p.value === t.value));
    return appendTrailers(withoutLines(edited, missing), missing);
  } finally {
    if (own !== null) fs.rmSync(file, { force: true });
  }
}

/** post-commit, once the ref has moved; what it says is shown, its status changes nothing. */
export async function runPostCommit(session: Session, ctx: HookContext): Promise<void> {
  const file = findHook(session.repo, session.config, session.env, 'post-commit');
  if (file === null) return hintIgnored(session, ['post-commit']);
  const run = await runHook(session.repo, file, [], hookEnv(session, ctx));
  showOutput(run.output);
}
