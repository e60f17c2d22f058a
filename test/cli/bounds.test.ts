// Bad and oversized input: a patch that is not UTF-8 text is refused with where it stops being
// text (never decoded with replacement characters), and every input is read and parsed within
// bounds that fail cleanly (limit_exceeded) and can be raised.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, gitEnv, makeRepo } from '../helpers/repos.js';
import {
  buildDist,
  cleanupScratch,
  commitCount,
  distDir,
  expectFsckClean,
  expectUntouched,
  g,
  isolateGitEnv,
  patchtxJson,
  snapshot,
  tempDir,
} from './support.js';

beforeAll(() => {
  isolateGitEnv();
  buildDist();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

interface ByteRun {
  code: number;
  out: string;
  err: string;
}

/** A built program with bytes (not a string) on standard input. */
function runBinBytes(name: 'patchtx' | 'apply_patch', args: string[], input: Uint8Array, cwd: string, env: NodeJS.ProcessEnv = {}): ByteRun {
  const r = spawnSync(process.execPath, [path.join(distDir, `${name}.cjs`), ...args], {
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
  const r = spawnSync('bash', ['-c', 'exec "$0" "$1" "$(cat "$2")"', process.execPath, path.join(distDir, 'apply_patch.cjs'), file], {
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
    expect(g(dir, 'status', '--porcelain')).toBe('');
  });
});
