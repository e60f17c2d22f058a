import { main } from '../cli/apply_patch.js';

process.exitCode = await main(process.argv.slice(2));
