// Bundles the library and the two command-line programs into dist/ with esbuild, then writes the
// programs' V8 code cache.
//
// - dist/index.js: the library (ES module); dist/openai.js: its Responses API / Agents SDK surface
//   (patchtx/openai); the code they share is in dist/lib/.
// - dist/cli.cjs: both programs and their dependencies in one CommonJS script. One file keeps
//   start-up cheap: Node reads and compiles a single script instead of resolving hundreds of
//   modules. CommonJS, because it can be compiled through node:vm with a code cache (see
//   src/bin/load-cli.ts); ES modules cannot be, on Node 20. The file holds one function
//   expression, the module wrapped as Node wraps one: it is compiled by the loader, not required.
// - dist/cli.cjs.cache: that code cache, produced by running the programs on a scratch repository
//   (below), so that it holds the code of a real transaction, not just of start-up.
// - dist/isomorphic-git.cjs: isomorphic-git, loaded only when its object reader is selected.
// - dist/mcp-sdk.cjs: the MCP SDK and zod, loaded only by `patchtx mcp`.
// - dist/patchtx.cjs, dist/apply_patch.cjs: the entry points (bin), a few lines each; CommonJS,
//   which Node starts a few milliseconds sooner than an ES module.
// - dist/types/: the library's type declarations (package.json "exports" -> "types"), by tsc.
// Each output is written to a temporary file and renamed into place, so a program started during
// a rebuild never reads half a file.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  // smaller files parse faster at start-up; names are kept so error classes stay recognisable
  minify: true,
  keepNames: true,
  // non-ASCII characters are escaped, so the loader may read the bundle as latin1
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
};

function writeAtomically(file, contents, mode = 0o644) {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

async function bundle(options, { executable = false } = {}) {
  const result = await build({ ...common, ...options });
  for (const file of result.outputFiles) {
    const contents = executable ? Buffer.concat([Buffer.from('#!/usr/bin/env node\n'), file.contents]) : file.contents;
    writeAtomically(file.path, contents, executable ? 0o755 : 0o644);
  }
}

// The CommonJS programs load isomorphic-git from its own file, on first use: its import() becomes
// a require() of that file, since the programs run through node:vm, where a dynamic import() of a
// file is not available.
const isomorphicGitApart = {
  name: 'isomorphic-git-apart',
  setup(b) {
    b.onResolve({ filter: /^isomorphic-git$/ }, () => ({ path: 'isomorphic-git', namespace: 'isomorphic-git-apart' }));
    b.onResolve({ filter: /^\.\/isomorphic-git\.cjs$/ }, () => ({ path: './isomorphic-git.cjs', external: true }));
    b.onLoad({ filter: /.*/, namespace: 'isomorphic-git-apart' }, () => ({ contents: "module.exports = require('./isomorphic-git.cjs');", loader: 'js' }));
  },
};

// The MCP SDK (with zod) is loaded from its own file, only when `patchtx mcp` starts. The import of
// src/mcp/sdk.ts becomes a require() of that file: the programs run through node:vm, where a
// dynamic import() of a file is not available.
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) =>
      /[\\/]src[\\/]mcp[\\/]/.test(args.importer) ? { path: 'mcp-sdk', namespace: 'mcp-sdk-apart' } : undefined,
    );
    b.onResolve({ filter: /^\.\/mcp-sdk\.cjs$/ }, () => ({ path: './mcp-sdk.cjs', external: true }));
    b.onLoad({ filter: /.*/, namespace: 'mcp-sdk-apart' }, () => ({ contents: "module.exports = require('./mcp-sdk.cjs');", loader: 'js' }));
  },
};

