// Why this file exists: the layering the README describes (CLI -> transaction -> engine and git
// layer; a pure core that does no file I/O; git/ never reaching up into tx/) is kept true by lint
// rather than by review alone. `npm run lint` runs it; `npm test` runs it before the tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// The pure core: parsing, matching and rebuilding text, planning changes. It computes; it does
// not touch files, processes, git or the transaction.
const CORE = ['src/patch', 'src/match', 'src/apply', 'src/text', 'src/engine', 'src/edits'];
const dirs = (...names) => names.map((n) => `./src/${n}`);

// Who may not import whom. Each zone forbids `target` from importing anything under `from`.
const LAYERS = [
  {
    target: './src/git',
    from: dirs('tx', 'commands', 'engine', 'patch', 'match', 'apply', 'edits', 'cli', 'api', 'mcp', 'openai'),
    message: 'the git layer stands alone: it knows objects, refs and the index, not patches or transactions.',
  },
  {
    target: CORE.map((d) => `./${d}`),
    from: dirs('tx', 'git', 'cli', 'commands', 'api', 'mcp', 'openai'),
    message: 'the pure core computes on values; the transaction and the git layer call it, not the other way round.',
  },
  {
    target: './src/tx',
    from: dirs('commands', 'cli', 'api', 'mcp', 'openai'),
    message: 'the transaction layer is called by the commands only; it does not reach back up.',
  },
  {
    target: './src/commands',
    from: dirs('cli', 'api', 'mcp', 'openai'),
    message: 'commands are called by the CLI, the library and the servers; they do not reach back up into them.',
  },
  {
    // the library is a thin face over the commands (argument checks, one command a file): what it
    // needs of the layers below, the commands offer (commands/process.ts, open.ts, begin.ts,
    // rooted.ts); the pure core it may import, since it exposes the pure engine on purpose
    target: './src/api',
    from: dirs('tx', 'git', 'cli', 'mcp', 'openai'),
    message: 'the library runs the commands (src/commands); it does not reach into the transaction or the git layer, nor back up into the CLI and the servers.',
  },
  {
    // the programs run the commands: what they need of the layers below, the commands offer
    // (commands/process.ts, shown.ts, inputs.ts), so a change below reaches them through one place
    target: './src/cli',
    from: dirs('tx', 'git', ...CORE.map((d) => d.slice('src/'.length)), 'logs'),
    message: 'the CLI runs the commands (src/commands) and the library; it does not reach into the transaction, the git layer or the pure core.',
  },
  {
    // the server is a client of the library, as any program using it would be
    target: './src/mcp',
    from: dirs('cli', 'tx', 'git', 'engine', 'match', 'apply'),
    message: 'the MCP server calls the library (src/api) and the commands; the CLI starts it, not the other way round.',
  },
  {
    // the Responses API / Agents SDK surface is a client of the library, as the MCP server is
    target: './src/openai',
    from: dirs('cli', 'tx', 'git', 'engine', 'match', 'apply', 'mcp'),
    message: 'the OpenAI surface calls the library (src/api); it does not reach into the transaction or the git layer.',
  },
];

const IO_MODULES = ['fs', 'fs/promises', 'child_process'].flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'fixtures-repos/**', 'bench/**', 'scripts/**', 'docs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // parse the .ts files an import leads to (no-cycle follows them), resolved as tsc does
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
  },
  {
    // tests may import anything from src; the layering is src's own
    files: ['src/**/*.ts'],
    rules: {
      // a cycle between modules is a layering mistake even inside one folder
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: LAYERS }],
    },
  },
  {
    files: CORE.map((d) => `${d}/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'the pure core does no file or process I/O.' })),
        },
      ],
    },
  },
  {
    // tests read the programs' JSON output, whose shape is exactly what they check
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
