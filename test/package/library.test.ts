// The package as another project uses it: `import ... from 'patchtx'` resolves through package.json
// "exports" to the built library, and TypeScript finds its declarations there too (dist/types,
// written by the build). `npm test` builds before it runs the tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/repos.js';

const consumer = mkdtempSync(path.join(os.tmpdir(), 'patchtx-consumer-'));
mkdirSync(path.join(consumer, 'node_modules'));
symlinkSync(repoRoot, path.join(consumer, 'node_modules', 'patchtx'), 'dir');
writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ type: 'module' }));
afterAll(() => rmSync(consumer, { recursive: true, force: true }));

const PATCH = ['*** Begin Patch', '*** Update File: a.txt', '@@', '-one', '+two', '*** End Patch', ''].join('\n');

describe("the package's library face", () => {
  it('imports by name from an ES module and applies a patch in memory', () => {
    writeFileSync(
      path.join(consumer, 'use.mjs'),
      "import { applyPatch } from 'patchtx';\n" +
        `const r = applyPatch(${JSON.stringify(PATCH)}, { 'a.txt': 'one\\n' });\n` +
        "process.stdout.write(JSON.stringify({ text: Buffer.from(r.files['a.txt']).toString(), changes: r.changes }));\n",
    );
    const r = spawnSync(process.execPath, ['use.mjs'], { cwd: consumer, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ text: 'two\n', changes: [{ op: 'M', path: 'a.txt' }] });
  });

  it('type-checks a TypeScript user against the declarations "exports" names', () => {
    writeFileSync(
      path.join(consumer, 'use.ts'),
      "import { applyPatch, PatchtxError, type ApplyPatchResult } from 'patchtx';\n" +
        "const r: ApplyPatchResult = applyPatch('', {});\n" +
        'const kind: string = new PatchtxError("parse_error", "x").kind;\n' +
        'export { r, kind };\n' +
        '// a wrong use must be caught, or the check proves nothing\n' +
        '// @ts-expect-error applyPatch takes the patch text first\n' +
        'applyPatch(42, {});\n',
    );
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      // the declarations of the transaction library name Node's types (Buffer, NodeJS.ProcessEnv):
      // a Node program has them, here from this project's own
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("imports patchtx/openai, whose errors are the PatchtxError class 'patchtx' exports, and type-checks its use", () => {
    writeFileSync(
      path.join(consumer, 'openai.mjs'),
      "import { PatchtxError } from 'patchtx';\n" +
        "import { applyResponseItems, createEditor } from 'patchtx/openai';\n" +
        'const repo = { begin: async () => { throw new PatchtxError("stale", "the branch moved") } };\n' +
        "const [out] = await applyResponseItems(repo, [{ type: 'apply_patch_call', call_id: 'c1', operation: { type: 'delete_file', path: 'a' } }]);\n" +
        'let usage = null;\n' +
        "try { createEditor(repo, { commit: 'never' }); } catch (e) { usage = e instanceof PatchtxError && e.kind; }\n" +
        'process.stdout.write(JSON.stringify({ out, usage }));\n',
    );
    const r = spawnSync(process.execPath, ['openai.mjs'], { cwd: consumer, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      out: { type: 'apply_patch_call_output', call_id: 'c1', status: 'failed', output: 'Not applied: the branch moved' },
      usage: 'usage',
    });

    writeFileSync(
      path.join(consumer, 'openai-use.ts'),
      "import { openRepository } from 'patchtx';\n" +
        "import { applyResponseItems, createEditor, type ApplyPatchCallOutputItem, type PatchtxEditor } from 'patchtx/openai';\n" +
        "const repo = await openRepository({ dir: '.' });\n" +
        'const outputs: ApplyPatchCallOutputItem[] = await applyResponseItems(repo, []);\n' +
        "const editor: PatchtxEditor = createEditor(repo, { commit: 'call' });\n" +
        'export { outputs, editor };\n' +
        "// @ts-expect-error the grouping of the editor is 'turn' or 'call'\n" +
        "createEditor(repo, { commit: 'response' });\n",
    );
    writeFileSync(
      path.join(consumer, 'tsconfig.openai.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['openai-use.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const t = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.openai.json'], { cwd: consumer, encoding: 'utf8' });
    expect(t.stdout + t.stderr).toBe('');
    expect(t.status).toBe(0);
  });
});
