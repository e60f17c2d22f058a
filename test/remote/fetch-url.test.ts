// A push's fetches (a retry's fetch of the branch's new tip, the notes fetch before a notes merge)
// fetch from where git fetches: the remote's URL, not its pushurl. Here the pushurl's server
// refuses fetches (http.uploadpack off) and the URL is a read-only mirror kept level with it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { patchtxJson } from '../helpers/cli.js';
import { addLine, seededRemote, useHttpHost } from '../helpers/remote.js';
import { git, rev } from '../helpers/repos.js';
import { tempDir } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const NOTES = 'refs/notes/patchtx';
const host = useHttpHost();

it("a retry and the notes merge fetch from the remote's URL, not from its pushurl", async () => {
  const setup = await seededRemote(host());
  const mirror = `${setup.bare.replace(/\.git$/, '')}-mirror.git`;
  git(host().root, 'clone', '-q', '--bare', setup.bare, mirror);
  const mirrorUrl = `${setup.url.replace(/\.git$/, '')}-mirror.git`;
  // the push URL's server takes pushes only
  git(setup.bare, 'config', 'http.uploadpack', 'false');
  git(setup.clone, 'config', 'remote.origin.url', mirrorUrl);
  git(setup.clone, 'config', 'remote.origin.pushurl', setup.url);
  // another bot lands a commit and a note on the server, and the mirror follows
  const other = path.join(tempDir(), 'other');
  git(host().root, 'clone', '-q', mirror, other);
  writeFileSync(path.join(other, 'b.txt'), 'theirs\n');
  git(other, 'add', 'b.txt');
  const who = ['-c', 'user.name=Other', '-c', 'user.email=o@example.invalid'];
  git(other, ...who, 'commit', '-q', '-m', 'other bot');
  git(other, ...who, 'notes', '--ref', 'patchtx', 'add', '-m', 'note of the other bot', 'HEAD');
  git(other, 'push', '-q', setup.bare, 'main', NOTES);
  git(other, 'push', '-q', mirror, 'main', NOTES);
  const theirs = rev(other);

  const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '1', addLine('two'));
  expect(r.code, r.out + r.err).toBe(0);
  expect(r.json.retries).toBe(1);
  expect(r.json.notes).toBe('pushed');
  expect(r.json.warnings).toEqual([]);
  expect(rev(setup.bare, 'main')).toBe(r.json.commit);
  expect(rev(setup.bare, 'main~1')).toBe(theirs);
  // both notes on the server: the other bot's, fetched from the mirror and merged, and the new one
  expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', theirs)).toBe('note of the other bot\n');
  expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', r.json.commit)).toContain('*** Begin Patch');
  expectFsckClean(setup.bare);
  expectFsckClean(setup.clone);
});
