// What a program that runs the commands (the CLI, apply_patch, the library) needs of the
// transaction layer besides the commands themselves: whether a signal came and the exit status it
// ends the program with, waiting out another transaction's lock, telling a git directory that
// cannot be written apart from other refusals. Offered here so that the programs depend on the commands alone and
// never on the layers below them (eslint.config.js keeps it so).
export { exitStatusFor, receivedSignal, throwIfInterrupted } from '../tx/interrupt.js';
export { parseWaitSeconds, waitingForLocks } from '../tx/wait.js';
export { isReadOnlyRefusal } from '../tx/read-only.js';
