// The package as npm publishes it: `npm pack` must hold the built programs, the library and its
// declarations and nothing of the sources or tests, and, since everything it loads is bundled, it
// must install with no dependencies and run from there: `patchtx`, `apply_patch` and
// `import 'patchtx'` in a project that has nothing else installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, git, gitEnv, makeRepo, repoRoot } from '../helpers/repos.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'patchtx-pack-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// the build is run by `npm test`; packing must not rebuild dist/ under the other tests' feet
const quiet = {
  cwd: repoRoot,
  encoding: 'utf8' as const,
  env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
};

let files: string[] = [];
let consumer = '';

beforeAll(() => {
  const out = execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], quiet);
  const [packed] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
  files = packed.files.map((f) => f.path).sort();
  consumer = path.join(work, 'consumer');
  execFileSync('mkdir', ['-p', consumer]);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // a tarball with no dependencies installs without asking the registry for anything
  execFileSync(npm, ['install', '--offline', '--ignore-scripts', path.join(work, packed.filename)], { ...quiet, cwd: consumer });
}, 120_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  cleanupRepos();
});

describe('the published package', () => {
  it('holds the programs, the library and its declarations, and no sources or tests', () => {
    for (const f of [
      'package.json',
      'README.md',
      'dist/patchtx.cjs',
      'dist/apply_patch.cjs',
      'dist/cli.cjs',
      'dist/mcp-sdk.cjs',
      'dist/index.js',
      'dist/types/index.d.ts',
      'dist/openai.js',
      'dist/types/openai/index.d.ts',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => !(f.startsWith('dist/') || f === 'package.json' || f === 'README.md'))).toEqual([]);
  });

  it('declares no runtime dependency, and installs only itself', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(readdirSync(path.join(consumer, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['patchtx']);
  });

  it('runs patchtx and apply_patch from the installed package', () => {
    const bin = path.join(consumer, 'node_modules', '.bin');
    expect(existsSync(path.join(bin, 'patchtx'))).toBe(true);
    const version = spawnSync(path.join(bin, 'patchtx'), ['--version'], { encoding: 'utf8' });
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    // apply_patch outside a repository: validates in memory, then writes the file
    const dir = path.join(work, 'plain');
    execFileSync('mkdir', ['-p', dir]);
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n';
    const r = spawnSync(path.join(bin, 'apply_patch'), [patch], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(path.join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('imports the library by name', () => {
    writeFileSync(
      path.join(consumer, 'use.mjs'),
      "import { applyPatch } from 'patchtx';\n" +
        "const r = applyPatch('*** Begin Patch\\n*** Update File: a.txt\\n@@\\n-one\\n+two\\n*** End Patch\\n', { 'a.txt': 'one\\n' });\n" +
        "process.stdout.write(Buffer.from(r.files['a.txt']).toString());\n",
    );
    const r = spawnSync(process.execPath, ['use.mjs'], { cwd: consumer, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('two\n');
  });

  it('runs a transaction through the library: openRepository().apply on a real repository', () => {
    const dir = makeRepo('basic');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(
      path.join(consumer, 'transaction.mjs'),
      "import { openRepository } from 'patchtx';\n" +
        'const repo = await openRepository({ dir: process.argv[2] });\n' +
        "const r = await repo.apply('*** Begin Patch\\n*** Update File: README.md\\n@@\\n-# Sample\\n+# Sample, from the package\\n*** End Patch\\n', { message: 'Edit from the package' });\n" +
        'process.stdout.write(JSON.stringify(r));\n',
    );
    const r = spawnSync(process.execPath, ['transaction.mjs', dir], { cwd: consumer, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { commit: string; parent: string; files: unknown[] };
    expect(result.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(result.parent).toBe(before);
    expect(result.files).toEqual([{ path: 'README.md', op: 'M', from: null }]);
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('Edit from the package\n');
    expect(git(dir, 'status', '--porcelain', '--', 'README.md')).toBe('');
    git(dir, 'fsck', '--strict');
  });

  it('serves MCP from the installed package: patchtx mcp answers and applies with nothing else installed', () => {
    const dir = makeRepo('basic');
    const message = (id: number, method: string, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
    const input =
      message(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-test', version: '1' } }) +
      message(2, 'tools/call', { name: 'apply_patch', arguments: { patch: '*** Update File: README.md\n@@\n-# Sample\n+# Sample, over MCP\n' } });
    const r = spawnSync(path.join(consumer, 'node_modules', '.bin', 'patchtx'), ['mcp'], { cwd: dir, input, encoding: 'utf8', env: gitEnv });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [init, applied] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result: any });
    expect(init.result.serverInfo.name).toBe('patchtx');
    expect(applied.id).toBe(2);
    expect(applied.result.structuredContent.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    git(dir, 'fsck', '--strict');
  });

  it('ships declarations a TypeScript program type-checks against', () => {
    writeFileSync(
      path.join(consumer, 'typed.ts'),
      'import { openRepository, PatchtxError, type AppliedJson, type ApplyAndPushOptions, type ApplyJson, type ApplyOptions, type PushJson, type Repository }' +
        " from 'patchtx';\n" +
        "const options: ApplyOptions = { dirty: 'include', trailers: ['A=b'], limits: { patchBytes: 1024 }, wait: 1 };\n" +
        'export async function run(dir: string): Promise<string | null> {\n' +
        '  const repo: Repository = await openRepository({ dir });\n' +
        "  const r: ApplyJson = await repo.apply('', options);\n" +
        '  const [last] = await repo.log({ maxCount: 1 });\n' +
        "  return r.commit ?? last?.commit ?? (new PatchtxError('usage', 'x').kind);\n" +
        '}\n' +
        'export async function push(repo: Repository): Promise<string[]> {\n' +
        "  const pushed: PushJson = await repo.push({ remote: 'origin', expected: null, force: false });\n" +
        "  const a: AppliedJson = await repo.apply('', { push: { remote: 'origin', retries: 2 } });\n" +
        '  return [pushed.commit, ...(a.pushed?.reapplied ?? [])];\n' +
        '}\n' +
        "// @ts-expect-error: dirty is 'refuse' or 'include'\n" +
        "export const wrong: ApplyOptions = { dirty: 'sometimes' };\n" +
        '// @ts-expect-error: the push after apply retries with `retries`\n' +
        'export const wrongPush: ApplyAndPushOptions = { push: { retry: 2 } };\n',
    );
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      // a Node program has Node's types (the declarations name Buffer and NodeJS): taken from this project's
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          skipLibCheck: false,
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
