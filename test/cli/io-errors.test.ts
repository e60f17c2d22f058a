// Failures the user's environment causes are typed errors that name their cause, never a stack
// trace: a full disk and a read-only file system (io_error, exit 74), an object that git gc pruned
// (missing_object, exit 2), a corrupt object (corrupt_repository, exit 2). A bug (internal, exit 70)
// is one line, its stack only with PATCHTX_DEBUG=1.
//
// The file system cases run the built command in a user and mount namespace (unshare -rm) on a
// small tmpfs holding a copy of the repository: filled up for the full disk, remounted read-only
// for the other. They are skipped where such namespaces cannot be made.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, tempDir } from '../helpers/scratch.js';
import { leftoverFiles } from '../helpers/snapshot.js';
import { printError, toError } from '../../src/cli/output.js';
import { PatchtxError } from '../../src/errors.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

const STACK_LINE = /^\s+at /m;

const addPatch = (name: string, body: string): string => `*** Begin Patch\n*** Add File: ${name}\n+${body}\n*** End Patch\n`;

const namespacesWork = spawnSync('unshare', ['-rm', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d"']).status === 0;

interface MountedRun {
  status: number;
  result: any;
  stderr: string;
  /** what git says about the copy afterwards (run in the namespace, where the mount is) */
  head: string;
  status_: string;
  fsck: number;
  leftovers: string;
  /** what `afterwards` wrote to $OUT/recover */
  after: string;
}

/**
 * Copies `repo` onto a fresh tmpfs of `sizeKb` in a user and mount namespace, runs `prepare` (shell)
 * there, then `patchtx apply --json` of `patch`, then `afterwards`, and reports what came out and
 * what git then sees.
 */
function applyOnTmpfs(repo: string, patch: string, sizeKb: number, prepare: string, afterwards = ': > "$OUT/recover"'): MountedRun {
  const out = tempDir();
  const patchFile = path.join(out, 'change.patch');
  writeFileSync(patchFile, patch);
  const script = [
    'set -e',
    'mnt=$(mktemp -d)',
    'mount -t tmpfs -o size=${SIZE}k tmpfs "$mnt"',
    'cp -a "$REPO" "$mnt/repo"',
    'cd "$mnt/repo"',
    prepare,
    'set +e',
    '"$NODE" "$BIN" apply --json "$PATCH" > "$OUT/result" 2> "$OUT/stderr"; echo $? > "$OUT/status"',
    afterwards,
    'git rev-parse HEAD > "$OUT/head"',
    'git status --porcelain --untracked-files=all > "$OUT/git-status"',
    'git fsck --no-progress >/dev/null 2>&1; echo $? > "$OUT/fsck"',
    '(cd .git && find . -name "*.lock" -o -path "./patchtx/journal*" -o -path "./patchtx/recovering-*") > "$OUT/leftovers"',
  ].join('\n');
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], {
    env: { ...gitEnv, NODE: process.execPath, BIN: binPath(), REPO: repo, PATCH: patchFile, OUT: out, SIZE: String(sizeKb) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const read = (name: string): string => readFileSync(path.join(out, name), 'utf8');
  return {
    status: Number(read('status')),
    result: JSON.parse(read('result')),
    stderr: read('stderr'),
    head: read('head').trim(),
    status_: read('git-status'),
    fsck: Number(read('fsck')),
    leftovers: read('leftovers'),
    after: read('recover'),
  };
}

describe.runIf(namespacesWork)('the file system refuses', () => {
  it('a full disk: io_error (exit 74) naming the cause, and the repository as it was', () => {
    const repo = makeRepo('basic');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    // 300 KB of bytes that do not compress (a fixed pseudo-random sequence), as text, on a 1 MB
    // file system left with less than that free: the objects do not fit
    let x = 12345;
    const body = Buffer.from(Array.from({ length: 300_000 }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16) & 0xff)).toString('base64');
    const r = applyOnTmpfs(repo, addPatch('big.txt', body), 1024, 'dd if=/dev/zero of=../fill bs=1k count=700 2>/dev/null || true');
    expect(r.status, r.stderr).toBe(74);
    expect(r.result.error.kind, JSON.stringify(r.result)).toBe('io_error');
    expect(r.result.error.message).toMatch(/no space left on the device/);
    expect(r.result.error.errno, JSON.stringify(r.result)).toBe('ENOSPC');
    expect(r.result.error.errno).toBe('ENOSPC');
    expect(r.result.error.message).not.toMatch(STACK_LINE);
    expect(r.head).toBe(head);
    expect(r.status_).toBe('');
    expect(r.fsck).toBe(0);
    expect(r.leftovers).toBe('');
  });

  it('a working tree without room for the new files (objects that compress fit): refused before the commit point, io_error naming the cause, nothing committed', () => {
    const repo = makeRepo('basic');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    // 600 KB that compresses to almost nothing: the objects would fit, the working-tree file not
    const body = Array.from({ length: 10_000 }, () => 'a'.repeat(59)).join('\n+');
    const r = applyOnTmpfs(repo, addPatch('big.txt', body), 1024, 'dd if=/dev/zero of=../fill bs=1k count=700 2>/dev/null || true');
    expect(r.status, r.stderr).toBe(74);
    expect(r.result.error).toMatchObject({ kind: 'io_error', errno: 'ENOSPC' });
    expect(r.result.error.message).toMatch(/no space left on the device.*nothing was committed/);
    expect(r.head).toBe(head);
    expect(r.status_).toBe('');
    expect(r.fsck).toBe(0);
    expect(r.leftovers).toBe('');
  });

  it('room for the objects or for the new file, but not for both: refused before the commit point, nothing committed', () => {
    const repo = makeRepo('basic');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    // 400 KB of base64 that does not deflate much, with 800 KB free: the objects fit, then the file would not
    const body = randomBytes(300_000).toString('base64');
    const free = 800;
    const fill = `avail=$(df -k --output=avail "$mnt" | tail -1); dd if=/dev/zero of=../fill bs=1k count=$((avail - ${free})) 2>/dev/null || true`;
    const r = applyOnTmpfs(repo, addPatch('big.txt', body), 2048, fill);
    expect(r.status, r.stderr).toBe(74);
    expect(r.result.error).toMatchObject({ kind: 'io_error', errno: 'ENOSPC' });
    expect(r.result.error.message).not.toMatch(/landed/);
    // the working tree's check, not the objects' write, refused
    expect(r.result.error.message).toMatch(/cannot write the working tree/);
    expect(r.head).toBe(head);
    expect(r.status_).toBe('');
    expect(r.fsck).toBe(0);
    expect(r.leftovers).toBe('');
  });

  it('a read-only file system (which Node reports as ENOENT when a directory is made): the git directory is named as not writable, nothing written', () => {
    const repo = makeRepo('basic');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const r = applyOnTmpfs(repo, addPatch('new.txt', 'hello'), 1024, 'rm -rf .git/patchtx\nmount -o remount,ro "$mnt"');
    // a git directory that cannot be written is the repository's state (exit 2), as a sandbox makes it
    expect(r.status, r.stderr).toBe(2);
    expect(r.result.error.kind).toBe('unsupported_repository');
    expect(r.result.error.reason).toBe('read_only');
    expect(r.result.error.message).toMatch(/read-only/);
    expect(r.result.error.message).toContain('.git');
    expect(r.head).toBe(head);
    expect(r.fsck).toBe(0);
  });

  it('without --json: one line on stderr, no stack', () => {
    const repo = makeRepo('basic');
    const out = tempDir();
    const patchFile = path.join(out, 'change.patch');
    writeFileSync(patchFile, addPatch('new.txt', 'hello'));
    const r = spawnSync(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        'mnt=$(mktemp -d); mount -t tmpfs tmpfs "$mnt"; cp -a "$REPO" "$mnt/repo"; mount -o remount,ro "$mnt"; "$NODE" "$BIN" apply --repo "$mnt/repo" "$PATCH"',
      ],
      { env: { ...gitEnv, NODE: process.execPath, BIN: binPath(), REPO: repo, PATCH: patchFile }, encoding: 'utf8' },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: cannot commit: the git directory .* is not writable \(the file system is read-only, EROFS\); nothing was written\n$/);
  });
});

describe('objects the repository does not hold, or holds broken', () => {
  it('redo after git gc pruned the undone commit: missing_object (exit 2) naming it', async () => {
    const repo = makeRepo('basic');
    const patch = path.join(tempDir(), 'p.patch');
    writeFileSync(patch, addPatch('n.txt', 'hi'));
    expect((await runCli(['apply', '--repo', repo, patch])).status).toBe(0);
    const undone = git(repo, 'rev-parse', 'HEAD').trim();
    expect((await runCli(['undo', '--repo', repo])).status).toBe(0);
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    expect(spawnSync('git', ['cat-file', '-e', undone], { cwd: repo }).status).not.toBe(0);
    const r = await runCli(['redo', '--repo', repo, '--json']);
    expect(r.status, r.stderr).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('missing_object');
    expect(error.message).toContain(undone);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(leftoverFiles(path.join(repo, '.git'))).toEqual([]);
  });

  it('a loose object that does not parse: corrupt_repository (exit 2) naming it', async () => {
    const repo = makeRepo('basic');
    const blob = git(repo, 'rev-parse', 'HEAD:src/math.js').trim();
    const file = path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
    writeFileSync(file, deflateSync(Buffer.from('blob 9999\0short')), { mode: 0o644 });
    const patch = path.join(tempDir(), 'p.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Update File: src/math.js\n@@\n-  return a + b;\n+  return b + a;\n*** End Patch\n');
    // a clean file in the checkout is read from disk; a run onto a branch not checked out reads the blob
    git(repo, 'branch', 'bot');
    const r = await runCli(['apply', '--repo', repo, '--ref', 'bot', patch, '--json']);
    expect(r.status, r.stderr).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('corrupt_repository');
    expect(error.message).toContain(blob);
    expect(git(repo, 'rev-parse', 'bot').trim()).toBe(git(repo, 'rev-parse', 'main').trim());
    // the run's journal is its ref's (it touches no working tree): gone, as the checkout's is
    expect(readdirSync(path.join(repo, '.git', 'patchtx', 'refs')).filter((n) => n.startsWith('journal'))).toEqual([]);
    expect(readdirSync(path.join(repo, '.git', 'patchtx')).filter((n) => n.startsWith('journal'))).toEqual([]);
  });
});

describe('trees the repository holds broken', () => {
  it('a tree with an entry of an empty name, edited: corrupt_repository (exit 2) naming the tree, nothing moved', async () => {
    const repo = makeRepo('basic');
    const blob = git(repo, 'rev-parse', 'HEAD:README.md').trim();
    const id = Buffer.from(blob, 'hex');
    const bytes = Buffer.concat([Buffer.from('100644 \0'), id, Buffer.from('100644 README.md\0'), id]);
    const made = spawnSync('git', ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], { cwd: repo, input: bytes, env: gitEnv, encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const tree = made.stdout.trim();
    const commit = git(repo, 'commit-tree', tree, '-p', 'HEAD', '-m', 'broken tree').trim();
    git(repo, 'update-ref', 'refs/heads/bot', commit);
    const patch = path.join(tempDir(), 'p.patch');
    writeFileSync(patch, addPatch('new.txt', 'hello'));
    const r = await runCli(['apply', '--repo', repo, '--ref', 'bot', patch, '--json']);
    expect(r.status, r.stderr).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error).toMatchObject({ kind: 'corrupt_repository', oid: tree });
    expect(error.message).toContain(tree);
    expect(git(repo, 'rev-parse', 'bot').trim()).toBe(commit);
    expect(leftoverFiles(path.join(repo, '.git'))).toEqual([]);
  });
});

describe('refs the repository holds broken', () => {
  it('a branch whose ref file holds garbage: corrupt_repository (exit 2) naming the ref, nothing written', async () => {
    const repo = makeRepo('basic');
    git(repo, 'branch', 'bot');
    const refFile = path.join(repo, '.git', 'refs', 'heads', 'bot');
    writeFileSync(refFile, 'not an object id\n');
    const patch = path.join(tempDir(), 'p.patch');
    writeFileSync(patch, addPatch('new.txt', 'hello'));
    const r = await runCli(['apply', '--repo', repo, '--ref', 'bot', patch, '--json']);
    expect(r.status, r.stderr).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.kind).toBe('corrupt_repository');
    expect(error.message).toContain('refs/heads/bot');
    expect(readFileSync(refFile, 'utf8')).toBe('not an object id\n');
    expect(leftoverFiles(path.join(repo, '.git'))).toEqual([]);
  });
});

