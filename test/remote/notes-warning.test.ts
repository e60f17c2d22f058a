// A push whose branch landed but whose notes the server refused is a success with a warning, typed
// as every other command's warnings are ({kind, message, path}): notes_not_pushed. A refusal of the
// server's own is not a lost race: it is asked once, over HTTP as by path, not again and again.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, patchtx, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { addLine, httpHost, localHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';

const hosts: Record<string, RemoteHost> = {};

beforeAll(async () => {
  isolateGitEnv();
  requireBuiltCli();
  hosts.path = localHost();
  hosts.http = await httpHost();
});

afterAll(async () => {
  for (const host of Object.values(hosts)) await host.close();
  cleanupScratch();
  cleanupBuiltCli();
});

/** The server's hook declines every update of a notes ref, and counts its refusals in `refusals`. */
function refuseNotes(bare: string): string {
  const hook = path.join(bare, 'hooks', 'pre-receive');
  const refusals = path.join(bare, 'refusals');
  writeFileSync(
    hook,
    `#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/notes/*) echo no >> '${refusals}'; echo "no notes here" >&2; exit 1;; esac; done\nexit 0\n`,
  );
  chmodSync(hook, 0o755);
  return refusals;
}

const refusalCount = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

describe.each(['path', 'http'])('notes the server refuses (%s)', (kind) => {
  it('leave a notes_not_pushed warning object after one refusal, and the branch landed', async () => {
    const { bare, clone } = await seededRemote(hosts[kind]!);
    const refusals = refuseNotes(bare);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
    expect(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/notes/').trim()).toBe('');
    expect(r.json.notes).toBe('not_pushed');
    expect(r.json.warnings).toHaveLength(1);
    expect(r.json.warnings[0]).toMatchObject({ kind: 'notes_not_pushed', path: '', ref: 'refs/notes/patchtx' });
    expect(r.json.warnings[0].message).toContain('refs/notes/patchtx was not pushed');
    expect(r.json.warnings[0].reason).toContain('no notes here');
    expect(refusalCount(refusals)).toBe(1);
    const text = await patchtx('push', '--repo', clone);
    expect(text.code, text.out + text.err).toBe(0);
    expect(text.err).toMatch(/^warning: refs\/notes\/patchtx was not pushed/m);
  });
});
