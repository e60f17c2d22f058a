// apply --push and push against a real smart-HTTP server (git http-backend on loopback): the push
// lands when the server's branch is where the transaction was built, is refused as `stale` with
// the server unchanged when another clone pushed meanwhile, carries refs/notes/patchtx along,
// and overwrites only with --force.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson, runCli } from '../helpers/cli.js';
import { addLine, anotherBotPushes, seededRemote, type SharedRemote, useHttpHost } from '../helpers/remote.js';
import { git, gitAsync, gitOk, rev } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const host = useHttpHost();

/** A bare repository on the server with one commit on main, and a clone of it over HTTP. */
let setup: SharedRemote;
beforeEach(async () => {
  setup = await seededRemote(host());
});

/** Another clone ("another bot") moves the server's main on. */
const otherBotPushes = (): Promise<string> => anotherBotPushes(setup.url);

describe('apply --push', () => {
  it('lands the commit on the server, with its patch text in refs/notes/patchtx', async () => {
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    const [applied, pushed] = r.lines;
    expect(pushed).toMatchObject({ ok: true, ref: 'refs/heads/main', commit: applied.commit, previous: applied.parent, notes: 'pushed' });
    expect(rev(setup.bare, 'main')).toBe(applied.commit);
    expect(git(setup.bare, 'log', '--format=%s', 'main').trim().split('\n')).toHaveLength(2);
    expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', applied.commit)).toContain('+two');
    // the remote-tracking ref follows, as after git push
    expect(rev(setup.clone, 'refs/remotes/origin/main')).toBe(applied.commit);
    expect(git(setup.clone, 'for-each-ref', '--format=%(refname)', 'refs/remotes/').trim().split('\n')).toEqual([
      'refs/remotes/origin/HEAD',
      'refs/remotes/origin/main',
    ]);
    expectFsckClean(setup.bare);
  });

  it('is refused as stale when the server moved meanwhile: the server is unchanged, the local commit kept', async () => {
    const theirs = await otherBotPushes();
    const base = rev(setup.clone);
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('mine'), '--push');
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.json.error.kind).toBe('stale');
    expect(r.json.error).toMatchObject({ ref: 'refs/heads/main', expected: base, actual: theirs });
    expect(r.json.error.message).toContain(theirs.slice(0, 12));
    expect(r.json.error.message).toContain(base.slice(0, 12));
    const mine = r.lines[0].commit;
    expect(r.json.error.committed).toEqual([mine]);
    expect(rev(setup.clone)).toBe(mine);
    expect(rev(setup.bare, 'main')).toBe(theirs);
    expect(git(setup.bare, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');
    expectFsckClean(setup.bare);
  });

  it('works from the built program, which bundles the HTTP client', async () => {
    const r = await runCli(['apply', '--repo', setup.clone, addLine('built'), '--push', 'origin']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Pushed refs\/heads\/main \([0-9a-f]{12}\) to origin \(was [0-9a-f]{12}\)\./);
    expect(rev(setup.bare, 'main')).toBe(rev(setup.clone));
    expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+built');
  });

  it('is refused by the server as stale when the branch moves after the advertisement', async () => {
    const release = path.join(tempDir(), 'release');
    const base = rev(setup.clone);
    const run = runCli(['apply', '--repo', setup.clone, addLine('raced'), '--push', '--json'], {
      env: { PATCHTX_TEST_PAUSE_AT: 'push-advertised', PATCHTX_TEST_PAUSE_UNTIL: release },
    });
    // the lease matched what the server advertised; now another bot moves the branch
    await waitFor(() => existsSync(`${release}.held`), 'the push to reach the advertisement');
    const theirs = await otherBotPushes();
    writeFileSync(release, '');
    const r = await run;
    expect(r.status, r.stdout + r.stderr).toBe(5);
    const error = JSON.parse(r.stdout.trim().split('\n').pop()!).error;
    expect(error).toMatchObject({ kind: 'stale', ref: 'refs/heads/main', expected: base });
    expect(error.message).toMatch(/the server refused/);
    expect(rev(setup.bare, 'main')).toBe(theirs);
    expectFsckClean(setup.bare);
  });

  it('--force overwrites the moved server branch', async () => {
    await otherBotPushes();
    const r = await patchtxJson('apply', '--repo', setup.clone, '--push=origin', '--force', addLine('forced'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ forced: true });
    expect(rev(setup.bare, 'main')).toBe(r.lines[0].commit);
    expectFsckClean(setup.bare);
  });
});

