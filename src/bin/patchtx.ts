import { main } from '../cli/patchtx.js';

process.exitCode = await main(process.argv.slice(2));
