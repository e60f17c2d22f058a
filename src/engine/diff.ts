// A unified diff of one file's change, for people and agents reviewing a plan. Git-style
// `a/` and `b/` prefixes, /dev/null for a file that does not exist on one side, and git's
// "Binary files ... differ" line for content that is not text.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { decodeText } from '../text/decode.js';
import { sameBytes } from './content.js';

/**
 * The diff from `before` to `after` (null: no file on that side). `fromPath` names the old
 * side of a rename; it defaults to `path`. Empty when nothing differs.
 */
export function unifiedDiff(path: string, before: Uint8Array | null, after: Uint8Array | null, fromPath: string = path): string {
  if (before === null && after === null) return '';
  if (before !== null && after !== null && fromPath === path && sameBytes(before, after)) return '';
  const oldName = before === null ? '/dev/null' : `a/${fromPath}`;
  const newName = after === null ? '/dev/null' : `b/${path}`;
  const oldText = before === null ? '' : decodeText(before);
  const newText = after === null ? '' : decodeText(after);
  if (oldText === undefined || newText === undefined) return `Binary files ${oldName} and ${newName} differ\n`;
  return createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
    headerOptions: FILE_HEADERS_ONLY,
  });
}
