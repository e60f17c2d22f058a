// Commit message trailers (`Key: value` lines), located the way `git interpret-trailers` locates
// them: the trailer block is the last paragraph of the message, never the first (that is the subject),
// ignoring trailing blank and `#` comment lines. A paragraph counts as a trailer block when every line
// is a trailer or a continuation (a line starting with whitespace), or when it holds a git-generated
// trailer (`Signed-off-by: `, `(cherry picked from commit `) and at least a quarter of its lines are
// trailers.

export interface Trailer {
  key: string;
  value: string;
}

const TRAILER_LINE = /^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$/;
const GIT_GENERATED = ['Signed-off-by: ', '(cherry picked from commit '];

interface MessageLayout {
  lines: string[];
  /** index of the first line after the content (trailing blank / comment lines start here) */
  contentEnd: number;
  /** [start, end) of the trailer block within lines, or null */
  block: [number, number] | null;
}

function layout(message: string): MessageLayout {
  const lines = message.split('\n');
  // split leaves one empty string after a final newline; it is not a line of its own
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();

  let contentEnd = lines.length;
  while (contentEnd > 0 && (lines[contentEnd - 1]!.trim() === '' || lines[contentEnd - 1]!.startsWith('#'))) {
    contentEnd--;
  }
  let start = contentEnd;
  while (start > 0 && lines[start - 1]!.trim() !== '') start--;
  const firstParagraphEnd = lines.findIndex((l) => l.trim() === '');
  const isFirstParagraph = firstParagraphEnd < 0 || start <= firstParagraphEnd;
  if (start >= contentEnd || isFirstParagraph) return { lines, contentEnd, block: null };

  let trailers = 0;
  let others = 0;
  let generated = false;
  for (let i = start; i < contentEnd; i++) {
    const line = lines[i]!;
    if (/^[ \t]/.test(line) && i > start) continue; // continuation of the previous line
    if (GIT_GENERATED.some((g) => line.startsWith(g))) {
      generated = true;
      trailers++;
    } else if (TRAILER_LINE.test(line)) trailers++;
    else others++;
  }
  const isBlock = trailers > 0 && (others === 0 || (generated && trailers * 3 >= others));
  return { lines, contentEnd, block: isBlock ? [start, contentEnd] : null };
}

/** The trailers of `message`, in order (continuation lines folded into their value with a space). */
export function readTrailers(message: string): Trailer[] {
  const { lines, block } = layout(message);
  if (!block) return [];
  const result: Trailer[] = [];
  for (let i = block[0]; i < block[1]; i++) {
    const line = lines[i]!;
    if (/^[ \t]/.test(line) && result.length > 0) {
      result[result.length - 1]!.value += ' ' + line.trim();
      continue;
    }
    const m = TRAILER_LINE.exec(line);
    if (m) result.push({ key: m[1]!, value: m[2]!.trimEnd() });
  }
  return result;
}

/**
 * Adds trailers at the end of the trailer block, or as a new paragraph after the content when there
 * is none; trailing blank and comment lines stay after them (what `git interpret-trailers --trailer`
 * produces for the same input).
 */
export function appendTrailers(message: string, trailers: readonly Trailer[]): string {
  if (trailers.length === 0) return message;
  const added = trailers.map((t) => `${t.key}: ${t.value}`);
  const { lines, contentEnd, block } = layout(message);
  const before = lines.slice(0, contentEnd);
  const after = lines.slice(contentEnd);
  const middle = block ? added : ['', ...added];
  return [...before, ...middle, ...after].join('\n') + '\n';
}
