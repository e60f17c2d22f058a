// `apply_patch`: a drop-in for the Codex standalone command. Same invocation
// (`apply_patch 'PATCH'` or the patch on standard input), same success text, exit 0/1/2.
// Inside a git repository every call is a patchtx transaction (one commit, or nothing); outside
// one, the whole patch is still validated in memory before a single file is written.
import { PatchtxError } from '../errors.js';
import { openRepository } from '../git/discover.js';
import { applyTransaction } from '../tx/apply.js';
import { applyToDirectory } from '../tx/plain-dir.js';
import { codexSummary, processStreams, toError, type Streams } from './output.js';
import { readStdin } from './read-patch.js';

const USAGE = `Usage: apply_patch [--preserve-crlf] 'PATCH'\n       echo 'PATCH' | apply_patch [--preserve-crlf]\n`;

async function insideRepository(cwd: string): Promise<boolean> {
  try {
    await openRepository({ cwd });
    return true;
  } catch (e) {
    if (e instanceof PatchtxError && e.kind === 'not_a_repository') return false;
    throw e;
  }
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
    patchText = process.stdin.isTTY ? '' : await readStdin();
    if (patchText === '') {
      streams.err(USAGE);
      return 2;
    }
  }
  try {
    const summary = (await insideRepository(cwd))
      ? (await applyTransaction({ patchText, cwd, dirty: 'include' })).summary
      : await applyToDirectory(cwd, patchText);
    streams.out(codexSummary(summary));
    return 0;
  } catch (e) {
    const err = toError(e);
    streams.err(err.message + '\n');
    return err.kind === 'internal' ? 70 : 1;
  }
}
