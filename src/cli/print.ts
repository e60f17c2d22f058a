// Human and JSON output of undo, redo and log.
import type { LogListing } from '../commands/log.js';
import type { UndoResult } from '../commands/undo.js';
import { logJson, undoJson } from '../commands/results.js';
import { changeLine, DEEPEN_REMEDY } from '../commands/shown.js';
import { printRecoveryNote, type Streams } from './output.js';

export function printUndo(streams: Streams, r: UndoResult, json: boolean): void {
  if (json) {
    streams.out(JSON.stringify(undoJson(r)) + '\n');
    return;
  }
  if (r.recovered) printRecoveryNote(streams, r.recovered);
  streams.out(`${undoHeadline(r)}\n${r.files.map((f) => changeLine(f) + '\n').join('')}`);
  for (const w of r.warnings ?? []) streams.err(`warning: ${w.message}\n`);
}

/** What an undo or redo did, in one line. */
function undoHeadline(r: UndoResult): string {
  const branch = r.ref.replace(/^refs\/heads\//, '');
  const target = r.target.slice(0, 7);
  const commit = r.commit?.slice(0, 7);
  if (r.redid !== undefined) {
    const redid = r.redid.slice(0, 7);
    // redo of a revert: the revert was either taken off the tip, or itself reverted
    return r.action === 'revert'
      ? `Redid ${redid}: reverted its revert ${target} with a new commit ${commit} on ${branch}`
      : `Redid ${redid}: removed its revert ${target}; ${branch} is back at ${commit}`;
  }
  if (r.action === 'reset') return commit === undefined ? `Undid ${target}: ${branch} has no commits again` : `Undid ${target}: ${branch} is back at ${commit}`;
  if (r.action === 'revert') return `Reverted ${target} with a new commit ${commit} on ${branch}`;
  return `Redid ${target} on ${branch}`;
}

export function printLog(streams: Streams, listing: LogListing, json: boolean): void {
  const { entries, shallowEnd } = listing;
  // in both modes, so the JSON array stays what it was
  if (shallowEnd !== null) {
    streams.err(`note: this is a shallow clone and its history ends at ${shallowEnd.slice(0, 12)}: older transactions are not listed; ${DEEPEN_REMEDY}\n`);
  }
  if (json) {
    streams.out(JSON.stringify(logJson(listing)) + '\n');
    return;
  }
  for (const e of entries) {
    const files = e.shallow ? '  (its files are not known: its parent is not in this shallow clone)\n' : e.files.map((f) => `  ${changeLine(f)}\n`).join('');
    streams.out(`${e.commit.slice(0, 12)} ${e.time} ${e.subject}\n  Patch-Id: ${e.patchId}\n${files}`);
  }
  if (entries.length === 0) streams.out('No patchtx transactions on this ref.\n');
}
