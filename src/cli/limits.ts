// The patch limits as the programs take them: `patchtx apply|check --limits SPEC` and the
// environment variable PATCHTX_LIMITS (the only way for apply_patch, whose command line is
// Codex's), SPEC as in src/patch/limits.ts. A `limit_exceeded` error is told how to raise the
// limit here, where the options are known.
import { PatchtxError } from '../errors.js';
import { limitsWith, parseLimitSpec, type Limits } from '../commands/inputs.js';

export const LIMITS_ENV = 'PATCHTX_LIMITS';

/** The environment's limits, then the option's over them. */
export function limitsFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): Limits {
  const fromEnv = env[LIMITS_ENV] === undefined ? {} : parseLimitSpec(env[LIMITS_ENV], LIMITS_ENV);
  const fromOption = option === undefined ? {} : parseLimitSpec(option, '--limits');
  return limitsWith({ ...fromEnv, ...fromOption });
}

/** `e` with how to raise its limit appended, when it is a `limit_exceeded`. */
export function withLimitRemedy(e: unknown, program: 'patchtx' | 'apply_patch'): unknown {
  if (!(e instanceof PatchtxError) || e.kind !== 'limit_exceeded' || typeof e.data.limit !== 'string') return e;
  const setting = `${e.data.limit}=N`;
  const how = program === 'patchtx' ? `--limits ${setting} (or ${LIMITS_ENV}=${setting} in the environment)` : `${LIMITS_ENV}=${setting} in the environment`;
  return new PatchtxError(e.kind, `${e.message}; raise it with ${how}`, e.data);
}
