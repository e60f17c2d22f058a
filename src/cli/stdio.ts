// The programs' standard descriptors without Node's stream objects where they can do without:
// output written straight to descriptors 1 and 2, and terminals told apart without a stream.
//
// Why not process.stdout: on a pipe (how agents, CI and the benchmark run patchtx) it is a
// net.Socket, and creating it loads Node's net, stream and tty modules: several milliseconds of a
// 10-file transaction, for a few lines of text. A synchronous write(2) is what Node itself does
// for files and terminals. Two cases need the stream after all:
// - EAGAIN: the descriptor is non-blocking (shared with a parent that set O_NONBLOCK) and its pipe
//   is full. The rest goes through the stream, which waits for the reader; from then on that
//   descriptor always does, so the output keeps its order.
// - EPIPE: the reader has gone (`patchtx log | head -1`). Nothing more can be said there; the
//   command's outcome (a commit may already exist) is still reported by its exit code.
import { fstatSync, writeSync } from 'node:fs';

const viaStream = new Set<number>();
const closed = new Set<number>();

export function writeToFd(fd: 1 | 2, text: string): void {
  if (closed.has(fd) || text === '') return;
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  if (!viaStream.has(fd)) {
    try {
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        closed.add(fd);
        return;
      }
      if (code !== 'EAGAIN') throw e;
      viaStream.add(fd);
      // the stream reports a reader that has gone as an 'error' event: the same quiet end
      (fd === 1 ? process.stdout : process.stderr).on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        closed.add(fd);
      });
    }
  }
  (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(done));
}

/**
 * Whether descriptor `fd` is a terminal. Only a character device can be one, so the stream (and
 * with it Node's tty and net modules) is consulted only for those: for a pipe or a file, the
 * usual case for agents and CI, the answer costs one fstat.
 */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    // the descriptor is closed or unusable: let the stream judge
  }
  return (fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr).isTTY === true;
}
