// Models calling the apply_patch tool often send only the body of a V4A patch (the file sections)
// without the `*** Begin Patch` / `*** End Patch` lines around it. The tool accepts both: a text
// with no Begin line gets one in front, a text with no End line gets one after. A text that has
// them, or a wrapper holding them (a heredoc, a code fence), is left as it is for the parser, and
// so is a unified diff or Aider SEARCH/REPLACE blocks, which the library tells apart by content.
import { stepFormat } from '../edits/step.js';
import { BEGIN_PATCH, END_PATCH } from '../patch/grammar.js';

const hasLine = (lines: string[], marker: string): boolean => lines.some((l) => l.trim() === marker);

export function withEnvelope(text: string): string {
  if (stepFormat(text) !== 'v4a') return text;
  const lines = text.split('\n');
  const begin = hasLine(lines, BEGIN_PATCH);
  const end = hasLine(lines, END_PATCH);
  if (begin && end) return text;
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${begin ? '' : `${BEGIN_PATCH}\n`}${body}${end ? '' : `${END_PATCH}\n`}`;
}