// Stand-ins for two modules that dependencies of the programs load, each replaced only for the
// importer named (the library build, dist/index.js, and the tests use them as published).
const STAND_INS = [
  {
    // commander requires node:child_process when it loads, for subcommands that are separate
    // executables (patchtx has none). Loading child_process loads net, stream and dgram with it:
    // about 7 ms of every start. Commander only ever calls its spawn(), so it gets a stand-in that
    // loads the real module on that first call.
    name: 'child_process',
    specifier: /^(node:)?child_process$/,
    importer: /[\\/]node_modules[\\/]commander[\\/]/,
    contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
  {
    // memfs (its fs-core part) asks the process for the user and group ids of every node it
    // creates and at every permission check on the way to one: about 10,000 system calls in a
    // 1,000-file patch (9 ms in a profile), through its own reference to the global process,
    // whatever process the volume was given (src/tx/touched-files.ts gives it one that asks once). The
    // ids cannot change during a run (patchtx never changes them), so fs-core sees a view of the
    // process that asks once, and is the real process in everything else.
    name: 'memfs-process',
    specifier: /^\.\/process(\.js)?$/,
    importer: /[\\/]@jsonjoy\.com[\\/]fs-core[\\/]lib[\\/]/,
    contents: [
      'let uid, gid;',
      'const view = Object.create(process, {',
      '  getuid: { value: () => (uid ??= process.getuid()) },',
      '  getgid: { value: () => (gid ??= process.getgid()) },',
      '});',
      // an ES-module-shaped export, so that an interop helper in fs-core would still see `default`
      'exports.__esModule = true;',
      'exports.createProcess = () => view;',
      'exports.default = view;',
    ].join('\n'),
  },
];

/** A built-in module's export names, and which of them are plain values (not accessors), as a
 * fresh Node has them: a first read turns an accessor into a plain property, and this process has
 * read some. */
function builtinNames(name) {
  const ask = `const m = require('node:${name}'); const all = Object.keys(m).filter((n) => /^[A-Za-z_$][\\w$]*$/.test(n) && n !== 'default'); console.log(JSON.stringify({ all, plain: all.filter((n) => !Object.getOwnPropertyDescriptor(m, n).get) }))`;
  return JSON.parse(spawnSync(process.execPath, ['-e', ask], { encoding: 'utf8' }).stdout);
}

// Node's built-in modules as the programs' own files (src/) get them in the bundle.
// - Direct: in a CommonJS bundle, esbuild turns every `import path from 'node:path'` (and `import
//   * as fs`) into its interop helper, which copies each property of the module onto a new object:
//   once per importing file, about fifty times (over a thousand property definitions) at every
//   start. These files get the module from an ES module written here instead, whose exports are
//   the module's properties, which esbuild links directly (a name the building Node lacks fails the
//   build, not a run). Accessors (fs.promises, fs.Dir...) load more of Node when first read: they
//   come through the re-export, which reads them on use, as before.
// - On first use: a module that a transaction needs only now and then (child_process for hooks and
//   signing, with net and dgram; tls for a push's certificate settings, with net) is loaded when one
//   of its exports is first read, not at every start.
const BUILTINS_DIRECT = ['path', 'fs', 'os'];
const BUILTINS_ON_USE = ['child_process', 'tls'];
const builtinsForSrc = {
  name: 'builtins-for-src',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(node:)?(${[...BUILTINS_DIRECT, ...BUILTINS_ON_USE].join('|')})$`) }, (args) =>
      /[\\/]src[\\/]/.test(args.importer) && args.namespace === 'file' ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin-for-src' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin-for-src' }, (args) => {
      const id = `node:${args.path}`;
      const { all, plain } = builtinNames(args.path);
      const contents = BUILTINS_DIRECT.includes(args.path)
        ? [`const m = require('${id}');`, 'export default m;', ...plain.map((n) => `export const ${n} = m.${n};`), `export * from '${id}';`]
        : [
            'let m;',
            `const load = () => (m ??= require('${id}'));`,
            `for (const n of ${JSON.stringify(all)}) Object.defineProperty(exports, n, { enumerable: true, get: () => load()[n] });`,
          ];
      return { contents: contents.join('\n'), loader: 'js' };
    });
  },
};

const standIns = {
  name: 'stand-ins',
  setup(b) {
    for (const s of STAND_INS) {
      b.onResolve({ filter: s.specifier }, (args) => (s.importer.test(args.importer) ? { path: s.name, namespace: 'on-demand' } : undefined));
    }
    b.onLoad({ filter: /.*/, namespace: 'on-demand' }, (args) => ({ contents: STAND_INS.find((s) => s.name === args.path).contents, loader: 'js' }));
  },
};

/** the function around dist/cli.cjs's code, as Node puts it around a CommonJS module (see load-cli.ts) */
const CLI_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

// files of earlier layouts that no program loads any more
rmSync('dist/chunks', { recursive: true, force: true });
for (const old of ['dist/patchtx.js', 'dist/apply_patch.js']) rmSync(old, { force: true });
rmSync('dist/cli.cjs.cache', { force: true });

// the library's two entries share their code through chunks (dist/lib/), so that a PatchtxError
// thrown under patchtx/openai is the class patchtx exports
rmSync('dist/lib', { recursive: true, force: true });
await bundle({
  entryPoints: { index: 'src/index.ts', openai: 'src/openai/index.ts' },
  outdir: 'dist',
  format: 'esm',
  splitting: true,
  chunkNames: 'lib/[name]-[hash]',
  // some CommonJS dependencies call require() for Node built-ins; give the ESM bundle one
  banner: { js: "import { createRequire as __patchtxCreateRequire } from 'node:module'; const require = __patchtxCreateRequire(import.meta.url);" },
});
await bundle({
  entryPoints: { cli: 'src/bin/programs.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // any other import() of a file beside the bundle becomes require() too (see isomorphicGitApart)
  supported: { 'dynamic-import': false },
  plugins: [isomorphicGitApart, mcpSdkApart, standIns, builtinsForSrc],
  // the CommonJS wrapper is written into the file (on its first line, so that line numbers in stack
  // traces stay right): the loader compiles the text as read, instead of a copy with the wrapper
  // around it (a second string of the bundle's size at every start)
  banner: { js: CLI_WRAPPER[0] },
  footer: { js: CLI_WRAPPER[1] },
});
await bundle({ entryPoints: { 'mcp-sdk': 'src/mcp/sdk.ts' }, outdir: 'dist', outExtension: { '.js': '.cjs' }, format: 'cjs' });
await bundle({
  stdin: { contents: "module.exports = require('isomorphic-git');", resolveDir: process.cwd(), loader: 'js' },
  outfile: 'dist/isomorphic-git.cjs',
  format: 'cjs',
});
await bundle(
  { entryPoints: { patchtx: 'src/bin/patchtx.ts', apply_patch: 'src/bin/apply_patch.ts' }, outdir: 'dist', outExtension: { '.js': '.cjs' }, format: 'cjs' },
  { executable: true },
);

writeCodeCache();
writeDeclarations();

/** dist/types/*.d.ts for TypeScript users of the library; needs the typescript devDependency. */
function writeDeclarations() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.warn('build: typescript is not installed, so no type declarations were written (dist/types)');
    return;
  }
  rmSync('dist/types', { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--emitDeclarationOnly', '--outDir', 'dist/types'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build: tsc could not write the type declarations:\n${r.stdout}${r.stderr}`);
}

