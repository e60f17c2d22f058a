// The `patchtx` command (dist/patchtx.cjs): starts the program from the bundle, see load-cli.ts.
import { runProgram } from './load-cli.js';

runProgram('patchtx', process.argv.slice(2));
