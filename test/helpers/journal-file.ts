// What a transaction journal's file says now, read as recovery reads it (src/tx/journal.ts): the
// whole text when it is one JSON value, else the last of its records, one JSON line each (a last
// line without its newline, cut short by a crash, is passed over).
import { readFileSync } from 'node:fs';

export function journalIn(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    // records: below
  }
  const lines = text.split('\n');
  lines.pop();
  if (lines.length === 0) throw new Error(`not a journal: ${JSON.stringify(text.slice(0, 80))}`);
  return JSON.parse(lines.at(-1)!);
}

export const readJournalFile = (file: string): any => journalIn(readFileSync(file, 'utf8'));
