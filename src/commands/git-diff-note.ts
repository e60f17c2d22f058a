// The note of a transaction whose result a V4A patch cannot say exactly (a file without a final
// newline, a mode change, line endings changed alone): a unified diff in git's form (`diff --git`
// headers, new and deleted file modes, old and new modes, renames), which `patchtx apply` reads
// back as a unified diff. Changed binary content has no such form: undefined then (a binary file
// moved or given another mode as it is has: a header without a body).
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { FileChange } from '../engine/types.js';
import { sameBytes } from '../engine/content.js';
import { decodeText } from '../text/decode.js';

type Bytes = Uint8Array | null;

export interface NoteSides {
  before: (path: string) => Bytes;
  after: (path: string) => Bytes;
  /** the file mode on each side (undefined: no file there) */
  modeBefore: (path: string) => string | undefined;
  modeAfter: (path: string) => string | undefined;
}

/** The `---`/`+++`/`@@` part for one file; empty when the texts are the same. */
function body(oldName: string, newName: string, before: string, after: string): string {
  if (before === after) return '';
  return createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY });
}

export function gitDiffNote(changes: readonly FileChange[], sides: NoteSides): string | undefined {
  let out = '';
  for (const c of changes) {
    const from = c.op === 'R' ? c.from! : c.path;
    // a file moved or given another mode with its bytes as they were needs no text: any content goes
    const same = (c.op === 'R' || c.op === 'M') && sameBytes(sides.before(from) ?? new Uint8Array(), sides.after(c.path) ?? new Uint8Array());
    const before = same ? '' : c.op === 'A' ? '' : decodeText(sides.before(from) ?? new Uint8Array());
    const after = same ? '' : c.op === 'D' ? '' : decodeText(sides.after(c.path) ?? new Uint8Array());
    if (before === undefined || after === undefined) return undefined;
    const modeBefore = sides.modeBefore(from);
    const modeAfter = sides.modeAfter(c.path);
    out += `diff --git a/${from} b/${c.path}\n`;
    if (c.op === 'A') out += `new file mode ${modeAfter ?? '100644'}\n${body('/dev/null', `b/${c.path}`, '', after)}`;
    else if (c.op === 'D') out += `deleted file mode ${modeBefore ?? '100644'}\n${body(`a/${from}`, '/dev/null', before, '')}`;
    else {
      if (modeBefore !== undefined && modeAfter !== undefined && modeBefore !== modeAfter) out += `old mode ${modeBefore}\nnew mode ${modeAfter}\n`;
      if (c.op === 'R') out += `rename from ${from}\nrename to ${c.path}\n`;
      out += body(`a/${from}`, `b/${c.path}`, before, after);
    }
  }
  return out === '' ? undefined : out;
}
