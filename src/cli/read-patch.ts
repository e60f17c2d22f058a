// Where a patch comes from: a file, `-`, or standard input when no argument is given.
import { readFileSync, readSync } from 'node:fs';
import { PatchtxError } from '../errors.js';
import { isTerminal } from './stdio.js';

/**
 * Standard input, to its end. Read with blocking reads on descriptor 0, as git reads it: on a
 * pipe process.stdin would be a net.Socket, whose creation loads Node's net and stream modules at
 * every start (see stdio.ts). A descriptor that is non-blocking (EAGAIN) is read on through
 * the stream, after what was read already.
 */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(0, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks).toString('utf8');
      chunks.push(chunk.subarray(0, n));
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN') throw new PatchtxError('usage', `cannot read standard input: ${unreadable(e)}`);
  }
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a file could not be read, in words (the code itself only for a cause not named here). */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a leading part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the file name is too long',
  EIO: 'an input/output error',
};

function unreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code !== undefined ? (UNREADABLE[code] ?? `the system refused (${code})`) : String((e as Error).message ?? e).split('\n')[0]!;
}

export async function readPatchSource(source: string | undefined): Promise<string> {
  if (source === undefined || source === '-') {
    if (isTerminal(0)) throw new PatchtxError('usage', 'no patch given: pass a patch file, or pipe the patch into standard input');
    return readStdin();
  }
  try {
    return readFileSync(source, 'utf8');
  } catch (e) {
    throw new PatchtxError('usage', `cannot read patch file ${source}: ${unreadable(e)}`, { path: source });
  }
}
