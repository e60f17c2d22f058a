// What starting the built program costs, checked by what it does rather than by timing it: the
// code cache the build writes is accepted by the Node running the tests, and a plain apply loads
// none of Node's modules that only some commands need (child_process with net and dgram for hooks
// and signing, worker_threads, the promise hooks that an
// AsyncLocalStorage turns on), while a run with a hook does load child_process, so the probe can
// tell the difference.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli } from '../helpers/cli.js';
import { cleanupRepos, commitCount, gitEnv, makeRepo } from '../helpers/repos.js';
import { BASIC_PATCH, cleanupScratch, patchFile, tempDir } from '../helpers/scratch.js';

beforeAll(() => requireBuiltCli());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

/** Runs `node <script> args` with a preload that writes, at exit, the built-in modules the process loaded. */
function modulesLoaded(args: string[]): { status: number | null; stderr: string; modules: string[] } {
  const dir = tempDir();
  const out = path.join(dir, 'modules.json');
  const preload = path.join(dir, 'preload.cjs');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));\n`);
  const r = spawnSync(process.execPath, ['--require', preload, ...args], { env: gitEnv, encoding: 'utf8' });
  const modules = (JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  return { status: r.status, stderr: r.stderr, modules };
}

const ONLY_SOME_COMMANDS = ['child_process', 'net', 'dgram', 'worker_threads', 'internal/promise_hooks'];

describe('start-up of dist/patchtx.cjs', () => {
  it('the code cache written by the build is accepted', () => {
    const dist = path.dirname(binPath());
    const check = [
      "const { readFileSync } = require('node:fs');",
      "const { Script } = require('node:vm');",
      `const file = ${JSON.stringify(path.join(dist, 'cli.cjs'))};`,
      "const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData: readFileSync(file + '.cache') });",
      'console.log(JSON.stringify({ rejected: script.cachedDataRejected }));',
    ].join('\n');
    const r = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false });
  });

  it('a plain apply loads none of the modules only some commands need', () => {
    const dir = makeRepo('basic');
    const r = modulesLoaded([binPath(), 'apply', '--repo', dir, patchFile(BASIC_PATCH)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(commitCount(dir)).toBe(3);
    expect(r.modules).toContain('zlib');
    expect(r.modules.filter((m) => ONLY_SOME_COMMANDS.includes(m))).toEqual([]);
  });

  it('an apply that runs a hook loads child_process when it runs it', () => {
    const dir = makeRepo('basic');
    const hook = path.join(dir, '.git/hooks/post-commit');
    writeFileSync(hook, '#!/bin/sh\nexit 0\n');
    chmodSync(hook, 0o755);
    const r = modulesLoaded([binPath(), 'apply', '--repo', dir, patchFile(BASIC_PATCH)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.modules).toContain('child_process');
  });
});
