// Where a patch comes from: a file, `-`, or standard input when no argument is given. Input is read
// within the patch limits (src/patch/limits.ts), counting as it goes and stopping at the first
// byte over, so endless input (`yes |`, /dev/zero) ends in `limit_exceeded` instead of using up
// memory. Patch bytes are then decoded strictly (src/patch/utf8.ts): text that is not UTF-8 is
// refused, not altered.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { PatchtxError } from '../errors.js';
import { causeOfCode } from '../commands/shown.js';
import { decodePatchBytes, DEFAULT_LIMITS, describeBytes, limitExceeded, lineTooLong, type Limits } from '../commands/inputs.js';
import { isTerminal } from './stdio.js';

type ReadLimits = Pick<Limits, 'patchBytes' | 'lineBytes'>;

/** Collects input bytes, throwing `limit_exceeded` at the first byte beyond a limit. */
class BoundedInput {
  private readonly chunks: Buffer[] = [];
  private total = 0;
  /** complete lines so far, and the bytes of the line under way */
  private lines = 0;
  private lineBytes = 0;

  constructor(private readonly limits: ReadLimits) {}

  /** How many bytes to ask for next: never more than one past the size limit. */
  room(size: number): number {
    return Math.min(size, this.limits.patchBytes + 1 - this.total);
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.total > this.limits.patchBytes) {
      const max = this.limits.patchBytes;
      throw limitExceeded('patchBytes', `the patch is larger than ${describeBytes(max)}: reading stopped after ${this.total} bytes`, max);
    }
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.checkLine(this.lineBytes + nl - start);
      this.lines++;
      this.lineBytes = 0;
      start = nl + 1;
    }
    this.lineBytes += chunk.length - start;
    this.checkLine(this.lineBytes);
    this.chunks.push(chunk);
  }

  /**
   * Stops reading a line that is over by more than a `\r` (which belongs to the line ending); the
   * parser checks each line exactly.
   */
  private checkLine(length: number): void {
    if (length > this.limits.lineBytes + 1) throw lineTooLong(this.lines + 1, this.limits.lineBytes);
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.total);
  }
}

const CHUNK = 64 * 1024;

/** Reads `fd` to its end (or to EAGAIN: false) into `input`. */
function readDescriptor(fd: number, input: BoundedInput): boolean {
  for (;;) {
    const chunk = Buffer.allocUnsafe(input.room(CHUNK));
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      throw e;
    }
    if (n === 0) return true;
    input.add(chunk.subarray(0, n));
  }
}

/**
 * Standard input, to its end. Read with blocking reads on descriptor 0, as git reads it: on a
 * pipe process.stdin would be a net.Socket, whose creation loads Node's net and stream modules at
 * every start (see stdio.ts). A descriptor that is non-blocking (EAGAIN) is read on through
 * the stream, after what was read already.
 */
export async function readStdin(limits: ReadLimits = DEFAULT_LIMITS): Promise<string> {
  const input = new BoundedInput(limits);
  let done: boolean;
  try {
    done = readDescriptor(0, input);
  } catch (e) {
    if (e instanceof PatchtxError) throw e;
    throw new PatchtxError('usage', `cannot read standard input: ${unreadable(e)}`);
  }
  // leaving the loop early (a limit) destroys the stream: nothing more is read
  if (!done) for await (const chunk of process.stdin) input.add(chunk as Buffer);
  return decodePatchBytes(input.bytes());
}

/** Why a file could not be read, in words: these, then the environment's causes (io-error.ts); the
 * code itself only for a cause named nowhere. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a leading part of the path is not a directory',
  ELOOP: 'too many levels of symbolic links',
};

function unreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code !== undefined ? (UNREADABLE[code] ?? causeOfCode(code) ?? `the system refused (${code})`) : String((e as Error).message ?? e).split('\n')[0]!;
}

export async function readPatchSource(source: string | undefined, limits: ReadLimits = DEFAULT_LIMITS): Promise<string> {
  if (source === undefined || source === '-') {
    if (isTerminal(0)) throw new PatchtxError('usage', 'no patch given: pass a patch file, or pipe the patch into standard input');
    return readStdin(limits);
  }
  const input = new BoundedInput(limits);
  let fd: number | undefined;
  try {
    fd = openSync(source, 'r');
    readDescriptor(fd, input);
  } catch (e) {
    if (e instanceof PatchtxError) throw e;
    throw new PatchtxError('usage', `cannot read patch file ${source}: ${unreadable(e)}`, { path: source });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return decodePatchBytes(input.bytes());
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
