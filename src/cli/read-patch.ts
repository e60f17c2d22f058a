// Where a patch comes from: a file, `-`, or standard input when no argument is given.
import { readFileSync } from 'node:fs';
import { PatchtxError } from '../errors.js';

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function readPatchSource(source: string | undefined): Promise<string> {
  if (source === undefined || source === '-') {
    if (process.stdin.isTTY) throw new PatchtxError('usage', 'no patch given: pass a patch file, or pipe the patch into standard input');
    return readStdin();
  }
  try {
    return readFileSync(source, 'utf8');
  } catch (e) {
    throw new PatchtxError('usage', `cannot read patch file ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { path: source });
  }
}
