// Reading the patch: a file that cannot be read is a usage error that says why in words, in text
// and in JSON, never a raw errno code or a stack trace.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

describe('a patch file that cannot be read', () => {
  it('missing, a directory, below a file: exit 2 with the reason in words', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const scratch = tempDir();
    const missing = path.join(scratch, 'missing.patch');
    const folder = path.join(scratch, 'folder.patch');
    mkdirSync(folder);
    const below = path.join(dir, 'README.md', 'x.patch');
    for (const [file, why] of [
      [missing, 'no such file'],
      [folder, 'it is a directory'],
      [below, 'a leading part of the path is not a directory'],
    ] as const) {
      const r = await patchtx('apply', '--repo', dir, file);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`error: cannot read patch file ${file}: ${why}\n`);
      const j = await patchtxJson('check', '--repo', dir, file);
      expect(j.code).toBe(2);
      expect(j.json.error).toMatchObject({ kind: 'usage', message: `cannot read patch file ${file}: ${why}`, path: file });
      expect(j.out).not.toMatch(/\bE[A-Z]{3,}\b|\n\s+at /);
    }
    expectUntouched(dir, before);
  });
});
