// Bundles the library and the two command-line programs into dist/ with esbuild.
// One bundled file per entry keeps start-up cheap: Node resolves and loads a single module
// instead of hundreds, which dominates small patches. Each output is written to a temporary
// file and renamed into place, so a program started during a rebuild never reads half a file.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const requireShim = "import { createRequire as __patchtxCreateRequire } from 'node:module'; const require = __patchtxCreateRequire(import.meta.url);";
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: false,
  // smaller files parse faster at start-up; names are kept so error classes stay recognisable
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
};

async function bundle(entry, name, { executable = false } = {}) {
  const result = await build({
    ...common,
    // the programs share one chunk of common code; what only some runs need (isomorphic-git's
    // reader) is split off and loaded on first use
    ...(name === null ? { entryPoints: entry, splitting: true, chunkNames: 'chunks/[name]-[hash]' } : { entryPoints: { [name]: entry } }),
    outdir: 'dist',
    // some CommonJS dependencies call require() for Node built-ins; give the ESM bundle one
    banner: { js: (executable ? '#!/usr/bin/env node\n' : '') + requireShim },
  });
  for (const file of result.outputFiles) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const tmp = `${file.path}.${process.pid}.tmp`;
    const isProgram = executable && !file.path.includes(`${path.sep}chunks${path.sep}`);
    writeFileSync(tmp, file.contents, { mode: isProgram ? 0o755 : 0o644 });
    if (isProgram) chmodSync(tmp, 0o755);
    renameSync(tmp, file.path);
  }
}

await bundle('src/index.ts', 'index');
await bundle(['src/bin/patchtx.ts', 'src/bin/apply_patch.ts'], null, { executable: true });
