// The subset of node:fs/promises the git layer uses, carried out with the synchronous calls.
//
// patchtx is a short-lived command doing one transaction's I/O in sequence; every fs/promises
// call is a round trip through libuv's thread pool, which profiling showed to be the largest
// single cost of a transaction (a third of the wall time on a 100-file patch, more under load).
// The functions keep their promise-returning shape so callers stay ordinary async code, and
// errors still arrive as rejections carrying the usual `code`.
import * as fs from 'node:fs';
import path from 'node:path';
import type { BigIntStats, Dirent, MakeDirectoryOptions, RmOptions, Stats } from 'node:fs';
import { clock, timed } from '../../timing.js';

type PathLike = fs.PathLike;

export class FileHandle {
  constructor(readonly fd: number) {}

  async writeFile(data: string | Uint8Array): Promise<void> {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.byteLength) off += fs.writeSync(this.fd, buf, off, buf.byteLength - off);
  }

  /** Writes the buffers one after the other (writev; libuv splits lists longer than IOV_MAX). */
  async writeAll(buffers: readonly Uint8Array[]): Promise<void> {
    let rest = buffers.filter((b) => b.byteLength > 0);
    while (rest.length > 0) {
      // a short write (not seen on regular files, but allowed) leaves the rest for another call
      let written = fs.writevSync(this.fd, rest);
      let done = 0;
      while (done < rest.length && written >= rest[done]!.byteLength) written -= rest[done++]!.byteLength;
      rest = rest.slice(done);
      if (written > 0) rest[0] = rest[0]!.subarray(written);
    }
  }

  /**
   * The file's bytes, for a size the caller has just taken from this handle's stat: reads that
   * many bytes (fewer if the file shrank) without the second fstat readFileSync would make, one
   * per file read in a transaction.
   */
  async readKnownSize(size: number): Promise<Buffer> {
    return readKnownSizeSync(this.fd, size);
  }

  async read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    return { bytesRead: fs.readSync(this.fd, buffer, offset, length, position), buffer };
  }

  async stat(opts: { bigint: true }): Promise<BigIntStats>;
  async stat(opts?: { bigint?: false }): Promise<Stats>;
  async stat(opts?: { bigint?: boolean }): Promise<Stats | BigIntStats> {
    return opts?.bigint ? fs.fstatSync(this.fd, { bigint: true }) : fs.fstatSync(this.fd);
  }

  async sync(): Promise<void> {
    const t = clock();
    fs.fsyncSync(this.fd);
    timed('fsync', t);
  }

  async close(): Promise<void> {
    fs.closeSync(this.fd);
  }
}

export async function open(file: PathLike, flags: string | number, mode?: number): Promise<FileHandle> {
  return new FileHandle(fs.openSync(file, flags, mode));
}

export async function readFile(file: PathLike): Promise<Buffer>;
export async function readFile(file: PathLike, encoding: BufferEncoding): Promise<string>;
export async function readFile(file: PathLike, encoding: { encoding: BufferEncoding }): Promise<string>;
export async function readFile(file: PathLike, encoding?: BufferEncoding | { encoding: BufferEncoding }): Promise<string | Buffer> {
  return encoding === undefined ? fs.readFileSync(file) : fs.readFileSync(file, encoding);
}

export async function writeFile(file: PathLike, data: string | Uint8Array, options?: fs.WriteFileOptions): Promise<void> {
  fs.writeFileSync(file, data, options);
}

export async function appendFile(file: PathLike, data: string | Uint8Array): Promise<void> {
  fs.appendFileSync(file, data);
}

export async function mkdir(dir: PathLike, options?: MakeDirectoryOptions | number): Promise<string | undefined> {
  return typeof options === 'object' && options.recursive ? mkdirpSync(String(dir), options.mode) : fs.mkdirSync(dir, options);
}

/** FileHandle.readKnownSize on a descriptor: `size` bytes from where `fd` is (fewer if the file shrank). */
export function readKnownSizeSync(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const n = fs.readSync(fd, buf, length, size - length, null);
    if (n === 0) break;
    length += n;
  }
  return length === size ? buf : buf.subarray(0, length);
}

/** A file's stat data as one string: type and permissions, size, identity and both times (a save
 * changes at least one of them). For telling whether a file changed since it was looked at. */
export const statData = (st: BigIntStats): string => `${st.mode}:${st.size}:${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;

/** Removes `file` if it is there (one unlink, where rmSync looks at the file twice first). */
export function unlinkIfThereSync(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * `mkdir -p`. Node's recursive mkdir reports ENOENT where a directory cannot be created on a
 * read-only file system (it looks the path up after the refused mkdir); the levels are then made
 * one at a time, so the error names the real cause (EROFS, EACCES...) and the directory it is about.
 */
export function mkdirpSync(dir: string, mode?: fs.Mode): string | undefined {
  try {
    return fs.mkdirSync(dir, { recursive: true, mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return missing[0];
}

export async function readdir(dir: PathLike): Promise<string[]>;
export async function readdir(dir: PathLike, options: { withFileTypes: true }): Promise<Dirent[]>;
export async function readdir(dir: PathLike, options?: { withFileTypes?: boolean }): Promise<string[] | Dirent[]> {
  return options?.withFileTypes ? fs.readdirSync(dir, { withFileTypes: true }) : fs.readdirSync(dir);
}

export async function stat(file: PathLike, opts: { bigint: true }): Promise<BigIntStats>;
export async function stat(file: PathLike, opts?: { bigint?: false }): Promise<Stats>;
export async function stat(file: PathLike, opts?: { bigint?: boolean }): Promise<Stats | BigIntStats> {
  return opts?.bigint ? fs.statSync(file, { bigint: true }) : fs.statSync(file);
}

export async function lstat(file: PathLike, opts: { bigint: true }): Promise<BigIntStats>;
export async function lstat(file: PathLike, opts?: { bigint?: false }): Promise<Stats>;
export async function lstat(file: PathLike, opts?: { bigint?: boolean }): Promise<Stats | BigIntStats> {
  return opts?.bigint ? fs.lstatSync(file, { bigint: true }) : fs.lstatSync(file);
}

export async function readlink(file: PathLike, opts: { encoding: 'buffer' }): Promise<Buffer>;
export async function readlink(file: PathLike): Promise<string>;
export async function readlink(file: PathLike, opts?: { encoding: 'buffer' }): Promise<string | Buffer> {
  return opts ? fs.readlinkSync(file, opts) : fs.readlinkSync(file);
}

export async function realpath(file: PathLike): Promise<string> {
  return fs.realpathSync(file);
}

export async function rename(from: PathLike, to: PathLike): Promise<void> {
  fs.renameSync(from, to);
}

export async function unlink(file: PathLike): Promise<void> {
  fs.unlinkSync(file);
}

export async function rm(file: PathLike, options?: RmOptions): Promise<void> {
  fs.rmSync(file, options);
}

export async function rmdir(dir: PathLike): Promise<void> {
  fs.rmdirSync(dir);
}

export async function chmod(file: PathLike, mode: number): Promise<void> {
  fs.chmodSync(file, mode);
}

export async function symlink(target: string, file: PathLike): Promise<void> {
  fs.symlinkSync(target, file);
}
