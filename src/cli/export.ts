// `patchtx export [REVISION-RANGE]`: the transactions as JSON lines on stdout, oldest first, for
// `patchtx replay` (src/commands/export.ts does the work); what the export leaves out is named on
// stderr.
import type { Command } from 'commander';
import { exportTransactions } from '../commands/export.js';
import type { Streams } from './output.js';

export function addExportCommand(program: Command, streams: Streams, run: (json: boolean | undefined, fn: () => Promise<void>) => Promise<void>): void {
  program
    .command('export')
    .argument('[range]', "A..B, or one revision (default: the branch's whole history)")
    .description('print the patchtx transactions as JSON lines, oldest first, for patchtx replay')
    .option('--repo <dir>', 'repository to work in (default: the one containing the current directory)')
    .option('--ref <ref>', 'branch to export when no range is given (default: the checked-out branch)')
    .action((range: string | undefined, flags: { repo?: string; ref?: string }) =>
      run(false, async () => {
        const { records, warnings } = await exportTransactions({ repoDir: flags.repo, ref: flags.ref, range });
        for (const w of warnings) streams.err(`warning: ${w}\n`);
        streams.out(records.map((r) => JSON.stringify(r) + '\n').join(''));
      }),
    );
}
