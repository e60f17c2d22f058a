// A server that wants credentials: push and apply --push get them from git's credential helpers
// (`git credential fill`, configured by credential.helper), as git push does, and never prompt;
// without a helper that knows the server, or with a wrong password, the push fails with a message
// saying so and the server is unchanged.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { git, gitOk, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';

let root: string;
let server: GitHttpServer;
let clone: string;
let bare: string;
let store: string;
let n = 0;

beforeAll(async () => {
  isolateGitEnv();
  root = tempDir();
  server = await startGitHttpServer(root, { user: 'bot', password: 's3cret' });
});
afterAll(async () => {
  await server.close();
  cleanupScratch();
});

/** A bare repository behind the server and a clone made with the right credentials from a store file. */
beforeEach(async () => {
  const name = `private${++n}.git`;
  bare = path.join(root, name);
  git(root, 'init', '-q', '--bare', '-b', 'main', name);
  git(bare, 'config', 'http.receivepack', 'true');
  const seed = path.join(tempDir(), 'seed');
  git(root, 'init', '-q', '-b', 'main', seed);
  writeFileSync(path.join(seed, 'a.txt'), 'one\n');
  git(seed, 'add', 'a.txt');
  git(seed, 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'main');
  store = path.join(tempDir(), 'credentials');
  const host = new URL(server.base).host;
  writeFileSync(store, `http://bot:s3cret@${host}\n`);
  clone = path.join(tempDir(), 'clone');
  await gitOk(root, '-c', `credential.helper=store --file=${store}`, 'clone', '-q', `${server.base}${name}`, clone);
  git(clone, 'config', 'user.name', 'Bot');
  git(clone, 'config', 'user.email', 'bot@example.invalid');
});

const addLine = (line: string) => patchFile(v4a('*** Update File: a.txt', '@@', ' one', `+${line}`));

describe('credentials from git credential helpers', () => {
  it('apply --push takes them from credential.helper', async () => {
    git(clone, 'config', 'credential.helper', `store --file=${store}`);
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(rev(bare, 'main')).toBe(r.lines[0].commit);
  });

  it('without a helper, the push fails saying the server wants credentials, and nothing changes there', async () => {
    const before = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code).toBe(74);
    expect(r.json.error.message).toMatch(/the server wants credentials \(HTTP 401\)/);
    expect(rev(bare, 'main')).toBe(before);
  });

  it('a wrong password is refused the same way', async () => {
    const wrong = path.join(tempDir(), 'wrong');
    writeFileSync(wrong, `http://bot:nope@${new URL(server.base).host}\n`);
    git(clone, 'config', 'credential.helper', `store --file=${wrong}`);
    const before = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code).toBe(74);
    expect(r.json.error.message).toMatch(/HTTP 401/);
    expect(rev(bare, 'main')).toBe(before);
  });
});
