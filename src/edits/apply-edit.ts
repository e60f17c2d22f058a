// One content edit (str_replace, insert, an Aider block, a unified diff's hunks) applied to one
// file's text: the engine calls this for an `edit` hunk. A mode edit changes no content and is
// the engine's to record. A diff's hunks are placed in the file's stored form when it has one
// (line-form.ts), as `git apply` places them, and the patched stored form is kept for the commit.
import { PatchtxError } from '../errors.js';
import type { ContentEdit } from '../patch/types.js';
import { applyDiffHunks } from './git-apply.js';
import { insertText } from './insert.js';
import { inStoredForm, keepsCrlf, type LineForm, type Patched } from './line-form.js';
import { replaceText } from './str-replace.js';
import { lineEndingOf, withLineEnding } from './text.js';

/** The edited text; for a diff placed in the stored form, that form too (line-form.ts). */
export function applyContentEdit(text: string, edit: Exclude<ContentEdit, { type: 'mode' }>, path: string, form?: LineForm): Patched {
  switch (edit.type) {
    case 'str_replace':
      return { text: replaceText(text, edit, path) };
    case 'insert':
      return { text: insertText(text, edit, path) };
    case 'append': {
      const eol = lineEndingOf(text);
      return { text: text + (text === '' || text.endsWith('\n') ? '' : eol) + withLineEnding(edit.text, eol) };
    }
    case 'hunks': {
      return inStoredForm(text, form, keepsCrlf(edit.hunks), (t) => {
        const out = applyDiffHunks(t, edit.hunks, path);
        if (edit.remove && out !== '') {
          throw new PatchtxError('context_not_found', `the diff deletes ${path}, but the file holds more than the diff removes`, { path });
        }
        return out;
      });
    }
  }
}
