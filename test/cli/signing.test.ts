// Signed commits as git signs them: commit.gpgSign, gpg.format (openpgp, ssh, x509),
// user.signingKey, gpg.program; real gpg with a key made here in a temporary GNUPGHOME, a real
// ssh-keygen key and a real X.509 certificate made by gpgsm, and `git verify-commit` accepting
// the commits (the keys: helpers/signing-keys.ts). The programs get the arguments `git commit -S`
// gives them (a wrapper logs both). A signing failure refuses the commit and writes nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { patchtxJson } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';
import { git, gitWith, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir, v4a, withEnv } from '../helpers/scratch.js';
import { hasGpg, hasGpgsm, hasSshKeygen, makeGpgKey, makeSshKey, makeX509Key, useSshKey, type SigningHome } from '../helpers/signing-keys.js';
import { addLine, seededRepo } from '../helpers/seeded.js';
import { expectUntouched, snapshot } from '../helpers/snapshot.js';

let gpg: SigningHome;
beforeAll(() => {
  isolateGitEnv();
  if (hasGpg) gpg = makeGpgKey('Signer', 'signer@example.invalid');
});
afterAll(() => {
  gpg?.stop();
  cleanupScratch();
});

/** A repository with a.txt committed (unsigned), Signer configured. */
const repo = (): string => seededRepo({ name: 'Signer', email: 'signer@example.invalid' });

