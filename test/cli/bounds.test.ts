// Bad and oversized input: a patch that is not UTF-8 text is refused with where it stops being
// text (never decoded with replacement characters), and every input is read and parsed within
// bounds that fail cleanly (limit_exceeded) and can be raised.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

interface ByteRun {
  code: number;
  out: string;
  err: string;
}

/** A built program with bytes (not a string) on standard input. */
function runBinBytes(name: 'patchtx' | 'apply_patch', args: string[], input: Uint8Array, cwd: string, env: NodeJS.ProcessEnv = {}): ByteRun {
  const r = spawnSync(process.execPath, [binPath(name), ...args], {
    cwd,
    input,
    env: { ...gitEnv, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/**
 * `apply_patch "$(cat FILE)"`: the shell hands the file's bytes over as the argument, as an agent's
 * shell does; Node's own spawn can only pass strings.
 */
function applyPatchArgument(file: string, cwd: string): ByteRun {
  const r = spawnSync('bash', ['-c', 'exec "$0" "$1" "$(cat "$2")"', process.execPath, binPath('apply_patch'), file], {
    cwd,
    env: { ...gitEnv, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** A V4A patch as bytes; number arrays are raw bytes. */
function patchBytes(...parts: Array<string | number[]>): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
}

function writeBytes(bytes: Uint8Array): string {
  const f = path.join(tempDir(), 'change.patch');
  writeFileSync(f, bytes);
  return f;
}

// `caf\xe9`: Latin-1 text pasted into a patch. The bad byte is at offset 45, on line 3.
const LATIN1_PATCH = patchBytes('*** Begin Patch\n*** Add File: cafe.txt\n+caf', [0xe9], '\n*** End Patch\n');
const LATIN1_OFFSET = '*** Begin Patch\n*** Add File: cafe.txt\n+caf'.length;

describe('a patch that is not UTF-8 text', () => {
  it('patchtx apply FILE: parse_error with the byte offset and line, nothing written', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, writeBytes(LATIN1_PATCH));
    expect(r.code).toBe(3);
    expect(r.json.ok).toBe(false);
    expect(r.json.error).toMatchObject({ kind: 'parse_error', offset: LATIN1_OFFSET, line: 3 });
    expect(r.json.error.message).toContain(`byte offset ${LATIN1_OFFSET} (line 3)`);
    expect(r.json.error.message).not.toContain('\ufffd');
    expectUntouched(dir, before);
    expectFsckClean(dir);
  });

  it('patchtx apply on standard input: the same refusal, exit 3', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = runBinBytes('patchtx', ['apply', '--repo', dir], LATIN1_PATCH, dir);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`byte offset ${LATIN1_OFFSET} (line 3)`);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expectUntouched(dir, before);
  });

  it('apply_patch on standard input and as its argument: refused, exit 1, nothing written', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const viaStdin = runBinBytes('apply_patch', [], LATIN1_PATCH, dir);
    expect(viaStdin.code).toBe(1);
    expect(viaStdin.err).toContain(`byte offset ${LATIN1_OFFSET} (line 3)`);
    const viaArgument = applyPatchArgument(writeBytes(LATIN1_PATCH), dir);
    expect(viaArgument.code).toBe(1);
    expect(viaArgument.err).toContain(`byte offset ${LATIN1_OFFSET} (line 3)`);
    expect(viaArgument.out).toBe('');
    expectUntouched(dir, before);
  });

  it('a U+FFFD written out in UTF-8 is text like any other: committed byte for byte', () => {
    const dir = makeRepo('basic');
    const patch = patchBytes('*** Begin Patch\n*** Add File: r.txt\n+a\ufffdb\n*** End Patch\n');
    const r = applyPatchArgument(writeBytes(patch), dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(commitCount(dir)).toBe(3);
    const blob = spawnSync('git', ['cat-file', 'blob', 'HEAD:r.txt'], { cwd: dir, env: gitEnv });
    expect(Buffer.from(blob.stdout).equals(Buffer.from('a\ufffdb\n', 'utf8'))).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

/** `SHELL_COMMAND`, with $PATCHTX and $APPLY_PATCH standing for the built programs. */
function shell(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): ByteRun {
  const r = spawnSync('bash', ['-c', command], {
    cwd,
    env: {
      ...gitEnv,
      NO_COLOR: '1',
      PATCHTX: `"${process.execPath}" "${binPath()}"`,
      APPLY_PATCH: `"${process.execPath}" "${binPath('apply_patch')}"`,
      ...env,
    },
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
    // an unbounded read never ends (and grows without end): stop it and fail
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const fourAdds = ['*** Begin Patch', ...['a', 'b', 'c', 'd'].map((n) => `*** Add File: ${n}.txt\n+${n}`), '*** End Patch', ''].join('\n');

describe('bounded input', () => {
  it('endless standard input (yes | patchtx apply): reading stops at 64 MiB, limit_exceeded, exit 2, nothing written', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = shell('yes | eval "$PATCHTX apply --json"', dir);
    expect(r.code).toBe(2);
    const json = JSON.parse(r.out);
    expect(json.error).toMatchObject({ kind: 'limit_exceeded', limit: 'patch-bytes', max: 64 * 1024 * 1024 });
    expect(json.error.message).toMatch(/larger than 64 MiB/);
    expect(json.error.message).toContain('--limits patch-bytes=');
    expect(json.error.message).toContain('PATCHTX_LIMITS');
    expectUntouched(dir, before);
  });

  it('a patch file with no end and no line break (/dev/zero): stops at the 1 MiB line limit', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = shell('eval "$PATCHTX apply /dev/zero"', dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/line 1 of the patch is longer than 1 MiB/);
    expect(r.err).toContain('--limits line-bytes=');
    expect(r.err).not.toMatch(/\n\s+at /);
    expectUntouched(dir, before);
  });

  it('--limits and PATCHTX_LIMITS set the bounds; the option wins over the environment', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const file = writeBytes(Buffer.from(fourAdds));
    const low = await patchtxJson('apply', '--repo', dir, '--limits', 'operations=3', file);
    expect(low.code).toBe(2);
    expect(low.json.error).toMatchObject({ kind: 'limit_exceeded', limit: 'operations', max: 3, line: 8 });
    const viaEnv = shell(`PATCHTX_LIMITS=operations=3 eval "$PATCHTX check --repo . ${file}"`, dir);
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.err).toMatch(/more than 3 operations/);
    const longLine = await patchtxJson('check', '--repo', dir, '--limits', 'line-bytes=8', file.replace(/change\.patch$/, '../nope'), file);
    expect(longLine.code).toBe(2); // check takes one patch: commander refuses the second argument
    const lines = await patchtxJson('check', '--repo', dir, '--limits', 'line-bytes=16', file);
    expect(lines.json.error).toMatchObject({ kind: 'limit_exceeded', limit: 'line-bytes', max: 16, line: 2 });
    expectUntouched(dir, before);
    const overridden = shell(`PATCHTX_LIMITS=operations=3 eval "$PATCHTX apply --repo . --limits operations=4 ${file}"`, dir);
    expect(overridden.err).toBe('');
    expect(overridden.code).toBe(0);
    expect(commitCount(dir)).toBe(3);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    expectFsckClean(dir);
  });

  it('a bad --limits or PATCHTX_LIMITS is a usage error', async () => {
    const dir = makeRepo('basic');
    const file = writeBytes(Buffer.from(fourAdds));
    const r = await patchtxJson('apply', '--repo', dir, '--limits', 'operations=lots', file);
    expect(r.code).toBe(2);
    expect(r.json.error.kind).toBe('usage');
    expect(r.json.error.message).toContain('--limits');
    const env = shell(`PATCHTX_LIMITS=nonsense eval "$PATCHTX apply --repo . ${file}"`, dir);
    expect(env.code).toBe(2);
    expect(env.err).toContain('PATCHTX_LIMITS');
    expect(commitCount(dir)).toBe(2);
  });

  it('apply_patch takes its limits from PATCHTX_LIMITS and says so', () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const file = writeBytes(Buffer.from(fourAdds));
    const low = shell(`PATCHTX_LIMITS=operations=3 eval "$APPLY_PATCH \\"\\$(cat ${file})\\""`, dir);
    expect(low.code).toBe(1);
    expect(low.err).toMatch(/more than 3 operations/);
    expect(low.err).toContain('PATCHTX_LIMITS=operations=');
    expect(low.err).not.toContain('--limits');
    const endless = shell('yes | PATCHTX_LIMITS=patch-bytes=1M eval "$APPLY_PATCH"', dir);
    expect(endless.code).toBe(1);
    expect(endless.err).toMatch(/larger than 1 MiB/);
    expectUntouched(dir, before);
    const ok = shell(`PATCHTX_LIMITS=operations=4 eval "$APPLY_PATCH" < ${file}`, dir);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(commitCount(dir)).toBe(3);
  });
});

describe('bounded matching', () => {
  it('a search beyond match-work is limit_exceeded naming the file and how to raise it; nothing written', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'big.txt'), 'x\n'.repeat(20_000));
    git(dir, 'add', 'big.txt');
    git(dir, 'commit', '-q', '-m', 'big');
    const before = snapshot(dir);
    const patch = ['*** Begin Patch', '*** Update File: big.txt', '@@', ...Array.from({ length: 500 }, () => ' x'), '-y', '+z', '*** End Patch', ''].join('\n');
    const file = writeBytes(Buffer.from(patch));
    const r = await patchtxJson('apply', '--repo', dir, '--limits', 'match-work=5000', file);
    expect(r.code).toBe(2);
    expect(r.json.error).toMatchObject({ kind: 'limit_exceeded', limit: 'match-work', max: 5000, path: 'big.txt' });
    expect(r.json.error.message).toContain('--limits match-work=N');
    expectUntouched(dir, before);
    // within the default bound the same search is simply done: the chunk is not there
    const d = await patchtxJson('apply', '--repo', dir, file);
    expect(d.code).toBe(1);
    expect(d.json.error.kind).toBe('context_not_found');
    expectUntouched(dir, before);
    expectFsckClean(dir);
  });
});

describe('the plan is made before the lock', () => {
  const patch = [
    '*** Begin Patch',
    '*** Update File: src/math.js',
    '@@',
    ' export function add(a, b) {',
    '-  return a + b;',
    '+  return a + b; // sum',
    '*** End Patch',
    '',
  ].join('\n');

  /** `patchtx apply` started in the background with a fault point set; resolves when it ends. */
  function applyInBackground(
    dir: string,
    env: NodeJS.ProcessEnv,
    ...args: string[]
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
    const child = spawn(process.execPath, [binPath(), 'apply', '--repo', dir, ...args, writeBytes(Buffer.from(patch))], {
      env: { ...gitEnv, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err })));
  }

  it('a run stopped once its plan is made has taken neither the journal nor index.lock', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await applyInBackground(dir, { PATCHTX_TEST_CRASH_AT: 'planned-ahead' });
    expect(r.signal).toBe('SIGKILL');
    expect(existsSync(path.join(dir, '.git', 'patchtx', 'journal.json'))).toBe(false);
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(false);
    expectUntouched(dir, before);
  });

  it('a touched file changed between the plan and the lock: planned again from what the lock holds', async () => {
    const dir = makeRepo('basic');
    const release = path.join(tempDir(), 'go');
    const journal = path.join(dir, '.git', 'patchtx', 'journal.json');
    const run = applyInBackground(dir, { PATCHTX_TEST_PAUSE_AT: 'after-journal', PATCHTX_TEST_PAUSE_UNTIL: release }, '--dirty=include');
    for (let i = 0; i < 3000 && !existsSync(journal); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(journal)).toBe(true);
    // the plan was made from the committed file; now the file holds one more line
    const file = path.join(dir, 'src/math.js');
    const edited = readFileSync(file, 'utf8') + '// edited meanwhile\n';
    writeFileSync(file, edited);
    writeFileSync(release, '');
    const r = await run;
    expect(r.err).toMatch(/^(warning: .*\n)*$/);
    expect(r.code).toBe(0);
    const committed = git(dir, 'show', 'HEAD:src/math.js');
    expect(committed).toBe(edited.replace('  return a + b;', '  return a + b; // sum'));
    expect(committed).toContain('// edited meanwhile\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
