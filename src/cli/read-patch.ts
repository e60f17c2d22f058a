// Where a patch comes from: a file, `-`, or standard input when no argument is given. Patch bytes
// are decoded strictly (src/patch/utf8.ts): text that is not UTF-8 is refused, not altered.
import { readFileSync, readSync } from 'node:fs';
import { PatchtxError } from '../errors.js';
import { decodePatchBytes } from '../patch/utf8.js';
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
      if (n === 0) return decodePatchBytes(Buffer.concat(chunks));
      chunks.push(chunk.subarray(0, n));
    }
  } catch (e) {
    if (e instanceof PatchtxError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN') throw new PatchtxError('usage', `cannot read standard input: ${code ?? (e as Error).message}`);
  }
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return decodePatchBytes(Buffer.concat(chunks));
}

export async function readPatchSource(source: string | undefined): Promise<string> {
  if (source === undefined || source === '-') {
    if (isTerminal(0)) throw new PatchtxError('usage', 'no patch given: pass a patch file, or pipe the patch into standard input');
    return readStdin();
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (e) {
    throw new PatchtxError('usage', `cannot read patch file ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { path: source });
  }
  return decodePatchBytes(bytes);
}

/**
 * The patch given as a program argument, checked like a patch read from bytes. Node decodes the
 * arguments itself and puts U+FFFD where they are not UTF-8, so an argument holding U+FFFD is
 * looked up in the bytes the process was started with (Linux's /proc/self/cmdline); a real U+FFFD
 * written in UTF-8 passes. Where those bytes cannot be read, the argument is taken as Node gave it.
 */
export function checkedArgument(text: string, argv: readonly string[] = process.argv): string {
  if (!text.includes('\ufffd') || argv[argv.length - 1] !== text) return text;
  let cmdline: Buffer;
  try {
    cmdline = readFileSync('/proc/self/cmdline');
  } catch {
    return text;
  }
  // NUL-terminated arguments; the patch is the last one
  const end = cmdline.length > 0 && cmdline[cmdline.length - 1] === 0 ? cmdline.length - 1 : cmdline.length;
  const raw = cmdline.subarray(cmdline.lastIndexOf(0, end - 1) + 1, end);
  // not the same argument after all (the process changed its own argv): nothing to compare
  if (raw.toString('utf8') !== text) return text;
  return decodePatchBytes(raw);
}
