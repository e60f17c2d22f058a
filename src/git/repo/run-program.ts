// Running a program git would run for the same job (a signing program, `git credential`, the
// local transport's git, a hook), with its input on stdin: its exit status, its standard output
// whole, and its standard error as text, bounded (it goes into error messages). A hook's output is
// shown as one text, as a terminal would show it: `combined` puts both streams into that bounded
// text in the order they come. A program that cannot be started is reported, not thrown.
import { spawn } from 'node:child_process';

/** At most this much of a program's (or a hook's) output kept for messages (the end is dropped). */
export const OUTPUT_LIMIT = 64 * 1024;

export interface ProgramRun {
  status: number | null;
  /** its standard output; empty with `combined` */
  stdout: Buffer;
  /** its standard error (with `combined`: both streams), at most OUTPUT_LIMIT characters */
  stderr: string;
  /** the program could not be started */
  error?: NodeJS.ErrnoException;
}

export interface ProgramOptions {
  /** what the program reads on stdin; null: none (stdin is closed) */
  input: Uint8Array | string | null;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** standard output joins standard error in the bounded text */
  combined?: boolean;
}

export function runProgram(program: string, args: string[], opts: ProgramOptions): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let text = '';
    const keep = (c: Buffer): void => {
      if (text.length < OUTPUT_LIMIT) text += c.toString('utf8').slice(0, OUTPUT_LIMIT - text.length);
    };
    const child = spawn(program, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    child.stdout!.on('data', opts.combined ? keep : (c: Buffer) => out.push(c));
    child.stderr!.on('data', keep);
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, stdout: Buffer.alloc(0), stderr: text, error }));
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr: text }));
    // a program that exits without reading its input must not fail the write
    child.stdin?.on('error', () => undefined);
    if (opts.input !== null) child.stdin!.end(opts.input);
  });
}
