// The `apply_patch` command (dist/apply_patch.cjs): starts the program from the bundle, see load-cli.ts.
import { runProgram } from './load-cli.js';

runProgram('apply_patch', process.argv.slice(2));
