// A server that wants credentials: push and apply --push get them from git's credential helpers
// (`git credential fill`, configured by credential.helper), as git push does, and never prompt;
// without a helper that knows the server, or with a wrong password, the push fails with a message
// saying so and the server is unchanged.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, httpHost, seededRemote, type RemoteHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, tempDir } from '../helpers/scratch.js';

let host: RemoteHost;
let clone: string;
let bare: string;
let store: string;

beforeAll(async () => {
  isolateGitEnv();
  host = await httpHost({ user: 'bot', password: 's3cret' });
});
afterAll(async () => {
  await host.close();
  cleanupScratch();
});

/** A bare repository behind the server and a clone made with the right credentials from a store file. */
beforeEach(async () => {
  store = path.join(tempDir(), 'credentials');
  writeFileSync(store, `http://bot:s3cret@${new URL(host.base!).host}\n`);
  ({ bare, clone } = await seededRemote(host, { cloneConfig: [`credential.helper=store --file=${store}`] }));
});

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
    writeFileSync(wrong, `http://bot:nope@${new URL(host.base!).host}\n`);
    git(clone, 'config', 'credential.helper', `store --file=${wrong}`);
    const before = rev(bare, 'main');
    const r = await patchtxJson('apply', '--repo', clone, addLine('two'), '--push');
    expect(r.code).toBe(74);
    expect(r.json.error.message).toMatch(/HTTP 401/);
    expect(rev(bare, 'main')).toBe(before);
  });
});
