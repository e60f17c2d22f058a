// A plain patch file as a log: the file is one V4A patch (`*** Begin Patch` … `*** End Patch`,
// or an `apply_patch` heredoc that wraps one), one entry whose paths are the repository's. A list
// of such files, or a directory of them, is a series, replayed in the order given (a directory:
// by file name).

import type { LogEntry } from './types.js';

const BEGIN = /^\s*\*\*\* Begin Patch\s*$/m;

/** Whether the text is a patch rather than a JSON log. */
export function isPatchText(text: string): boolean {
  const first = text.trimStart()[0];
  return first !== '{' && first !== '[' && BEGIN.test(text);
}

/** The one entry of a patch file. */
export function readPatchFile(text: string): LogEntry[] {
  return [
    {
      index: 0,
      format: 'patch',
      callId: null,
      session: null,
      turn: null,
      line: 1,
      via: 'patch file',
      patch: text,
      cwd: null,
      outcome: 'success',
    },
  ];
}
