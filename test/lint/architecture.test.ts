// The lint rules that keep the layering true are checked here against code that breaks them, so a
// config that stops resolving imports (and so silently passes everything) fails a test instead.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

/** The rule ids lint reports for `code` as if it were the file at `file` (relative to the root). */
async function rulesFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('architecture lint', () => {
  it('refuses the git layer importing the transaction layer', async () => {
    const code = "import { runTransaction } from '../../tx/run.js';\nvoid runTransaction;\n";
    expect(await rulesFor('src/git/refs/probe.ts', code)).toContain('import-x/no-restricted-paths');
  });

  it('refuses the git layer importing the pure core', async () => {
    const code = "import { parsePatch } from '../../patch/parse.js';\nvoid parsePatch;\n";
    expect(await rulesFor('src/git/refs/probe.ts', code)).toContain('import-x/no-restricted-paths');
  });

  it('refuses the OpenAI surface reaching past the library into the transaction or the git layer', async () => {
    const probes = [
      "import { runTransaction } from '../tx/run.js';\nvoid runTransaction;\n",
      "import { openRepository } from '../git/repo/discover.js';\nvoid openRepository;\n",
    ];
    for (const code of probes) expect(await rulesFor('src/openai/probe.ts', code), code).toContain('import-x/no-restricted-paths');
    const library = "import { begin } from '../api/begin.js';\nvoid begin;\n";
    expect(await rulesFor('src/openai/probe.ts', library)).toEqual([]);
  });

  it('refuses the CLI reaching past the commands into the transaction, the git layer or the pure core', async () => {
    const probes = [
      "import { waitingForLocks } from '../tx/wait.js';\nvoid waitingForLocks;\n",
      "import { openRepository } from '../git/repo/discover.js';\nvoid openRepository;\n",
      "import { unifiedDiff } from '../engine/diff.js';\nvoid unifiedDiff;\n",
      "import { parseLimitSpec } from '../patch/limits.js';\nvoid parseLimitSpec;\n",
    ];
    for (const code of probes) expect(await rulesFor('src/cli/probe.ts', code), code).toContain('import-x/no-restricted-paths');
    const commands = "import { applyTransaction } from '../commands/apply.js';\nvoid applyTransaction;\n";
    expect(await rulesFor('src/cli/probe.ts', commands)).toEqual([]);
  });

  it('refuses the library reaching past the commands into the transaction or the git layer, even for a type', async () => {
    const probes = [
      "import { waitingForLocks } from '../tx/wait.js';\nvoid waitingForLocks;\n",
      "import type { WarmRepository } from '../tx/warm.js';\nexport type Kept = WarmRepository;\n",
      "import { openRepository } from '../git/repo/discover.js';\nvoid openRepository;\n",
      "import { writeToFd } from '../cli/stdio.js';\nvoid writeToFd;\n",
    ];
    for (const code of probes) expect(await rulesFor('src/api/probe.ts', code), code).toContain('import-x/no-restricted-paths');
    const allowed = [
      "import { waitingForLocks } from '../commands/process.js';\nvoid waitingForLocks;\n",
      "import { planContents } from '../engine/plan.js';\nvoid planContents;\n",
    ];
    for (const code of allowed) expect(await rulesFor('src/api/probe.ts', code), code).toEqual([]);
  });

  it('refuses the MCP server reaching past the library into the transaction or the git layer', async () => {
    const probes = [
      "import { waitingForLocks } from '../tx/wait.js';\nvoid waitingForLocks;\n",
      "import type { WarmRepository } from '../tx/warm.js';\nexport type Kept = WarmRepository;\n",
      "import { openRepository } from '../git/repo/discover.js';\nvoid openRepository;\n",
    ];
    for (const code of probes) expect(await rulesFor('src/mcp/probe.ts', code), code).toContain('import-x/no-restricted-paths');
  });

  it('refuses the layers below the library reaching back up into it or into the servers', async () => {
    for (const file of ['src/commands/probe.ts', 'src/tx/probe.ts', 'src/engine/probe.ts', 'src/git/refs/probe.ts']) {
      const src = path.posix.relative(path.posix.dirname(file), 'src');
      for (const module of ['api/openRepository.js', 'openai/editor.js', 'mcp/server.js']) {
        const code = `import * as up from '${src}/${module}';\nvoid up;\n`;
        expect(await rulesFor(file, code), `${file}: ${module}`).toContain('import-x/no-restricted-paths');
      }
    }
  });

  it('refuses the pure core importing the git layer', async () => {
    const code = "import { readFile } from '../git/fs/fsx.js';\nvoid readFile;\n";
    expect(await rulesFor('src/engine/probe.ts', code)).toContain('import-x/no-restricted-paths');
  });

  it('refuses the transaction layer importing the CLI', async () => {
    const code = "import { writeToFd } from '../cli/stdio.js';\nvoid writeToFd;\n";
    expect(await rulesFor('src/tx/probe.ts', code)).toContain('import-x/no-restricted-paths');
  });

  it('refuses file and process I/O in the pure core', async () => {
    for (const mod of ['node:fs', 'fs', 'node:fs/promises', 'node:child_process']) {
      const code = `import * as io from '${mod}';\nvoid io;\n`;
      expect(await rulesFor('src/match/probe.ts', code), mod).toContain('no-restricted-imports');
    }
  });

  it('keeps the edit operations pure: no file I/O, no transaction', async () => {
    expect(await rulesFor('src/edits/probe.ts', "import * as io from 'node:fs';\nvoid io;\n")).toContain('no-restricted-imports');
    const tx = "import { runTransaction } from '../tx/run.js';\nvoid runTransaction;\n";
    expect(await rulesFor('src/edits/probe.ts', tx)).toContain('import-x/no-restricted-paths');
  });

  it('refuses an import cycle', async () => {
    // decode.ts imports errors.ts: errors.ts importing decode.ts back closes a cycle
    const code = "import { decodeText } from './text/decode.js';\nexport const probe = decodeText;\n";
    expect(await rulesFor('src/errors.ts', code)).toContain('import-x/no-cycle');
  });

  it('lets tests import anything from src, and lets the layers import what they may', async () => {
    const test = "import { runTransaction } from '../../src/tx/run.js';\nvoid runTransaction;\n";
    expect(await rulesFor('test/git/probe.test.ts', test)).toEqual([]);
    const tx = "import { readFile } from '../git/fs/fsx.js';\nimport { parsePatch } from '../patch/parse.js';\nvoid readFile;\nvoid parsePatch;\n";
    expect(await rulesFor('src/tx/probe.ts', tx)).toEqual([]);
  });
});
