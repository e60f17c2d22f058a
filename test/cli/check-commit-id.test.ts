// `patchtx check` names the id of the commit apply would make only when it can know it: a commit
// apply signs (commit.gpgSign, --sign), or whose message a prepare-commit-msg or commit-msg hook
// may edit, gets its id only when it is made. Then check's `wouldCommit` is null and a
// `commit_id_unknown` warning says why (`reasons`), rather than an id the commit will not have.
// Real repositories, a stand-in signing program that says what gpg says, the built hooks of git.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, git, gitDirOf, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a, withEnv } from '../helpers/scratch.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

/** A checkout of the basic fixture, with an identity in its config (the tests' environment has none). */
function repo(): string {
  const dir = makeRepo('basic');
  git(dir, 'config', 'user.name', 'Checker');
  git(dir, 'config', 'user.email', 'checker@example.invalid');
  return dir;
}

function executable(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

/** A signing program that answers as gpg does (a status line, an armoured signature). */
function fakeGpg(): string {
  const signature = '-----BEGIN PGP SIGNATURE-----\n\nc3RhbmQtaW4=\n-----END PGP SIGNATURE-----\n';
  const script = `#!/bin/sh\ncat > /dev/null\necho '[GNUPG:] SIG_CREATED D 22 8 00 1 X' >&2\ncat <<'EOF'\n${signature}EOF\n`;
  return executable(path.join(tempDir(), 'fake-gpg'), script);
}

const addLine = (line: string): string => patchFile(v4a('*** Update File: README.md', '@@', ' # Sample', `+${line}`));
const SAME_CLOCK = { GIT_AUTHOR_DATE: '2030-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2030-01-01T00:00:00Z' };

describe('check and the id of the commit apply makes', () => {
  it('no signing, no message hook: wouldCommit is the id apply gives the commit, and nothing is said about it', async () => {
    const dir = repo();
    await withEnv(SAME_CLOCK, async () => {
      const c = await patchtxJson('check', '--repo', dir, addLine('two'));
      expect(c.json.warnings).toEqual([]);
      const a = await patchtxJson('apply', '--repo', dir, addLine('two'));
      expect(c.json.wouldCommit).toBe(a.json.commit);
    });
  });

  it('a commit-msg hook: wouldCommit is null, with a commit_id_unknown warning naming the hook; --no-verify gives the id back', async () => {
    const dir = repo();
    executable(path.join(gitDirOf(dir), 'hooks', 'commit-msg'), '#!/bin/sh\ngit interpret-trailers --in-place --trailer "Change-Id: I0123456789abcdef" "$1"\n');
    const before = snapshot(dir);
    await withEnv(SAME_CLOCK, async () => {
      const c = await patchtxJson('check', '--repo', dir, addLine('two'));
      expect(c.code, c.out + c.err).toBe(0);
      expect(c.json).toMatchObject({ ok: true, checked: true, noop: false, commit: null, wouldCommit: null });
      expect(c.json.warnings).toEqual([{ kind: 'commit_id_unknown', path: '', reasons: ['commit-msg'], message: expect.stringContaining('commit-msg hook') }]);
      expectUntouched(dir, before);
      // in text: the check passes without naming an id, and says why on stderr
      const t = await patchtx('check', '--repo', dir, addLine('two'));
      expect(t.code).toBe(0);
      expect(t.out).toMatch(/\nCheck passed: the patch would commit on main \(nothing of it was written\)\.\n$/);
      expect(t.err).toBe(`warning: ${c.json.warnings[0].message}\n`);

      const skipped = await patchtxJson('check', '--repo', dir, '--no-verify', addLine('two'));
      expect(skipped.json.warnings).toEqual([]);
      const a = await patchtxJson('apply', '--repo', dir, '--no-verify', addLine('two'));
      expect(skipped.json.wouldCommit).toBe(a.json.commit);
      expect(rev(dir)).toBe(a.json.commit);
    });
  });

  it('a prepare-commit-msg hook runs even with --no-verify: the id stays unknown', async () => {
    const dir = repo();
    executable(path.join(gitDirOf(dir), 'hooks', 'prepare-commit-msg'), '#!/bin/sh\necho "prepared" >> "$1"\n');
    const c = await patchtxJson('check', '--repo', dir, '--no-verify', addLine('two'));
    expect(c.json).toMatchObject({ wouldCommit: null, warnings: [{ kind: 'commit_id_unknown', reasons: ['prepare-commit-msg'] }] });
  });

  it('signing (commit.gpgSign): wouldCommit is null, with reasons ["signing"]; --no-sign gives the id back; the signed commit is another', async () => {
    const dir = repo();
    git(dir, 'config', 'commit.gpgSign', 'true');
    git(dir, 'config', 'gpg.program', fakeGpg());
    await withEnv(SAME_CLOCK, async () => {
      const c = await patchtxJson('check', '--repo', dir, addLine('two'));
      expect(c.json).toMatchObject({ ok: true, wouldCommit: null });
      expect(c.json.warnings).toEqual([{ kind: 'commit_id_unknown', path: '', reasons: ['signing'], message: expect.stringContaining('signs') }]);
      const unsigned = await patchtxJson('check', '--repo', dir, '--no-sign', addLine('two'));
      expect(unsigned.json.warnings).toEqual([]);
      expect(unsigned.json.wouldCommit).toMatch(/^[0-9a-f]{40}$/);
      const a = await patchtxJson('apply', '--repo', dir, addLine('two'));
      expect(a.code, a.out + a.err).toBe(0);
      expect(git(dir, 'cat-file', 'commit', a.json.commit)).toContain('gpgsig -----BEGIN PGP SIGNATURE-----');
      // the id check could have named (unsigned) is not the commit apply made
      expect(a.json.commit).not.toBe(unsigned.json.wouldCommit);
    });
  });
});
