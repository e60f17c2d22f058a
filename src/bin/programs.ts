// The two command-line programs, bundled together into dist/cli.cjs and started by the small
// entry files (patchtx.ts, apply_patch.ts) through load-cli.ts.
export { main as patchtx } from '../cli/patchtx.js';
export { main as apply_patch } from '../cli/apply_patch.js';
export { handleSignals } from '../tx/interrupt.js';
