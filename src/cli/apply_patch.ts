// `apply_patch`: a drop-in for the Codex standalone command. Same invocation
// (`apply_patch 'PATCH'` or the patch on standard input), same success text, exit 0/1/2.
// Inside a git repository every call is a patchtx transaction (one commit, or nothing); outside
// one, the whole patch is still validated in memory before a single file is written.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PatchtxError } from '../errors.js';
import { openRepository } from '../git/discover.js';
import { applyTransaction } from '../tx/apply.js';
import { applyToDirectory } from '../tx/plain-dir.js';
import { codexSummary, processStreams, toError, type Streams } from './output.js';
import { readStdin } from './read-patch.js';
import { isTerminal } from './stdio.js';

const USAGE = `Usage: apply_patch [--preserve-crlf] 'PATCH'\n       echo 'PATCH' | apply_patch [--preserve-crlf]\n`;

/**
 * Where `cwd` is in the repository that contains it: the repository-relative directory ('' at the
 * top, or in a bare repository), or null outside any repository.
 */
async function placeInRepository(cwd: string): Promise<string | null> {
  let repo;
  try {
    repo = await openRepository({ cwd });
  } catch (e) {
    if (e instanceof PatchtxError && e.kind === 'not_a_repository') return null;
    throw e;
  }
  if (repo.workdir === null) return '';
  const rel = path.relative(repo.workdir, realpathSync(cwd)).split(path.sep).join('/');
  // patch paths are relative to cwd, as in Codex; a cwd inside .git is refused by the path checks
  return rel;
}

/** The summary's paths as the patch spelled them (relative to cwd, not to the repository root). */
function relativeSummary(summary: string[], prefix: string): string[] {
  if (prefix === '') return summary;
  return summary.map((l) => (l.slice(2).startsWith(prefix + '/') ? l.slice(0, 2) + l.slice(2 + prefix.length + 1) : l));
}

export async function main(argv: string[], streams: Streams = processStreams, cwd = process.cwd()): Promise<number> {
  // line endings are always preserved; the flag is accepted for compatibility
  const args = argv[0] === '--preserve-crlf' ? argv.slice(1) : argv;
  if (args.length > 1) {
    streams.err('Error: apply_patch accepts exactly one PATCH argument.\n');
    return 2;
  }
  let patchText = args[0];
  if (patchText === undefined) {
    patchText = isTerminal(0) ? '' : await readStdin();
    if (patchText === '') {
      streams.err(USAGE);
      return 2;
    }
  }
  try {
    const prefix = await placeInRepository(cwd);
    let summary: string[];
    if (prefix !== null) {
      const result = await applyTransaction({ patchText, cwd, dirty: 'include', pathPrefix: prefix });
      summary = relativeSummary(result.summary, prefix);
      // Codex prints nothing else; uncommitted work the patch replaced must still be told of
      for (const w of result.warnings) if (w.replaced) streams.err(`warning: ${w.message}\n`);
    } else {
      summary = await applyToDirectory(cwd, patchText);
    }
    streams.out(codexSummary(summary));
    return 0;
  } catch (e) {
    const err = toError(e);
    streams.err(err.message + '\n');
    return err.kind === 'internal' ? 70 : 1;
  }
}
