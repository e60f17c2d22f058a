// Bundles the library and the two command-line programs into dist/ with esbuild.
// One bundled file per entry keeps start-up cheap: Node resolves and loads a single module
// instead of hundreds (isomorphic-git alone is many files), which dominates small patches.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: false,
  logLevel: 'warning',
  // Some CommonJS dependencies call require() for Node built-ins; give ESM bundles a require.
  banner: { js: "import { createRequire as __patchtxCreateRequire } from 'node:module'; const require = __patchtxCreateRequire(import.meta.url);" },
};

await build({ ...common, entryPoints: { index: 'src/index.ts' }, outdir: 'dist' });
for (const name of ['patchtx', 'apply_patch']) {
  await build({
    ...common,
    entryPoints: { [name]: `src/bin/${name}.ts` },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node\n' + common.banner.js },
  });
  chmodSync(`dist/${name}.js`, 0o755);
}
