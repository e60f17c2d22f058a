// A commit-msg hook that appends its trailer as a paragraph of its own (`echo; echo "Change-Id: ..."
// >> "$1"`, as hand-written hooks do) leaves patchtx's trailers in a paragraph that is no longer the
// last, so git no longer reads them as trailers. They are moved into the last paragraph, once:
// neither lost for re-runs and show, nor left twice in the message.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { git } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { addLine, seededRepo } from '../helpers/seeded.js';

beforeAll(() => isolateGitEnv());
afterAll(() => cleanupScratch());

const repo = (): string => seededRepo({ name: 'Hook Tester', email: 'hooks@example.invalid' });

describe('a commit-msg hook that appends a paragraph of its own', () => {
  it("keeps patchtx's trailers once, in the last paragraph with the hook's", async () => {
    const dir = repo();
    const hook = path.join(dir, '.git', 'hooks', 'commit-msg');
    writeFileSync(hook, '#!/bin/sh\nprintf "\\nChange-Id: I0123456789\\n" >> "$1"\n');
    chmodSync(hook, 0o755);
    const r = await patchtxJson('apply', '--repo', dir, '-m', 'Add two', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    const message = git(dir, 'log', '-1', '--format=%B');
    expect(message.match(/^Patch-Id: /gm)).toHaveLength(1);
    expect(message.match(/^Patchtx-Tree: /gm)).toHaveLength(1);
    // git reads them all as the commit's trailers
    const keys = git(dir, 'log', '-1', '--format=%(trailers:only,unfold)')
      .trim()
      .split('\n')
      .map((l) => l.slice(0, l.indexOf(':')));
    expect(keys).toEqual(expect.arrayContaining(['Change-Id', 'Patch-Id', 'Patchtx-Tree']));
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim()).toBe(r.json.patchId);
    expect(r.json.message).toBe(git(dir, 'cat-file', 'commit', 'HEAD').split('\n\n').slice(1).join('\n\n'));
    // a re-run knows the patch is there
    const again = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.json.commit).toBeNull();
  });
});
