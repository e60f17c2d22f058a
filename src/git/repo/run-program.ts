// Running a program git would run for the same job (a signing program, `git credential`), with
// its input on stdin: its exit status, its standard output whole, and its standard error as text,
// bounded (it goes into error messages). A program that cannot be started is reported, not thrown.
import { spawn } from 'node:child_process';

/** At most this much of a program's (or a hook's) output kept for messages (the end is dropped). */
export const OUTPUT_LIMIT = 64 * 1024;

export interface ProgramRun {
  status: number | null;
  stdout: Buffer;
  stderr: string;
  /** the program could not be started */
  error?: NodeJS.ErrnoException;
}

export function runProgram(
  program: string,
  args: string[],
  opts: { input: Uint8Array | string | null; env: NodeJS.ProcessEnv; cwd?: string },
): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let stderr = '';
    const child = spawn(program, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => {
      if (stderr.length < OUTPUT_LIMIT) stderr += c.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, stdout: Buffer.alloc(0), stderr, error }));
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr }));
    // a program that exits without reading its input must not fail the write
    child.stdin?.on('error', () => undefined);
    if (opts.input !== null) child.stdin!.end(opts.input);
  });
}
