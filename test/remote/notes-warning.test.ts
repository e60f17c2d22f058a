// A push whose branch landed but whose notes the server refused is a success with a warning, typed
// as every other command's warnings are ({kind, message, path}): notes_not_pushed.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtx, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { addLine, localHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';

let host: RemoteHost;

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
  host = localHost();
});

afterAll(async () => {
  await host.close();
  cleanupScratch();
  cleanupBuiltCli();
});

/** The server's hook declines every update of a notes ref. */
function refuseNotes(bare: string): void {
  const hook = path.join(bare, 'hooks', 'pre-receive');
  writeFileSync(hook, '#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/notes/*) echo "no notes here" >&2; exit 1;; esac; done\nexit 0\n');
  chmodSync(hook, 0o755);
}

describe('notes the server refuses', () => {
  it('leave a notes_not_pushed warning object, and the branch landed', async () => {
    const { bare, clone } = await seededRemote(host);
    refuseNotes(bare);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/notes/').trim()).toBe('');
    expect(r.json.notes).toBe('not_pushed');
    expect(r.json.warnings).toHaveLength(1);
    expect(r.json.warnings[0]).toMatchObject({ kind: 'notes_not_pushed', path: '', ref: 'refs/notes/patchtx' });
    expect(r.json.warnings[0].message).toContain('refs/notes/patchtx was not pushed');
    const text = await patchtx('push', '--repo', clone);
    expect(text.code, text.out + text.err).toBe(0);
    expect(text.err).toMatch(/^warning: refs\/notes\/patchtx was not pushed/m);
  });
});