/** A program that logs its arguments (temporary file names made stable) and runs `real`. */
function loggingWrapper(real: string, log: string): string {
  const file = path.join(tempDir(), `logging-${path.basename(real)}`);
  writeFileSync(file, `#!/bin/sh\necho "$*" | sed -e 's#[^ ]*/[^ ]*#FILE#g' >> ${log}\nexec ${real} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * With commit.gpgSign on and `program` (set as `setting`) wrapped to log its arguments, patchtx
 * applies a patch in `dir` under `env`, and the commit is made; returns the log.
 */
async function applySignedBy(dir: string, setting: string, program: string, env: NodeJS.ProcessEnv): Promise<string> {
  const log = path.join(tempDir(), `${program}-args`);
  git(dir, 'config', 'commit.gpgSign', 'true');
  git(dir, 'config', setting, loggingWrapper(program, log));
  const r = await withEnv(env, () => patchtxJson('apply', '--repo', dir, addLine('two')));
  expect(r.code, r.out + r.err).toBe(0);
  expect(rev(dir)).toBe(r.json.commit);
  return log;
}

/**
 * The arguments the signing program logged for patchtx's commit in `dir` and then for git's own
 * signed commit there (`gitArgs` added to its `git commit`): the logged lines with `marker`.
 */
function oursAndGits(dir: string, log: string, marker: string, env: NodeJS.ProcessEnv, ...gitArgs: string[]): [string, string] {
  const signer = { GIT_COMMITTER_NAME: 'Signer', GIT_COMMITTER_EMAIL: 'signer@example.invalid' };
  gitWith(dir, { env: { ...signer, ...env } }, 'commit', '-q', ...gitArgs, '--allow-empty', '-m', 'by git');
  const [ours, gits] = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l.includes(marker));
  return [ours!, gits!];
}

const verify = (dir: string, env: NodeJS.ProcessEnv, what = 'HEAD') =>
  spawnSync('git', ['verify-commit', '--raw', what], { cwd: dir, env: { ...process.env, ...env, GIT_CONFIG_GLOBAL: '/dev/null' }, encoding: 'utf8' });

const hasSignature = (dir: string, what = 'HEAD'): boolean => /^gpgsig /m.test(git(dir, 'cat-file', 'commit', what));

if (!hasGpg) {
  console.warn('note: gpg is not installed: the openpgp signing tests were not run');
  it.skip('openpgp signing (gpg is not installed)', () => undefined);
}

describe.runIf(hasGpg)('openpgp (gpg)', () => {
  it('commit.gpgSign signs the commit as git does, and git verify-commit accepts it', async () => {
    const dir = repo();
    const log = await applySignedBy(dir, 'gpg.program', 'gpg', gpg.env);
    const v = verify(dir, gpg.env);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stderr).toMatch(/\[GNUPG:\] GOODSIG .* Signer <signer@example.invalid>/);
    // git's own signed commit calls the program the same way (verify-commit called it too, to verify)
    const [ours, gits] = oursAndGits(dir, log, '-bsau', gpg.env);
    expect(ours).toBe('--status-fd=2 -bsau Signer <signer@example.invalid>');
    expect(ours).toBe(gits);
  });

  it('user.signingKey names the key; --no-sign leaves the commit unsigned; --sign signs without commit.gpgSign', async () => {
    const dir = repo();
    git(dir, 'config', 'user.signingKey', 'signer@example.invalid');
    const unsigned = await withEnv(gpg.env, () => patchtxJson('apply', '--repo', dir, addLine('two')));
    expect(unsigned.code, unsigned.err).toBe(0);
    expect(hasSignature(dir)).toBe(false);
    const signed = await withEnv(gpg.env, () => patchtxJson('apply', '--repo', dir, '--sign', addLine('three')));
    expect(signed.code, signed.out + signed.err).toBe(0);
    expect(verify(dir, gpg.env).status).toBe(0);
    git(dir, 'config', 'commit.gpgSign', 'true');
    const off = await withEnv(gpg.env, () => patchtxJson('apply', '--repo', dir, '--no-sign', addLine('four')));
    expect(off.code, off.out + off.err).toBe(0);
    expect(hasSignature(dir)).toBe(false);
  });

  it('a key gpg does not have refuses the commit with what gpg said, and nothing is written', async () => {
    const dir = repo();
    git(dir, 'config', 'commit.gpgSign', 'true');
    git(dir, 'config', 'user.signingKey', 'nobody@example.invalid');
    const before = snapshot(dir);
    const r = await withEnv(gpg.env, () => patchtxJson('apply', '--repo', dir, addLine('two')));
    expect(r.code).toBe(9);
    expect(r.json.error).toMatchObject({ kind: 'commit_refused', program: 'gpg' });
    expect(r.json.error.message).toContain('nobody@example.invalid');
    expect(r.json.error.output).not.toBe('');
    expectUntouched(dir, before);
  });

  it('the library option sign', async () => {
    const dir = repo();
    const lib = await openRepository({ dir });
    const got = await withEnv(gpg.env, () => lib.apply(v4a('*** Update File: a.txt', '@@', ' one', '+two'), { sign: true }));
    expect(rev(dir)).toBe(got.commit);
    expect(verify(dir, gpg.env).status).toBe(0);
  });
});

describe('a signing program that cannot be run', () => {
  it('is commit_refused naming it, with nothing written', async () => {
    const dir = repo();
    git(dir, 'config', 'commit.gpgSign', 'true');
    git(dir, 'config', 'gpg.program', path.join(tempDir(), 'no-such-gpg'));
    const before = snapshot(dir);
    const e = await rejection((await openRepository({ dir })).apply(v4a('*** Update File: a.txt', '@@', ' one', '+two')));
    expect(e.kind).toBe('commit_refused');
    expect(e.message).toContain('no-such-gpg');
    expectUntouched(dir, before);
  });

  it('an unknown gpg.format is usage, before anything is written', async () => {
    const dir = repo();
    git(dir, 'config', 'commit.gpgSign', 'true');
    git(dir, 'config', 'gpg.format', 'pgp');
    const r = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(r.json.error).toMatchObject({ kind: 'usage', key: 'gpg.format' });
  });
});

if (!hasSshKeygen) {
  console.warn('note: ssh-keygen is not installed: the ssh signing tests were not run');
  it.skip('ssh signing (ssh-keygen is not installed)', () => undefined);
}

describe.runIf(hasSshKeygen)('ssh (ssh-keygen)', () => {
  it('gpg.format=ssh signs with the key file, as git does, and git verify-commit accepts it', async () => {
    const dir = repo();
    useSshKey(dir, makeSshKey('signer@example.invalid'));
    const log = path.join(tempDir(), 'ssh-args');
    git(dir, 'config', 'gpg.ssh.program', loggingWrapper('ssh-keygen', log));
    const r = await patchtxJson('apply', '--repo', dir, '--sign', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    const v = verify(dir, {});
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout + v.stderr).toMatch(/Good "git" signature for signer@example.invalid/);
    const [ours, gits] = oursAndGits(dir, log, '-Y sign', {}, '-S');
    expect(ours).toBe('-Y sign -n git -f FILE FILE');
    expect(ours).toBe(gits);
  });

  it('a revert commit of undo is signed when commit.gpgSign says so, as git revert signs it', async () => {
    const dir = repo();
    useSshKey(dir, makeSshKey('signer@example.invalid'));
    const applied = await patchtxJson('apply', '--repo', dir, addLine('two'));
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(hasSignature(dir)).toBe(false);
    git(dir, 'config', 'commit.gpgSign', 'true');
    const u = await patchtxJson('undo', '--repo', dir, '--revert');
    expect(u.code, u.out + u.err).toBe(0);
    expect(rev(dir)).toBe(u.json.commit);
    const v = verify(dir, {});
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

if (!hasGpgsm) {
  console.warn('note: gpgsm is not installed: the x509 signing tests were not run');
  it.skip('x509 signing (gpgsm is not installed)', () => undefined);
}

/** The gpgsig header of a commit, its continuation lines unfolded. */
function gpgsigOf(dir: string, what = 'HEAD'): string {
  const m = /^gpgsig (.*(?:\n .*)*)/m.exec(git(dir, 'cat-file', '-p', what));
  return m === null ? '' : m[1]!.replace(/\n /g, '\n');
}

/** The DER of a PEM-armoured signature, or an empty buffer when it is not one. */
function derOf(armoured: string): Buffer {
  const m = /^-----BEGIN SIGNED MESSAGE-----\n([\s\S]*?)\n-----END SIGNED MESSAGE-----$/.exec(armoured);
  return m === null ? Buffer.alloc(0) : Buffer.from(m[1]!.replace(/\s/g, ''), 'base64');
}

/** The content type of a CMS (PKCS#7) signature: signedData, OID 1.2.840.113549.1.7.2. */
const SIGNED_DATA = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]);

describe.runIf(hasGpgsm)('x509 (gpgsm)', () => {
  let x509: ReturnType<typeof makeX509Key>;
  beforeAll(() => {
    x509 = makeX509Key('Signer', 'signer@example.invalid');
  });
  afterAll(() => x509?.stop());

  function x509Repo(): string {
    const dir = repo();
    git(dir, 'config', 'gpg.format', 'x509');
    git(dir, 'config', 'user.signingKey', 'signer@example.invalid');
    return dir;
  }

  it('gpg.format=x509 signs with gpgsm as git does: a CMS signature git verify-commit accepts', async () => {
    const dir = x509Repo();
    const log = await applySignedBy(dir, 'gpg.x509.program', 'gpgsm', x509.env);
    const der = derOf(gpgsigOf(dir));
    // a DER SEQUENCE whose first element is the signedData content type
    expect(der[0]).toBe(0x30);
    expect(der.indexOf(SIGNED_DATA)).toBeGreaterThan(0);
    expect(der.indexOf(SIGNED_DATA)).toBeLessThan(8);
    const v = verify(dir, x509.env);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stderr).toMatch(new RegExp(`^\\[GNUPG:\\] GOODSIG ${x509.fingerprint} `, 'm'));
    expect(v.stderr).toMatch(/^\[GNUPG:\] VALIDSIG /m);
    expect(git(dir, 'fsck', '--strict').trim()).toBe('');
    // git's own signed commit calls the program the same way
    const [ours, gits] = oursAndGits(dir, log, '-bsau', x509.env);
    expect(ours).toBe('--status-fd=2 -bsau signer@example.invalid');
    expect(ours).toBe(gits);
  });

  it('the library option sign signs with the certificate', async () => {
    const dir = x509Repo();
    const lib = await openRepository({ dir });
    const got = await withEnv(x509.env, () => lib.apply(v4a('*** Update File: a.txt', '@@', ' one', '+two'), { sign: true }));
    expect(rev(dir)).toBe(got.commit);
    expect(derOf(gpgsigOf(dir)).indexOf(SIGNED_DATA)).toBeGreaterThan(0);
    const v = verify(dir, x509.env);
    expect(v.status, v.stderr).toBe(0);
  });

  it('a key gpgsm has no certificate for refuses the commit with what gpgsm said, and nothing is written', async () => {
    const dir = x509Repo();
    git(dir, 'config', 'user.signingKey', 'nobody@example.invalid');
    const before = snapshot(dir);
    const r = await withEnv(x509.env, () => patchtxJson('apply', '--repo', dir, '--sign', addLine('two')));
    expect(r.code).toBe(9);
    expect(r.json.error).toMatchObject({ kind: 'commit_refused', program: 'gpgsm' });
    expect(r.json.error.message).toContain('gpg.format=x509');
    expect(r.json.error.output).not.toBe('');
    expectUntouched(dir, before);
  });
});
