// A run that names a command defines only that command (src/cli/patchtx.ts, commandNamed): what the
// option parser says about that run's arguments must be what the whole program says. Each case
// stops in the parser (an unknown option, a missing value or argument, a bad choice, one argument
// too many), so no command runs.
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/patchtx.js';

/** What parsing `argv` prints and throws, with every command defined or only `only`. */
async function parse(argv: string[], only?: string): Promise<{ err: string; out: string; code: number | null; commands: number }> {
  let err = '';
  let out = '';
  const program = buildProgram({ out: (t) => void (out += t), err: (t) => void (err += t) }, () => undefined, false, only);
  let code: number | null = null;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode;
  }
  return { err, out, code, commands: program.commands.length };
}

const CASES = [
  ['apply', '--bogus', 'x.patch'],
  ['apply', '--dirty', 'sometimes', 'x.patch'],
  ['apply', '--wait'],
  ['check', 'a.patch', 'b.patch'],
  ['undo', '--nope'],
  ['redo', 'extra'],
  ['push', '--expect'],
  ['log', '--max-count'],
  ['show'],
  ['recover', '--bogus'],
  ['replay'],
  ['export', 'a', 'b'],
  ['mcp', '--bogus'],
];

describe('a run naming one command', () => {
  it('--version alone prints the version with no command defined', async () => {
    const whole = await parse(['--version']);
    const none = await parse(['--version'], '');
    expect(none.commands).toBe(0);
    expect(whole.out).toBe('0.1.0\n');
    expect(none).toEqual({ ...whole, commands: 0 });
  });

  it.each(CASES.map((argv) => [argv.join(' '), argv] as const))('parses alike with only that command defined: %s', async (_, argv) => {
    const whole = await parse(argv);
    const one = await parse(argv, argv[0]);
    expect(one.commands).toBe(1);
    expect(whole.commands).toBeGreaterThan(1);
    expect(whole.code).not.toBeNull();
    expect(whole.err).not.toBe('');
    expect(one).toEqual({ ...whole, commands: 1 });
  });
});