describe('a bug', () => {
  const capture = () => {
    let err = '';
    return { streams: { out: () => undefined, err: (t: string) => void (err += t) }, text: () => err };
  };

  it('is one line, exit 70; the stack only with PATCHTX_DEBUG=1', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    const quiet = capture();
    const before = process.env.PATCHTX_DEBUG;
    try {
      delete process.env.PATCHTX_DEBUG;
      expect(await printError(quiet.streams, toError(bug), false)).toBe(70);
      expect(quiet.text()).toBe("error: internal error: Cannot read properties of undefined (reading 'x')\n");
      process.env.PATCHTX_DEBUG = '1';
      const loud = capture();
      expect(await printError(loud.streams, toError(bug), false)).toBe(70);
      expect(loud.text()).toMatch(STACK_LINE);
      // a typed error is never printed with a stack
      const typed = capture();
      await printError(typed.streams, new PatchtxError('stale', 'moved'), false);
      expect(typed.text()).toBe('error: moved\n');
    } finally {
      if (before === undefined) delete process.env.PATCHTX_DEBUG;
      else process.env.PATCHTX_DEBUG = before;
    }
  });

  it('a file system error nobody mapped still names its cause', () => {
    const e = Object.assign(new Error('EROFS: read-only file system, open /x/y'), { code: 'EROFS', path: '/x/y' });
    expect(toError(e)).toMatchObject({ kind: 'io_error', data: { path: '/x/y', errno: 'EROFS' } });
  });

  it('a file system failure of a less common cause is io_error (exit 74) with the system message, not a bug', async () => {
    const e = Object.assign(new Error("EXDEV: cross-device link not permitted, rename '/x/a' -> '/y/a'"), { code: 'EXDEV', syscall: 'rename', path: '/x/a' });
    const error = toError(e);
    expect(error).toMatchObject({ kind: 'io_error', data: { path: '/x/a', errno: 'EXDEV' } });
    expect(error.message).toBe("cannot use /x/a: EXDEV: cross-device link not permitted, rename '/x/a' -> '/y/a'");
    expect(await printError({ out: () => undefined, err: () => undefined }, error, false)).toBe(74);
  });
});
