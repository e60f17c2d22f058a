// git's URL rewriting (`url.<base>.insteadOf`, `url.<base>.pushInsteadOf`) applies to the remote
// patchtx pushes to, as it does for git push: the longest matching prefix is replaced by its base,
// pushInsteadOf only for push URLs and never for an explicit pushurl. A remote whose transport
// patchtx does not speak is refused before anything is committed.
import { basename } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, seededRemote, type SharedRemote, useHttpHost } from '../helpers/remote.js';
import { git, gitAsync, rev } from '../helpers/repos.js';

const host = useHttpHost();

let setup: SharedRemote;
let name: string;
beforeEach(async () => {
  setup = await seededRemote(host());
  name = basename(setup.bare);
});

/** A base on the same server where no repository is: a push rewritten to it fails. */
const nowhere = (): string => `${host().base}nowhere/`;

describe('url.<base>.insteadOf', () => {
  it('rewrites the remote URL, the longest matching prefix winning, as git does', async () => {
    git(setup.clone, 'config', `url.${nowhere()}.insteadOf`, 'srv:');
    git(setup.clone, 'config', `url.${host().base}server.insteadOf`, 'srv:server');
    git(setup.clone, 'remote', 'set-url', 'origin', `srv:${name}`);
    // git itself fetches through the rewritten URL
    expect((await gitAsync(setup.clone, 'fetch', '-q', 'origin')).status).toBe(0);
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('rewritten'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.url).toBe(setup.url);
    expect(rev(setup.bare, 'main')).toBe(r.lines[0].commit);
  });

  it('pushInsteadOf rewrites the push URL only, and an explicit pushurl is rewritten by insteadOf alone', async () => {
    git(setup.clone, 'config', `url.${host().base}.pushInsteadOf`, 'pushed:');
    git(setup.clone, 'remote', 'set-url', 'origin', `pushed:${name}`);
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('push-only'), '--push');
    expect(a.code, a.out + a.err).toBe(0);
    expect(rev(setup.bare, 'main')).toBe(a.lines[0].commit);

    git(setup.clone, 'remote', 'set-url', 'origin', setup.url);
    git(setup.clone, 'config', 'remote.origin.pushurl', `both:${name}`);
    git(setup.clone, 'config', `url.${nowhere()}.pushInsteadOf`, 'both:');
    git(setup.clone, 'config', `url.${host().base}.insteadOf`, 'both:');
    const b = await patchtxJson('apply', '--repo', setup.clone, addLine('pushurl'), '--push');
    expect(b.code, b.out + b.err).toBe(0);
    expect(rev(setup.bare, 'main')).toBe(b.lines[0].commit);
    // git agrees: its push goes to the same place
    expect((await gitAsync(setup.clone, 'push', '-q', 'origin', 'main')).status).toBe(0);
  });
});

describe('a transport patchtx does not speak', () => {
  it('is refused before anything is committed', async () => {
    git(setup.clone, 'remote', 'set-url', 'origin', 'git://example.invalid/x.git');
    const head = rev(setup.clone);
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('never'), '--push');
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.json.error.message).toMatch(/only http:\/\/, https:\/\/, ssh:\/\/, host:path, file:\/\/ and path remotes/);
    expect(r.lines).toHaveLength(1);
    expect(rev(setup.clone)).toBe(head);
    expect(git(setup.clone, 'status', '--porcelain')).toBe('');
  });
});