describe('push', () => {
  it('pushes when the server is where origin/main says, and refuses after another push', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('local'));
    expect(a.code, a.out + a.err).toBe(0);
    const ok = await patchtx('push', '--repo', setup.clone);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('Pushed refs/heads/main');
    expect(rev(setup.bare, 'main')).toBe(a.json.commit);

    const b = await patchtxJson('apply', '--repo', setup.clone, addLine('again'));
    const theirs = await otherBotPushes();
    const refused = await patchtxJson('push', '--repo', setup.clone);
    expect(refused.code).toBe(5);
    expect(refused.json.error).toMatchObject({ expected: a.json.commit, actual: theirs });
    expect(rev(setup.bare, 'main')).toBe(theirs);
    expect(rev(setup.clone)).toBe(b.json.commit);
  });

  it("merges the server's notes when they moved on, and pushes the merge: every note on both sides is kept", async () => {
    // another bot's note on the server that this clone has not fetched
    const seed = rev(setup.bare, 'main');
    git(setup.bare, 'notes', '--ref', 'patchtx', 'add', '-m', 'theirs', seed);
    const serverNotes = rev(setup.bare, 'refs/notes/patchtx');
    const r = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.notes).toBe('pushed');
    expect(r.json.warnings).toEqual([]);
    const mine = r.lines[0].commit;
    expect(rev(setup.bare, 'main')).toBe(mine);
    const merged = rev(setup.bare, 'refs/notes/patchtx');
    expect(git(setup.bare, 'rev-list', '--parents', '-n', '1', merged).trim().split(' ')).toContain(serverNotes);
    expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', seed)).toBe('theirs\n');
    expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', mine)).toContain('+two');
    // the clone's notes are the merge too, and show reads both
    expect(rev(setup.clone, 'refs/notes/patchtx')).toBe(merged);
    expect((await patchtx('show', '--repo', setup.clone, mine)).out).toContain('+two');
    expectFsckClean(setup.bare);
    expectFsckClean(setup.clone);
  });

  it('--expect sets the lease: none for a branch the remote must not have yet, a commit id otherwise', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('expect'));
    const server = rev(setup.bare, 'main');
    const absent = await patchtxJson('push', '--repo', setup.clone, '--expect', 'none');
    expect(absent.code).toBe(5);
    expect(absent.json.error).toMatchObject({ kind: 'stale', expected: null, actual: server });
    const right = await patchtxJson('push', '--repo', setup.clone, '--expect', server);
    expect(right.code, right.out).toBe(0);
    expect(rev(setup.bare, 'main')).toBe(a.json.commit);
    const bad = await patchtxJson('push', '--repo', setup.clone, '--expect', 'HEAD');
    expect(bad.code).toBe(2);
    const forceAlone = await patchtxJson('apply', '--repo', setup.clone, '--force', addLine('x'));
    expect(forceAlone.code).toBe(2);
    expect(forceAlone.json.error.message).toContain('--push');
  });

  it('says the remote is up to date when it is already at the commit, as git does', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('once'), '--push');
    expect(a.code, a.out + a.err).toBe(0);
    const again = await patchtx('push', '--repo', setup.clone);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain(`Everything up-to-date: refs/heads/main is at ${a.lines[0].commit.slice(0, 12)} on origin.`);
    expect(again.out).not.toContain('Pushed');
    // git says the same of it
    expect((await gitAsync(setup.clone, 'push', 'origin', 'main')).stderr).toContain('Everything up-to-date');
    const json = await patchtxJson('push', '--repo', setup.clone);
    expect(json.json).toMatchObject({ commit: a.lines[0].commit, previous: a.lines[0].commit });
  });

  it('names a remote that is not configured, and refuses a transport it does not speak, as usage errors', async () => {
    const r = await patchtxJson('push', 'nowhere', '--repo', setup.clone);
    expect(r.code).toBe(2);
    expect(r.json.error.message).toContain("no remote named 'nowhere'");
    const f = await patchtxJson('push', `ftp://example.invalid/x.git`, '--repo', setup.clone);
    expect(f.code).toBe(2);
    expect(f.json.error.message).toMatch(/only http:\/\/, https:\/\/, ssh:\/\/, host:path, file:\/\/ and path remotes/);
    // a remote helper's URL is not git's host:path
    const h = await patchtxJson('push', 'codecommit::eu-west-1://x', '--repo', setup.clone);
    expect(h.code).toBe(2);
    expect(h.json.error.message).toMatch(/only http:\/\/, https:\/\/, ssh:\/\/, host:path, file:\/\/ and path remotes/);
  });
});

