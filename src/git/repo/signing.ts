// Signing a commit as git does (its gpg-interface): which program, with which key, is read from
// the configuration (commit.gpgSign, gpg.format, user.signingKey, gpg.program, gpg.x509.program,
// gpg.ssh.program), and the program is called with the arguments git gives it:
//   openpgp: gpg --status-fd=2 -bsau KEY       (the payload on stdin, the signature on stdout)
//   x509:    gpgsm --status-fd=2 -bsau KEY
//   ssh:     ssh-keygen -Y sign -n git -f KEYFILE [-U] PAYLOADFILE   (the signature in PAYLOADFILE.sig;
//            -U with a literal public key, whose private half is in the ssh agent)
// The key defaults to the committer's `Name <email>` for gpg and gpgsm, as in git; ssh needs
// user.signingKey. A program that fails, or gpg without its SIG_CREATED status line, is a
// `commit_refused` error carrying what the program said.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PatchtxError } from '../../errors.js';
import type { GitConfig } from './config.js';
import { runProgram, type ProgramRun } from './run-program.js';

export type SigningFormat = 'openpgp' | 'x509' | 'ssh';

export interface Signer {
  format: SigningFormat;
  program: string;
  key: string;
}

function formatOf(config: GitConfig): SigningFormat {
  const format = config.get('gpg.format') ?? 'openpgp';
  if (format === 'openpgp' || format === 'x509' || format === 'ssh') return format;
  throw new PatchtxError('usage', `gpg.format is '${format}': git knows openpgp, x509 and ssh`, { key: 'gpg.format', value: format });
}

function programOf(config: GitConfig, format: SigningFormat): string {
  if (format === 'ssh') return config.get('gpg.ssh.program') ?? 'ssh-keygen';
  if (format === 'x509') return config.get('gpg.x509.program') ?? 'gpgsm';
  return config.get('gpg.openpgp.program') ?? config.get('gpg.program') ?? 'gpg';
}

const expandHome = (p: string, env: NodeJS.ProcessEnv): string => (p.startsWith('~/') ? path.join(env.HOME ?? os.homedir(), p.slice(2)) : p);

/**
 * The signer for a commit by `committer`, or null when the commit is not to be signed: `sign`
 * (the caller's choice) wins over commit.gpgSign.
 */
export function signerFor(config: GitConfig, committer: { name: string; email: string }, env: NodeJS.ProcessEnv, sign?: boolean): Signer | null {
  if (!(sign ?? config.getBool('commit.gpgSign') ?? false)) return null;
  const format = formatOf(config);
  const configured = config.get('user.signingKey');
  if (format === 'ssh' && (configured === undefined || configured === '')) {
    throw new PatchtxError('usage', 'signing with gpg.format=ssh needs user.signingKey (a key file, or a public key whose private key the ssh agent holds)', {
      key: 'user.signingKey',
    });
  }
  const key = configured ?? `${committer.name} <${committer.email}>`;
  return { format, program: programOf(config, format), key: format === 'ssh' ? expandHome(key, env) : key };
}

function failed(signer: Signer, ran: ProgramRun, why?: string): PatchtxError {
  const status = ran.error ? null : ran.status;
  const what = ran.error ? `could not be started (${ran.error.message})` : (why ?? `exited with status ${ran.status ?? 'null (a signal)'}`);
  const output = ran.stderr.trimEnd();
  return new PatchtxError(
    'commit_refused',
    `signing the commit failed: ${signer.program} (gpg.format=${signer.format}, key ${signer.key}) ${what}; nothing was committed${output === '' ? '' : `:\n${output}`}`,
    { program: signer.program, status, output: ran.stderr },
  );
}

async function signWithGpg(signer: Signer, payload: Uint8Array, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await runProgram(signer.program, ['--status-fd=2', '-bsau', signer.key], { input: payload, env });
  if (ran.error || ran.status !== 0) throw failed(signer, ran);
  // git takes the signature only with gpg's word that it made one
  if (!/^\[GNUPG:\] SIG_CREATED /m.test(ran.stderr)) throw failed(signer, ran, 'did not report a signature (no SIG_CREATED status line)');
  return ran.stdout.toString('utf8');
}

const isLiteralSshKey = (key: string): boolean => key.startsWith('key::') || /^ssh-/.test(key);

async function signWithSsh(signer: Signer, payload: Uint8Array, env: NodeJS.ProcessEnv): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), '.patchtx-sign-'));
  try {
    const buffer = path.join(dir, 'payload');
    fs.writeFileSync(buffer, payload);
    const args = ['-Y', 'sign', '-n', 'git'];
    if (isLiteralSshKey(signer.key)) {
      const keyFile = path.join(dir, `key-${randomBytes(4).toString('hex')}.pub`);
      fs.writeFileSync(keyFile, signer.key.replace(/^key::/, '') + '\n');
      args.push('-f', keyFile, '-U');
    } else {
      args.push('-f', signer.key);
    }
    const ran = await runProgram(signer.program, [...args, buffer], { input: null, env });
    if (ran.error || ran.status !== 0) throw failed(signer, ran);
    let signature: string;
    try {
      signature = fs.readFileSync(`${buffer}.sig`, 'utf8');
    } catch {
      throw failed(signer, ran, `left no signature in ${path.basename(buffer)}.sig`);
    }
    return signature;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The signature of `payload` (a commit without its gpgsig header), as the gpgsig header holds it. */
export async function signPayload(signer: Signer, payload: Uint8Array, env: NodeJS.ProcessEnv): Promise<string> {
  const signature = signer.format === 'ssh' ? await signWithSsh(signer, payload, env) : await signWithGpg(signer, payload, env);
  // no CR (gpg on Windows writes CRLF), no final newline: the header writer ends the line
  return signature.replace(/\r\n/g, '\n').replace(/\n+$/, '');
}
