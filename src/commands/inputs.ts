// What a program reads its inputs with, kept by the pure core: the bounds on input and matching
// work (limits), patch bytes decoded as UTF-8 text, a JSON list of edit operations, and the kinds
// of step and of log the commands take. Offered here so that a program depends on the commands
// alone and never on the layers below them (eslint.config.js keeps it so).
export { DEFAULT_LIMITS, describeBytes, limitExceeded, limitsWith, lineTooLong, parseLimitSpec, type Limits } from '../patch/limits.js';
export { decodePatchBytes } from '../patch/utf8.js';
export { parseOpsText } from '../edits/ops.js';
export type { Step } from '../edits/step.js';
export type { LogFormat } from '../logs/types.js';