/** Another clone changes a.txt's line `one` (the context the patches here are anchored on). */
const otherBotRewritesOne = (): Promise<string> => anotherBotPushes(setup.url, { 'a.txt': 'uno\n' }, 'other bot rewrites one');

/** Another clone changes b.txt (which the patches here leave alone). */
const otherBotRewritesB = (): Promise<string> => anotherBotPushes(setup.url, { 'b.txt': 'theirs, again\n' }, 'other bot again');

describe('apply --push --retry', () => {
  it('applies the patches again onto the moved remote branch and lands them on top', async () => {
    const theirs = await otherBotPushes();
    const first = patchFile(v4a('*** Update File: a.txt', '@@', ' one', '+two'));
    const second = patchFile(v4a('*** Add File: c.txt', '+three'));
    const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '2', '-m', 'Add two', first, second);
    expect(r.code, r.out + r.err).toBe(0);
    const pushed = r.json;
    expect(pushed.retries).toBe(1);
    expect(pushed.reapplied).toHaveLength(2);
    // the commits first made here were replaced by new ones on top of the other bot's
    expect(pushed.reapplied).not.toContain(r.lines[0].commit);
    expect(pushed.commit).toBe(pushed.reapplied[1]);
    expect(rev(setup.bare, 'main')).toBe(pushed.commit);
    expect(rev(setup.bare, 'main~2')).toBe(theirs);
    expect(git(setup.bare, 'log', '-1', '--format=%s', 'main~1').trim()).toBe('Add two');
    expect(git(setup.bare, 'show', 'main:a.txt')).toBe('one\ntwo\n');
    expect(git(setup.bare, 'show', 'main:b.txt')).toBe('theirs\n');
    expect(git(setup.bare, 'show', 'main:c.txt')).toBe('three\n');
    for (const c of pushed.reapplied) expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'show', c)).toContain('*** Begin Patch');
    // the clone follows: its branch, checkout and remote-tracking ref are the pushed commit
    expect(rev(setup.clone)).toBe(pushed.commit);
    expect(rev(setup.clone, 'refs/remotes/origin/main')).toBe(pushed.commit);
    expect(git(setup.clone, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(setup.clone, 'b.txt'), 'utf8')).toBe('theirs\n');
    expectFsckClean(setup.bare);
    expectFsckClean(setup.clone);
  });

  it('stops with the patch error when the patch no longer applies: the server unchanged, the clone as it was', async () => {
    const theirs = await otherBotRewritesOne();
    const r = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', '3', addLine('two'));
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.json.error.kind).toBe('context_not_found');
    expect(rev(setup.bare, 'main')).toBe(theirs);
    const mine = r.lines[0].commit;
    expect(rev(setup.clone)).toBe(mine);
    expect(git(setup.clone, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(setup.clone, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(git(setup.bare, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');
    expectFsckClean(setup.bare);
    expectFsckClean(setup.clone);
  });

  it('works on a branch without a checkout (--ref, in a bare clone)', async () => {
    const theirs = await otherBotPushes();
    const bareClone = path.join(tempDir(), 'bare-clone.git');
    await gitOk(host().root, 'clone', '-q', '--bare', setup.url, bareClone);
    git(bareClone, 'config', 'user.name', 'Bot');
    git(bareClone, 'config', 'user.email', 'bot@example.invalid');
    // the bare clone is from before the other bot's second push
    const later = await otherBotRewritesB();
    expect(rev(setup.bare, 'main~1')).toBe(theirs);
    const r = await patchtxJson('apply', '--repo', bareClone, '--ref', 'main', '--push', '--retry', '1', addLine('two'));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.retries).toBe(1);
    expect(rev(setup.bare, 'main')).toBe(r.json.commit);
    expect(rev(setup.bare, 'main~1')).toBe(later);
    expect(rev(bareClone, 'main')).toBe(r.json.commit);
    expect(git(setup.bare, 'show', 'main:a.txt')).toBe('one\ntwo\n');
    expectFsckClean(setup.bare);
    expectFsckClean(bareClone);
  });

  it('--retry needs --push, and a whole number', async () => {
    const alone = await patchtxJson('apply', '--repo', setup.clone, '--retry', '2', addLine('x'));
    expect(alone.json.error.kind).toBe('usage');
    expect(alone.json.error.message).toContain('--push');
    const bad = await patchtxJson('apply', '--repo', setup.clone, '--push', '--retry', 'many', addLine('x'));
    expect(bad.json.error.kind).toBe('usage');
    expect(bad.json.error.message).toContain("not 'many'");
    expect(rev(setup.clone)).toBe(rev(setup.bare, 'main'));
  });
});

describe('undo --push and redo --push', () => {
  it('undo --push moves the server branch back under the lease, redo --push brings the commit back', async () => {
    const seed = rev(setup.bare, 'main');
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    expect(a.code, a.out + a.err).toBe(0);
    const mine = a.lines[0].commit;
    const u = await patchtxJson('undo', '--repo', setup.clone, '--push');
    expect(u.code, u.out + u.err).toBe(0);
    expect(u.lines[0]).toMatchObject({ action: 'reset', target: mine, commit: seed });
    expect(u.json).toMatchObject({ ok: true, ref: 'refs/heads/main', commit: seed, previous: mine });
    expect(rev(setup.bare, 'main')).toBe(seed);
    expect(rev(setup.clone, 'refs/remotes/origin/main')).toBe(seed);
    const r = await patchtxJson('redo', '--repo', setup.clone, '--push');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({ commit: mine, previous: seed });
    expect(rev(setup.bare, 'main')).toBe(mine);
    expectFsckClean(setup.bare);
  });

  it('undo --revert --push lands the revert commit on top', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    const mine = a.lines[0].commit;
    const u = await patchtxJson('undo', '--repo', setup.clone, '--revert', '--push');
    expect(u.code, u.out + u.err).toBe(0);
    const revert = u.lines[0].commit;
    expect(rev(setup.bare, 'main')).toBe(revert);
    expect(rev(setup.bare, 'main~1')).toBe(mine);
    expect(git(setup.bare, 'show', 'main:a.txt')).toBe('one\n');
    expect(git(setup.bare, 'notes', '--ref', 'patchtx', 'list', revert).trim()).not.toBe('');
  });

  it('is stale when the server moved since, which stays as it is; the local undo stands', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    const mine = a.lines[0].commit;
    const theirs = await otherBotPushes();
    const u = await patchtxJson('undo', '--repo', setup.clone, '--push');
    expect(u.code, u.out + u.err).toBe(5);
    expect(u.json.error).toMatchObject({ kind: 'stale', expected: mine, actual: theirs });
    expect(rev(setup.bare, 'main')).toBe(theirs);
    expect(rev(setup.clone)).toBe(rev(setup.clone, `${mine}~1`));
    expectFsckClean(setup.bare);
  });
});

