// Starts a program from dist/cli.cjs with V8's code cache (dist/cli.cjs.cache, written at build
// time by scripts/build.mjs).
//
// Why: for a small patch, patchtx's own work takes less time than Node spends compiling the
// bundled programs and their dependencies (commander, memfs's core, diff) on every start. The cache holds
// that compiled code, so a start deserialises it instead of compiling again: the same mechanism as
// Node's compile cache, which Node 20 does not offer for modules. When the cache does not fit
// (another Node or V8 version, other V8 flags, a rebuilt bundle), V8 rejects it and compiles as
// usual: a slower start, never a different program. Nothing is written at run time, except when
// the build asks for a cache (PATCHTX_WRITE_CODE_CACHE names the file to write on exit).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

type Program = (argv: string[]) => Promise<number>;
type Programs = Record<'patchtx' | 'apply_patch', Program> & { handleSignals: () => void };

function loadPrograms(): Programs {
  // this code runs bundled into dist/patchtx.cjs or dist/apply_patch.cjs, beside dist/cli.cjs
  const dir = __dirname;
  const file = path.join(dir, 'cli.cjs');
  // the bundle is ASCII (esbuild escapes everything else), so latin1 decodes it exactly and fast;
  // it is a CommonJS module already in its wrapper function (scripts/build.mjs)
  const source = readFileSync(file, 'latin1');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // no cache: compile from source
  }
  const script = new Script(source, { filename: file, cachedData });
  const cacheOut = process.env.PATCHTX_WRITE_CODE_CACHE;
  if (cacheOut) process.once('exit', () => writeFileSync(cacheOut, script.createCachedData()));
  const module = { exports: {} as Programs };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, dir);
  return module.exports;
}

/** Runs the program and sets the exit code it returns. */
export function runProgram(name: 'patchtx' | 'apply_patch', argv: string[]): void {
  const programs = loadPrograms();
  // signals end a transaction cleanly (src/tx/interrupt.ts); only the programs install them
  programs.handleSignals();
  void programs[name](argv).then((code) => {
    process.exitCode = code;
  });
}
