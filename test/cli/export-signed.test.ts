// A signed history exported and replayed with --keep-metadata onto a clone of its base: the
// export keeps each commit's signature, so the replay makes the very commits recorded (the same
// ids, the signatures still verifying); onto another parent, where the commit cannot be the
// recorded one, the recorded signature is not put on a commit it does not sign.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson, requireBuiltCli } from '../helpers/cli.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';
import { addLine, seededRepo } from '../helpers/seeded.js';
import { hasSshKeygen, makeSshKey, useSshKey, type SshKey } from '../helpers/signing-keys.js';

beforeAll(() => {
  requireBuiltCli();
  isolateGitEnv();
});
afterAll(cleanupScratch);

function identity(dir: string): void {
  git(dir, 'config', 'user.name', 'Signer');
  git(dir, 'config', 'user.email', 'signer@example.invalid');
}

/** ssh signing set up in `dir` with the key's public half (the private one beside it), as the export keeps it. */
const sshSigning = (dir: string, ssh: SshKey): void => useSshKey(dir, ssh, `${ssh.key}.pub`);

const hasSignature = (dir: string, what: string): boolean => /^gpgsig /m.test(git(dir, 'cat-file', 'commit', what));
const verifies = (dir: string, what: string): boolean => spawnSync('git', ['verify-commit', what], { cwd: dir }).status === 0;

describe.runIf(hasSshKeygen)('replay --keep-metadata of a signed history', () => {
  it('makes the very commits recorded, signatures included; onto another parent it drops the signature', async () => {
    const key = makeSshKey('signer@example.invalid');

    const a = seededRepo({ name: 'Signer', email: 'signer@example.invalid' });
    const base = rev(a);
    sshSigning(a, key);
    for (const line of ['two', 'three']) {
      const r = await patchtxJson('apply', '--repo', a, '--sign', addLine(line));
      expect(r.code, r.err).toBe(0);
    }
    const recorded = git(a, 'rev-list', '--reverse', `${base}..main`).trim().split('\n');
    expect(recorded.every((c) => hasSignature(a, c) && verifies(a, c))).toBe(true);
    const exported = await patchtx('export', '--repo', a);
    expect(exported.code, exported.err).toBe(0);
    const log = path.join(tempDir(), 'log.jsonl');
    writeFileSync(log, exported.out);

    // onto a clone of the base: the same commits, the signatures verifying
    const b = path.join(tempDir(), 'b');
    git(tempDir(), 'clone', '-q', '--no-local', a, b);
    git(b, 'reset', '-q', '--hard', base);
    identity(b);
    sshSigning(b, key);
    const r = await patchtx('replay', '--repo', b, '--keep-metadata', log);
    expect(r.code, r.out + r.err).toBe(0);
    expect(git(b, 'rev-list', '--reverse', `${base}..main`).trim().split('\n')).toEqual(recorded);
    expect(recorded.every((c) => verifies(b, c))).toBe(true);
    expect(git(b, 'fsck', '--strict').trim()).toBe('');

    // onto another parent the commits are others: the recorded signature would not verify there
    const c = path.join(tempDir(), 'c');
    git(tempDir(), 'clone', '-q', '--no-local', a, c);
    git(c, 'reset', '-q', '--hard', base);
    identity(c);
    writeFileSync(path.join(c, 'other.txt'), 'x\n');
    git(c, 'add', 'other.txt');
    git(c, 'commit', '-q', '-m', 'another parent');
    const other = await patchtx('replay', '--repo', c, '--keep-metadata', log);
    expect(other.code, other.out + other.err).toBe(0);
    const made = git(c, 'rev-list', '--reverse', 'HEAD~2..HEAD').trim().split('\n');
    expect(made.some((m) => recorded.includes(m))).toBe(false);
    expect(made.some((m) => hasSignature(c, m))).toBe(false);
  });
});