describe('show of a commit whose note did not come along', () => {
  it('says it carries a Patch-Id, and --regenerate makes an equivalent patch from its diff, marked as such', async () => {
    const a = await patchtxJson('apply', '--repo', setup.clone, addLine('two'), '--push');
    expect(a.code, a.out + a.err).toBe(0);
    const mine = a.lines[0].commit;
    // a plain clone does not fetch refs/notes/patchtx
    const fresh = path.join(tempDir(), 'fresh');
    await gitOk(host().root, 'clone', '-q', setup.url, fresh);
    const plain = await patchtx('show', '--repo', fresh, 'HEAD');
    expect(plain.code).toBe(2);
    expect(plain.err).toContain('Patch-Id');
    const r = await patchtx('show', '--repo', fresh, '--regenerate', 'HEAD');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^note: no patch text is stored for HEAD: this patch was regenerated/);
    // applied onto the parent, it makes the same tree
    git(fresh, 'config', 'user.name', 'Bot');
    git(fresh, 'config', 'user.email', 'bot@example.invalid');
    git(fresh, 'checkout', '-q', '-b', 'again', 'HEAD~1');
    const again = await patchtxJson('apply', '--repo', fresh, patchFile(r.out));
    expect(again.code, again.out + again.err).toBe(0);
    expect(git(fresh, 'rev-parse', 'again^{tree}')).toBe(git(fresh, 'rev-parse', `${mine}^{tree}`));
    // with the note there, --regenerate prints the stored text and says nothing
    const stored = await patchtx('show', '--repo', setup.clone, '--regenerate', mine);
    expect(stored.err).toBe('');
    expect(stored.out).toBe(readFileSync(addLine('two'), 'utf8'));
  });
});
