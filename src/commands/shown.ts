// The words and lines the commands' results are shown with, for a program that prints them: a
// change as one line (`M path`, `R from -> path`), a unified diff, the remedy for a history a
// shallow clone cuts short, the cause an errno code names. The layers below own them; a program
// takes them from here, so that it depends on the commands alone (eslint.config.js keeps it so).
export { changeLine } from '../tx/message.js';
export { unifiedDiff } from '../engine/diff.js';
export { DEEPEN_REMEDY } from '../git/refs/shallow.js';
export { causeOfCode } from '../git/fs/io-error.js';