/**
 * Runs the programs on a scratch repository (made here by hand, no git needed): an empty
 * repository, a patch adding files, one updating, moving and deleting them, a log. Each run
 * starts from the cache the previous one wrote, so the last cache holds the code all of them ran.
 * A failure only costs start-up time; the build goes on and says so.
 */
function writeCodeCache() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'patchtx-build-'));
  const cache = path.resolve('dist/cli.cjs.cache');
  const next = `${cache}.${process.pid}.tmp`;
  try {
    const repo = path.join(scratch, 'repo');
    for (const dir of ['objects', 'refs/heads', 'refs/tags']) mkdirSync(path.join(repo, '.git', dir), { recursive: true });
    writeFileSync(path.join(repo, '.git/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(repo, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n');
    // Enough new files in nested directories that the first run writes its objects as a pack and
    // the second reads them back from it, as runs on real repositories do: the code for packs,
    // racy index entries and deeper trees then comes from the cache too.
    const libFile = (k) => `lib/pkg_${k % 4}/mod_${k % 2}/file_${k}.ts`;
    const libBody = (k) => [`export function f${k}(x: number): number {`, `  return x + ${k};`, '}', ''];
    const add = [
      '*** Begin Patch',
      '*** Add File: src/a.ts',
      '+export const a = 1;',
      '+export const b = 2;',
      '+',
      '+// end',
      '*** Add File: notes.txt',
      '+one',
      '+two',
    ];
    for (let k = 0; k < 20; k++) add.push(`*** Add File: ${libFile(k)}`, ...libBody(k).map((l) => `+${l}`));
    add.push('*** End Patch', '');
    const change = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@',
      ' export const a = 1;',
      '-export const b = 2;',
      '+export const b = 3;',
      ' ',
      '*** Delete File: notes.txt',
    ];
    for (const k of [1, 6, 11, 16])
      change.push(`*** Update File: ${libFile(k)}`, '@@', ` export function f${k}(x: number): number {`, `-  return x + ${k};`, `+  return x - ${k};`, ' }');
    change.push('*** End Patch', '');
    writeFileSync(path.join(scratch, 'add.patch'), add.join('\n'));
    writeFileSync(path.join(scratch, 'change.patch'), change.join('\n'));
    const env = {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: path.join(scratch, 'no-global-config'),
      GIT_AUTHOR_NAME: 'patchtx build',
      GIT_AUTHOR_EMAIL: 'build@patchtx.invalid',
      GIT_COMMITTER_NAME: 'patchtx build',
      GIT_COMMITTER_EMAIL: 'build@patchtx.invalid',
      PATCHTX_WRITE_CODE_CACHE: next,
    };
    const runs = [
      ['apply', '--repo', repo, '--diff', path.join(scratch, 'add.patch')],
      ['apply', '--repo', repo, '--json', path.join(scratch, 'change.patch')],
      ['log', '--repo', repo],
    ];
    for (const args of runs) {
      const r = spawnSync(process.execPath, [path.resolve('dist/patchtx.cjs'), ...args], { cwd: repo, env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`patchtx ${args[0]} exited ${r.status}: ${r.stderr || r.stdout}`);
      renameSync(next, cache);
    }
  } catch (e) {
    rmSync(next, { force: true });
    rmSync(cache, { force: true });
    console.warn(`build: no code cache written (programs will compile at every start): ${e.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
