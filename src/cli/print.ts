// Human and JSON output of undo, redo and log.
import type { LogEntry } from '../tx/log.js';
import type { UndoResult } from '../tx/undo.js';
import { changeLine } from '../tx/message.js';
import { printRecoveryNote, type Streams } from './output.js';

export function printUndo(streams: Streams, r: UndoResult, json: boolean): void {
  if (json) {
    streams.out(JSON.stringify(r) + '\n');
    return;
  }
  if (r.recovered) printRecoveryNote(streams, r.recovered);
  const branch = r.ref.replace(/^refs\/heads\//, '');
  const what =
    r.redid !== undefined
      ? r.action === 'revert'
        ? `Redid ${r.redid.slice(0, 7)}: reverted its revert ${r.target.slice(0, 7)} with a new commit ${r.commit?.slice(0, 7)} on ${branch}`
        : `Redid ${r.redid.slice(0, 7)}: removed its revert ${r.target.slice(0, 7)}; ${branch} is back at ${r.commit?.slice(0, 7)}`
      : r.action === 'reset'
      ? `Undid ${r.target.slice(0, 7)}: ${branch} is back at ${r.commit?.slice(0, 7)}`
      : r.action === 'revert'
        ? `Reverted ${r.target.slice(0, 7)} with a new commit ${r.commit?.slice(0, 7)} on ${branch}`
        : `Redid ${r.target.slice(0, 7)} on ${branch}`;
  streams.out(`${what}\n${r.files.map((f) => changeLine(f) + '\n').join('')}`);
}

export function printLog(streams: Streams, entries: LogEntry[], json: boolean): void {
  if (json) {
    streams.out(JSON.stringify(entries) + '\n');
    return;
  }
  for (const e of entries) {
    streams.out(`${e.commit.slice(0, 12)} ${e.time} ${e.subject}\n  Patch-Id: ${e.patchId}\n${e.files.map((f) => `  ${changeLine(f)}\n`).join('')}`);
  }
  if (entries.length === 0) streams.out('No patchtx transactions on this ref.\n');
}
