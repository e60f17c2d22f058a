// Hand-built Chunk objects for matcher tests (no parser involved).
import type { Chunk, ChunkLine } from '../../src/patch/types.js';

/** `lines` in diff form: ' ctx', '-old', '+new' ('' = empty context line). */
export function chunk(lines: string[], opts: { contexts?: string[]; eof?: boolean; line?: number } = {}): Chunk {
  const parsed: ChunkLine[] = lines.map((l) => (l === '' ? { op: ' ', text: '' } : { op: l[0] as ChunkLine['op'], text: l.slice(1) }));
  return {
    contexts: opts.contexts ?? [],
    lines: parsed,
    oldLines: parsed.filter((l) => l.op !== '+').map((l) => l.text),
    newLines: parsed.filter((l) => l.op !== '-').map((l) => l.text),
    isEndOfFile: opts.eof ?? false,
    line: opts.line ?? 3,
  };
}
