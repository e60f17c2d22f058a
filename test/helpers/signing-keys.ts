// Real signing keys for the signed-commit tests, made here with the programs git signs with, in
// temporary places: an OpenPGP key for gpg, an X.509 key and self-signed certificate for gpgsm
// (trusted in its home), and an ssh key with its allowed-signers file, each such that
// `git verify-commit` accepts what it signs. The gpg and gpgsm makers return the environment the
// signing and verifying programs need and a stop() that ends the agent they started.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from './repos.js';
import { tempDir } from './scratch.js';

/** Whether `program --version` runs here. */
export const installed = (program: string): boolean => spawnSync(program, ['--version'], { stdio: 'ignore' }).error === undefined;

export const hasGpg = installed('gpg');
export const hasGpgsm = installed('gpgsm');
/** (ssh-keygen has no --version) */
export const hasSshKeygen = spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error === undefined;

export interface SigningHome {
  /** the environment of the programs that sign and verify with the key */
  env: { GNUPGHOME: string };
  /** the key's fingerprint */
  fingerprint: string;
  /** ends the agent the programs started for this home */
  stop(): void;
}

function gnupgHome(): string {
  const home = tempDir();
  chmodSync(home, 0o700);
  return home;
}

const stopAgent = (home: string) => (): void => {
  spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: home }, stdio: 'ignore' });
};

/** An ed25519 OpenPGP signing key, without a passphrase, for the user id `Name <email>`, in a new GNUPGHOME. */
export function makeGpgKey(name: string, email: string): SigningHome {
  const home = gnupgHome();
  const env = { ...process.env, GNUPGHOME: home };
  execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `${name} <${email}>`, 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
  const listed = execFileSync('gpg', ['--list-keys', '--with-colons', email], { env, encoding: 'utf8' });
  const fingerprint = /^fpr:(?:[^:]*:){8}([0-9A-F]+):/m.exec(listed)?.[1];
  if (fingerprint === undefined) throw new Error(`gpg did not list the key it made:\n${listed}`);
  return { env: { GNUPGHOME: home }, fingerprint, stop: stopAgent(home) };
}

/**
 * An RSA key and a self-signed X.509 certificate for `email` in a new GNUPGHOME: made with
 * `gpgsm --gen-key` in batch (an empty passphrase through the loopback pinentry, so nothing
 * prompts), imported, and trusted as a root (trustlist.txt), with CRL checks off since there is
 * no CRL for a certificate made here.
 */
export function makeX509Key(name: string, email: string): SigningHome {
  const home = gnupgHome();
  const env = { ...process.env, GNUPGHOME: home };
  writeFileSync(path.join(home, 'gpgsm.conf'), 'disable-crl-checks\n');
  const params = path.join(home, 'certificate.params');
  writeFileSync(
    params,
    [
      'Key-Type: RSA',
      'Key-Length: 2048',
      'Key-Usage: sign',
      'Serial: random',
      `Name-DN: CN=${name},O=patchtx test`,
      `Name-Email: ${email}`,
      'Expire-Date: 2099-01-01',
      '',
    ].join('\n'),
  );
  const certificate = execFileSync('gpgsm', ['--batch', '--pinentry-mode', 'loopback', '--passphrase-fd', '0', '--gen-key', params], {
    env,
    input: '',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  execFileSync('gpgsm', ['--batch', '--import'], { env, input: certificate, stdio: ['pipe', 'pipe', 'pipe'] });
  const listed = execFileSync('gpgsm', ['--list-keys', '--with-colons', email], { env, encoding: 'utf8' });
  const fingerprint = /^fpr:(?:[^:]*:){8}([0-9A-F]+):/m.exec(listed)?.[1];
  if (fingerprint === undefined) throw new Error(`gpgsm did not list the certificate it made:\n${listed}`);
  // a self-signed certificate is its own root: trusted for S/MIME, its missing CA flags relaxed
  writeFileSync(path.join(home, 'trustlist.txt'), `${fingerprint} S relax\n`);
  // the agent started by --gen-key read the trust list before there was one
  const stop = stopAgent(home);
  stop();
  return { env: { GNUPGHOME: home }, fingerprint, stop };
}

export interface SshKey {
  /** the private key file (its public key is beside it, with .pub) */
  key: string;
  /** the public key, as ssh-keygen wrote it */
  publicKey: string;
  /** an allowed-signers file (gpg.ssh.allowedSignersFile) that trusts the key for the email */
  allowedSigners: string;
}

/** An ed25519 ssh key without a passphrase, in a new directory, trusted for `email`. */
export function makeSshKey(email: string): SshKey {
  const dir = tempDir();
  const key = path.join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'signer', '-f', key], { stdio: 'ignore' });
  const publicKey = readFileSync(`${key}.pub`, 'utf8').trim();
  const allowedSigners = path.join(dir, 'allowed_signers');
  writeFileSync(allowedSigners, `${email} ${publicKey}\n`);
  return { key, publicKey, allowedSigners };
}

/** Configures `dir` to sign with gpg.format=ssh and `signingKey` (by default the key file), verifying with the key's allowed signers. */
export function useSshKey(dir: string, ssh: SshKey, signingKey = ssh.key): void {
  git(dir, 'config', 'gpg.format', 'ssh');
  git(dir, 'config', 'user.signingKey', signingKey);
  git(dir, 'config', 'gpg.ssh.allowedSignersFile', ssh.allowedSigners);
}
