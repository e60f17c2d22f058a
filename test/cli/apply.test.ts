// `patchtx apply` end to end, in-process, against real repositories of every shape, cross-checked
// with the git CLI: exactly one new commit on the base, what it contains, and what the checkout
// looks like afterwards.
import { statSync, readFileSync, writeFileSync, mkdirSync, existsSync, readdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchtx, patchtxJson } from '../helpers/cli.js';
import { cleanupRepos, commitCount, commonDirOf, git, gitDirOf, gitTry, makeRepo, rev, treeOf } from '../helpers/repos.js';
import { BASIC_PATCH, BASIC_SUMMARY, cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a, withEnv } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot, worktreeFiles } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const MATH_AFTER = 'export function add(a, b) {\n  return a + b; // sum\n}\n';

/** What every successful BASIC_PATCH commit must look like, whatever the repository shape. */
function expectBasicCommit(dir: string, commit: string, parent: string): void {
  expect(git(dir, 'cat-file', '-t', commit).trim()).toBe('commit');
  expect(git(dir, 'log', '-1', '--format=%P', commit).trim()).toBe(parent);
  const tree = treeOf(dir, commit);
  const before = treeOf(dir, parent);
  expect(tree['bin/run.sh']!.split(' ')[0]).toBe('100755');
  expect(tree['src/new.js']!.split(' ')[0]).toBe('100644');
  expect(git(dir, 'show', `${commit}:src/math.js`)).toBe(MATH_AFTER);
  expect(git(dir, 'show', `${commit}:bin/run.sh`)).toBe('#!/bin/sh\necho hi\n');
  expect(git(dir, 'show', `${commit}:src/new.js`)).toBe('export const x = 1;\n');
  // nothing else changed
  const changed = git(dir, 'diff-tree', '-r', '--name-status', '--no-renames', parent, commit).trim().split('\n').sort();
  expect(changed).toEqual(['A\tsrc/new.js', 'M\tbin/run.sh', 'M\tsrc/math.js']);
  for (const p of ['README.md', 'docs/crlf.txt', 'docs/blob.bin', 'docs/src-link', 'vendor/lib', 'src/util/name.js']) expect(tree[p]).toBe(before[p]);
  const trailers = git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)', commit).trim();
  expect(trailers).toMatch(/^[0-9a-f]{40}$/);
}

describe('apply in each repository shape', () => {
  it('basic: one commit on the checked-out branch, working tree and index follow', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await patchtx('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const head = rev(dir);
    expect(r.out).toBe(`${BASIC_SUMMARY}[main ${head.slice(0, 7)}] committed\n`);
    expect(commitCount(dir)).toBe(3);
    expect(rev(dir, 'HEAD~1')).toBe(base);
    expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expectBasicCommit(dir, head, base);
    // the checkout is in line: files on disk, index clean, executable bit kept
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toBe(MATH_AFTER);
    expect(readFileSync(path.join(dir, 'src/new.js'), 'utf8')).toBe('export const x = 1;\n');
    expect(statSync(path.join(dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(statSync(path.join(dir, 'src/new.js')).mode & 0o111).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'ls-files', '-s', 'bin/run.sh', 'src/new.js')).toBe(
      `100755 ${treeOf(dir)['bin/run.sh']!.split(' ')[1]} 0\tbin/run.sh\n100644 ${treeOf(dir)['src/new.js']!.split(' ')[1]} 0\tsrc/new.js\n`,
    );
    // one reflog entry for the branch and for HEAD, naming the transaction
    expect(git(dir, 'reflog', '-1', '--format=%H %gs', 'refs/heads/main').trim()).toBe(
      `${head} patchtx: Apply patch: update src/math.js, add src/new.js (+1 more)`,
    );
    expect(git(dir, 'reflog', '-1', '--format=%H %gs', 'HEAD').trim()).toBe(`${head} patchtx: Apply patch: update src/math.js, add src/new.js (+1 more)`);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('packed: objects in a pack and refs in packed-refs', async () => {
    const dir = makeRepo('packed');
    expect(existsSync(path.join(dir, '.git/refs/heads/main'))).toBe(false);
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, parent: base, ref: 'refs/heads/main', noop: false });
    expect(rev(dir)).toBe(r.json.commit);
    expect(rev(dir, 'refs/heads/main')).toBe(r.json.commit);
    expect(git(dir, 'for-each-ref', '--format=%(refname)', 'refs/heads').trim()).toBe('refs/heads/main');
    expectBasicCommit(dir, r.json.commit, base);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('bare: moves the branch HEAD names, writes no working tree', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    const before = readdirSync(dir).sort();
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, parent: base, ref: 'refs/heads/main' });
    expect(rev(dir, 'refs/heads/main')).toBe(r.json.commit);
    expectBasicCommit(dir, r.json.commit, base);
    expect(git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe('Bare User <bare@example.invalid>|Bare User <bare@example.invalid>');
    // no checkout appeared: only git's own entries (patchtx's directory, reflogs) at the top
    expect(readdirSync(dir).filter((n) => !before.includes(n) && n !== 'patchtx' && n !== 'logs')).toEqual([]);
    expect(existsSync(path.join(dir, 'src'))).toBe(false);
    expect(existsSync(path.join(dir, 'index'))).toBe(false);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('bare: --ref creates another branch from --base, HEAD branch untouched', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    const main = rev(dir, 'refs/heads/main');
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'refs/heads/bot', '--base', 'main~1', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, ref: 'refs/heads/bot', parent: rev(dir, 'main~1') });
    expect(rev(dir, 'refs/heads/main')).toBe(main);
    expect(rev(dir, 'refs/heads/bot')).toBe(r.json.commit);
    expect(git(dir, 'log', '-1', '--format=%P', 'bot').trim()).toBe(rev(dir, 'main~1'));
    // main~1 has no docs/notes.txt and no vendor/lib: the patch applied to that tree
    expect(treeOf(dir, 'bot')['docs/notes.txt']).toBeUndefined();
    expect(git(dir, 'show', 'bot:src/new.js')).toBe('export const x = 1;\n');
    // a short ref name means a branch
    const r2 = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', patchFile(v4a('*** Add File: more.txt', '+more')));
    expect(r2.code).toBe(0);
    expect(r2.json.ref).toBe('refs/heads/bot');
    expect(r2.json.parent).toBe(r.json.commit);
    expectFsckClean(dir);
  });

  it('linked worktree: its own HEAD and index move, the main checkout is untouched, objects go to the common dir', async () => {
    const main = makeRepo('worktree');
    const wt = `${main}-wt`;
    const mainBefore = snapshot(main);
    const base = rev(wt);
    expect(git(wt, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/feature');
    const wtGitDir = gitDirOf(wt);
    const indexBefore = readFileSync(path.join(wtGitDir, 'index'));
    const r = await patchtxJson('apply', '--repo', wt, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, ref: 'refs/heads/feature', parent: base });
    expect(rev(wt)).toBe(r.json.commit);
    expect(rev(main, 'refs/heads/feature')).toBe(r.json.commit);
    expectBasicCommit(main, r.json.commit, base);
    // the linked worktree's files and index follow
    expect(readFileSync(path.join(wt, 'src/math.js'), 'utf8')).toBe(MATH_AFTER);
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(wtGitDir, 'index')).equals(indexBefore)).toBe(false);
    // the main checkout: HEAD, index, files all as before (only the shared refs and objects grew)
    const mainAfter = snapshot(main);
    expect(mainAfter.head).toBe(mainBefore.head);
    expect(mainAfter.index).toBe(mainBefore.index);
    expect(mainAfter.files).toEqual(mainBefore.files);
    expect(mainAfter.status).toBe(mainBefore.status);
    // objects live in the common dir only
    expect(existsSync(path.join(wtGitDir, 'objects'))).toBe(false);
    expect(commonDirOf(wt)).toBe(path.join(main, '.git'));
    // (a transaction writes its objects as one pack: the commit is in a pack of the common dir)
    const packs = readdirSync(path.join(main, '.git/objects/pack')).filter((f) => f.endsWith('.idx'));
    const holding = packs.filter((idx) => git(main, 'verify-pack', '-v', path.join(main, '.git/objects/pack', idx)).includes(`${r.json.commit} commit`));
    expect(holding).toHaveLength(1);
    // the reflog of the worktree's HEAD is its own
    expect(git(wt, 'reflog', '-1', '--format=%H', 'HEAD').trim()).toBe(r.json.commit);
    expect(git(main, 'reflog', '-1', '--format=%H', 'HEAD').trim()).toBe(mainBefore.head);
    expectNoLeftovers(wt);
    expectFsckClean(main);
  });
});

describe('the commit', () => {
  it('-m, --author, --committer and repeated --trailer are recorded; Patch-Id comes last', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson(
      'apply',
      '--repo',
      dir,
      '-m',
      'Fix the adder\n\nLonger explanation.',
      '--author',
      'Ada Author <ada@example.invalid>',
      '--committer',
      'Cy Committer <cy@example.invalid>',
      '--trailer',
      'Reviewed-by=Rev One <rev@example.invalid>',
      '--trailer',
      'Refs: #42',
      patchFile(BASIC_PATCH),
    );
    expect(r.code).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%an|%ae|%cn|%ce').trim()).toBe('Ada Author|ada@example.invalid|Cy Committer|cy@example.invalid');
    const msg = git(dir, 'log', '-1', '--format=%B');
    // the tree patchtx made the commit with (undo refuses a commit amended since)
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
    expect(msg).toBe(
      `Fix the adder\n\nLonger explanation.\n\nReviewed-by: Rev One <rev@example.invalid>\nRefs: #42\nPatchtx-Tree: ${tree}\nPatch-Id: ${r.json.patchId}\n\n`,
    );
    // git reads the same trailers back
    expect(git(dir, 'log', '-1', '--format=%(trailers:unfold,separator=%x0a)').trim().split('\n')).toEqual([
      'Reviewed-by: Rev One <rev@example.invalid>',
      'Refs: #42',
      `Patchtx-Tree: ${tree}`,
      `Patch-Id: ${r.json.patchId}`,
    ]);
  });

  it('--author alone: the committer is still the configured identity', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('apply', '--repo', dir, '--author', 'Ada Author <ada@example.invalid>', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe('Ada Author <ada@example.invalid>|Fixture User <user@fixtures.invalid>');
  });

  it('generated message: subject names the first two changes, body lists every change as A/M/D/R', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson(
      'apply',
      '--repo',
      dir,
      patchFile(
        v4a(
          '*** Update File: README.md',
          '@@',
          '-# Sample',
          '+# Sample repository',
          '*** Add File: docs/new.md',
          '+new',
          '*** Delete File: docs/notes.txt',
          '*** Update File: src/util/name.js',
          '*** Move to: src/util/label.js',
          '@@',
          '-export const name = "util";',
          '+export const label = "util";',
        ),
      ),
    );
    expect(r.code).toBe(0);
    expect(r.json.files).toEqual([
      { path: 'README.md', op: 'M', from: null },
      { path: 'docs/new.md', op: 'A', from: null },
      { path: 'docs/notes.txt', op: 'D', from: null },
      { path: 'src/util/label.js', op: 'R', from: 'src/util/name.js' },
    ]);
    expect(git(dir, 'log', '-1', '--format=%B')).toBe(
      'Apply patch: update README.md, add docs/new.md (+2 more)\n\n' +
        'M README.md\nA docs/new.md\nD docs/notes.txt\nR src/util/name.js -> src/util/label.js\n\n' +
        `Patchtx-Tree: ${git(dir, 'rev-parse', 'HEAD^{tree}').trim()}\nPatch-Id: ${r.json.patchId}\n\n`,
    );
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(dir, 'src/util/name.js'))).toBe(false);
    expect(existsSync(path.join(dir, 'docs/notes.txt'))).toBe(false);
    expect(readFileSync(path.join(dir, 'src/util/label.js'), 'utf8')).toBe('export const label = "util";\n');
  });

  it('one or two changes: no (+N more)', async () => {
    const dir = makeRepo('basic');
    await patchtx('apply', '--repo', dir, patchFile(v4a('*** Delete File: docs/notes.txt')));
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Apply patch: delete docs/notes.txt');
    await patchtx('apply', '--repo', dir, patchFile(v4a('*** Add File: a.txt', '+a', '*** Add File: b.txt', '+b')));
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Apply patch: add a.txt, add b.txt');
  });

  it('the same patch spelled differently (CRLF, padding, heredoc, fence) has the same Patch-Id', async () => {
    const dir = makeRepo('basic');
    const plain = BASIC_PATCH;
    const crlf = plain.replace(/\n/g, '\r\n');
    // Codex trims the Begin/End markers and hunk headers that open a hunk; a padded header after a
    // chunk would be a context line, so only the first header is padded here
    const padded = plain
      .split('\n')
      .map((l, i) => (l.startsWith('*** Begin') || l.startsWith('*** End') || i === 1 ? `  ${l}  ` : l))
      .join('\n');
    const heredoc = `apply_patch <<'EOF'\n${plain}EOF\n`;
    const bareHeredoc = `<<EOF\n${plain}EOF\n`;
    const fenced = '```diff\n' + plain + '```\n';
    const ids = new Set<string>();
    for (const text of [plain, crlf, padded, heredoc, bareHeredoc, fenced]) {
      const r = await patchtxJson('check', '--repo', dir, patchFile(text));
      expect(r.code, text).toBe(0);
      ids.add(r.json.patchId);
    }
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    // a different edit has a different id
    const other = await patchtxJson('check', '--repo', dir, patchFile(plain.replace('echo hi', 'echo hey')));
    expect(other.json.patchId).not.toBe(id);
    // and the commit carries it
    const applied = await patchtxJson('apply', '--repo', dir, patchFile(crlf));
    expect(applied.json.patchId).toBe(id);
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim()).toBe(id);
  });

  it('file modes: an update and a move keep 100755; new files are 100644', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx(
      'apply',
      '--repo',
      dir,
      patchFile(v4a('*** Update File: bin/run.sh', '*** Move to: bin/go.sh', '@@', '-echo hello', '+echo go', '*** Add File: bin/new.sh', '+#!/bin/sh')),
    );
    expect(r.code).toBe(0);
    const tree = treeOf(dir);
    expect(tree['bin/go.sh']!.split(' ')[0]).toBe('100755');
    expect(tree['bin/new.sh']!.split(' ')[0]).toBe('100644');
    expect(tree['bin/run.sh']).toBeUndefined();
    expect(statSync(path.join(dir, 'bin/go.sh')).mode & 0o111).not.toBe(0);
    expect(statSync(path.join(dir, 'bin/new.sh')).mode & 0o111).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // a pure rename keeps the mode too
    const r2 = await patchtx('apply', '--repo', dir, patchFile(v4a('*** Update File: bin/go.sh', '*** Move to: scripts/go.sh')));
    expect(r2.code).toBe(0);
    expect(treeOf(dir)['scripts/go.sh']).toBe(tree['bin/go.sh']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('CRLF files keep their line endings', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('apply', '--repo', dir, patchFile(v4a('*** Update File: docs/crlf.txt', '@@', ' line one', '-line two', '+line 2')));
    expect(r.code).toBe(0);
    expect(git(dir, 'show', 'HEAD:docs/crlf.txt')).toBe('line one\r\nline 2\r\nline three\r\n');
    expect(readFileSync(path.join(dir, 'docs/crlf.txt'), 'utf8')).toBe('line one\r\nline 2\r\nline three\r\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('missing identity', () => {
  /** A repository whose config has no user.name / user.email (its commit was made with env vars). */
  function identitylessRepo(): string {
    const dir = path.join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git(dir, 'add', 'a.txt');
    git(dir, 'commit', '-q', '-m', 'base');
    expect(git(dir, 'config', '--list', '--local')).not.toMatch(/user\./);
    return dir;
  }

  const noIdentityEnv = () => ({
    HOME: tempDir(),
    XDG_CONFIG_HOME: undefined,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    EMAIL: undefined,
  });

  it('exit 2 with a message that says how to set one; nothing written', async () => {
    const dir = identitylessRepo();
    const before = snapshot(dir);
    const patch = patchFile(v4a('*** Update File: a.txt', '@@', '-a', '+b'));
    const r = await withEnv(noIdentityEnv(), () => patchtx('apply', '--repo', dir, patch));
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error: Author identity unknown \(no name or email\)\. Run git config user\.name .*; or pass --author "Name <email>"\n$/);
    expect(r.err).toContain('git config user.email');
    const j = await withEnv(noIdentityEnv(), () => patchtxJson('apply', '--repo', dir, patch));
    expect(j.code).toBe(2);
    expect(j.json.ok).toBe(false);
    expect(j.json.error).toMatchObject({ kind: 'missing_identity', role: 'author', missing: ['name', 'email'] });
    expectUntouched(dir, before);
  });

  it('a missing committer names --committer and its own variables; check says the same as apply', async () => {
    const dir = identitylessRepo();
    const before = snapshot(dir);
    const patch = patchFile(v4a('*** Update File: a.txt', '@@', '-a', '+b'));
    const env = { ...noIdentityEnv(), GIT_AUTHOR_NAME: 'Ann', GIT_AUTHOR_EMAIL: 'ann@example.com' };
    for (const command of ['apply', 'check']) {
      const r = await withEnv(env, () => patchtx(command, '--repo', dir, patch));
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /^error: Committer identity unknown \(no name or email\)\. Run git config user\.name .* or set GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL; or pass --committer "Name <email>"\n$/,
      );
    }
    expectUntouched(dir, before);
  });

  it('--author is enough: it is also the committer when none is configured', async () => {
    const dir = identitylessRepo();
    const patch = patchFile(v4a('*** Update File: a.txt', '@@', '-a', '+b'));
    const r = await withEnv(noIdentityEnv(), () => patchtx('apply', '--repo', dir, '--author', 'Bot <bot@example.invalid>', patch));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe('Bot <bot@example.invalid>|Bot <bot@example.invalid>');
  });
});

describe('the checkout around a transaction', () => {
  it('untouched files are not rewritten: inode, mtime and index stat data unchanged', async () => {
    const dir = makeRepo('basic');
    // files written in the same second as the index are "racily clean": whoever rewrites the index
    // (git, or patchtx, the same way) smudges their size so the next status re-reads them. Rewrite
    // the index a second later so the stat data of the untouched files is settled.
    await new Promise((res) => setTimeout(res, 1100));
    git(dir, 'update-index', '--refresh', '--force-write-index');
    const others = ['README.md', 'docs/crlf.txt', 'docs/notes.txt', 'src/util/name.js', 'docs/blob.bin'];
    const stats = Object.fromEntries(others.map((p) => [p, statSync(path.join(dir, p), { bigint: true })]));
    const debug = (p: string) => git(dir, 'ls-files', '--debug', p);
    const entries = Object.fromEntries(others.map((p) => [p, debug(p)]));
    await new Promise((res) => setTimeout(res, 20));
    const r = await patchtx('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    for (const p of others) {
      const st = statSync(path.join(dir, p), { bigint: true });
      expect({ p, ino: st.ino, mtime: st.mtimeNs, ctime: st.ctimeNs }).toEqual({ p, ino: stats[p]!.ino, mtime: stats[p]!.mtimeNs, ctime: stats[p]!.ctimeNs });
      expect(debug(p)).toBe(entries[p]);
    }
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a touched file that stat calls clean but whose bytes differ from the blob is patched from the blob', async () => {
    // The base content of a clean touched file is read from the working tree when its bytes hash
    // to the base blob. Here stat data cannot tell (same size, inode and mtime; ctime not
    // trusted), so git itself calls the file clean: the patch must still apply to the blob.
    const dir = makeRepo('basic');
    git(dir, 'config', 'core.trustctime', 'false');
    const file = path.join(dir, 'src/math.js');
    const old = new Date('2001-02-03T04:05:06Z');
    utimesSync(file, old, old);
    git(dir, 'update-index', '--refresh');
    const blob = readFileSync(file, 'utf8');
    writeFileSync(file, blob.replace('add', 'ADD')); // in place: same inode, same size
    utimesSync(file, old, old);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const r = await patchtx('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe(MATH_AFTER);
    expect(readFileSync(file, 'utf8')).toBe(MATH_AFTER);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('other staged changes stay staged (and out of the commit)', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'notes, edited and staged\n');
    git(dir, 'add', 'docs/notes.txt');
    writeFileSync(path.join(dir, 'staged-new.txt'), 'new and staged\n');
    git(dir, 'add', 'staged-new.txt');
    writeFileSync(path.join(dir, 'README.md'), '# unstaged edit\n');
    const stagedBefore = git(dir, 'diff', '--cached');
    const r = await patchtx('apply', '--repo', dir, patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(git(dir, 'diff', '--cached')).toBe(stagedBefore);
    expect(git(dir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual(['A  staged-new.txt', 'M  docs/notes.txt', ' M README.md'].sort());
    expect(git(dir, 'diff-tree', '--no-commit-id', '--name-only', '-r', 'HEAD').trim().split('\n').sort()).toEqual(['bin/run.sh', 'src/math.js', 'src/new.js']);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# unstaged edit\n');
  });

  it('--ref refs/heads/new --base HEAD~1 creates a branch without touching the working tree or index', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# dirty, but not our business\n');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'refs/heads/new', '--base', 'HEAD~1', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, ref: 'refs/heads/new', parent: before.head ? rev(dir, 'HEAD~1') : null, noop: false });
    expect(rev(dir, 'refs/heads/new')).toBe(r.json.commit);
    expect(git(dir, 'log', '-1', '--format=%P', 'new').trim()).toBe(rev(dir, 'HEAD~1'));
    const after = snapshot(dir);
    expect(after.head).toBe(before.head);
    expect(after.symbolicHead).toBe('refs/heads/main');
    expect(after.index).toBe(before.index);
    expect(after.files).toEqual(before.files);
    expect(after.status).toBe(before.status);
    expect(after.refs).toBe(before.refs + `refs/heads/new ${r.json.commit}\nrefs/notes/patchtx ${rev(dir, 'refs/notes/patchtx')}\n`);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('--ref B --base main run again with the same patch: already applied, nothing written; another patch is stale', async () => {
    for (const kind of ['basic', 'bare'] as const) {
      const dir = makeRepo(kind);
      git(dir, 'config', 'user.name', 'Bot');
      git(dir, 'config', 'user.email', 'bot@example.invalid');
      const main = rev(dir, 'refs/heads/main');
      const first = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(BASIC_PATCH));
      expect(first.code, first.out).toBe(0);
      const before = snapshot(dir);
      // spelled with CRLF: still the same patch (its Patch-Id)
      const again = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(BASIC_PATCH.replace(/\n/g, '\r\n')));
      expect(again.code, again.out).toBe(0);
      expect(again.json).toMatchObject({
        ok: true,
        ref: 'refs/heads/bot',
        alreadyApplied: first.json.commit,
        commit: null,
        noop: true,
        files: [],
        patchId: first.json.patchId,
      });
      const checked = await patchtxJson('check', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(BASIC_PATCH));
      expect(checked.json).toMatchObject({ ok: true, alreadyApplied: first.json.commit });
      expectUntouched(dir, before);
      expect(rev(dir, 'refs/heads/bot')).toBe(first.json.commit);
      expect(git(dir, 'log', '--format=%H', 'bot').trim().split('\n')).toEqual([first.json.commit, ...git(dir, 'log', '--format=%H', main).trim().split('\n')]);
      // another patch, or the same one with --allow-reapply, would move bot off main: stale
      const other = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(v4a('*** Add File: other.txt', '+x')));
      expect(other.code).toBe(5);
      expect(other.json.error).toMatchObject({ kind: 'stale', expected: main, actual: first.json.commit });
      const forced = await patchtxJson('apply', '--allow-reapply', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(BASIC_PATCH));
      expect(forced.code).toBe(5);
      expect(forced.json.error.kind).toBe('stale');
      // once main has moved on, bot is no longer that patch on main's tip: stale too
      const onMain = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: main.txt', '+m')));
      expect(onMain.code, onMain.out).toBe(0);
      const behind = await patchtxJson('apply', '--repo', dir, '--ref', 'bot', '--base', 'main', patchFile(BASIC_PATCH));
      expect(behind.code).toBe(5);
      expect(behind.json.error).toMatchObject({ kind: 'stale', expected: rev(dir, 'refs/heads/main'), actual: first.json.commit });
      expect(rev(dir, 'refs/heads/bot')).toBe(first.json.commit);
      expectNoLeftovers(dir);
      expectFsckClean(dir);
    }
  });

  it('--ref naming the checked-out branch: the checkout follows', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('apply', '--repo', dir, '--ref', 'main', patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'src/math.js'), 'utf8')).toBe(MATH_AFTER);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('--expect-head: a match applies, a mismatch is stale (exit 5) and changes nothing', async () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    const before = snapshot(dir);
    const bad = await patchtxJson('apply', '--repo', dir, '--expect-head', rev(dir, 'HEAD~1'), patchFile(BASIC_PATCH));
    expect(bad.code).toBe(5);
    expect(bad.json.error).toMatchObject({ kind: 'stale', ref: 'refs/heads/main', actual: head });
    const text = await patchtx('apply', '--repo', dir, '--expect-head', '0123456', patchFile(BASIC_PATCH));
    expect(text.code).toBe(5);
    expect(text.err).toMatch(/^error: refs\/heads\/main is at [0-9a-f]{40}, not at the expected 0123456\n$/);
    expectUntouched(dir, before);
    const ok = await patchtxJson('apply', '--repo', dir, '--expect-head', head.slice(0, 10), patchFile(BASIC_PATCH));
    expect(ok.code).toBe(0);
    expect(ok.json.parent).toBe(head);
  });

  it('--base that is not where the ref is: stale (exit 5), nothing written', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--base', 'HEAD~1', patchFile(BASIC_PATCH));
    expect(r.code).toBe(5);
    expect(r.json.error).toMatchObject({ kind: 'stale', expected: rev(dir, 'HEAD~1'), actual: rev(dir) });
    expectUntouched(dir, before);
    const same = await patchtxJson('apply', '--repo', dir, '--base', 'main', patchFile(BASIC_PATCH));
    expect(same.code).toBe(0);
  });

  it('a patch whose result equals the base is a noop: success, no commit', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const patch = patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample'));
    const r = await patchtxJson('apply', '--repo', dir, patch);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, noop: true, commit: null, parent: before.head, ref: 'refs/heads/main' });
    const text = await patchtx('apply', '--repo', dir, patch);
    expect(text.code).toBe(0);
    expect(text.out).toBe('Nothing to commit: the patch leaves refs/heads/main unchanged.\n');
    // add then delete the same file in one patch: also nothing
    const r2 = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: tmp.txt', '+x', '*** Delete File: tmp.txt')));
    expect(r2.code).toBe(0);
    expect(r2.json.noop).toBe(true);
    expectUntouched(dir, before);
  });
});

describe('several patches in one call', () => {
  const pa = v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A');
  const pb = v4a('*** Add File: b.txt', '+b');
  const pc = v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a - b;');

  it('apply a b c: three commits, in order, each on the previous one', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(pa), patchFile(pb), patchFile(pc));
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(3);
    expect(r.lines.map((l) => l.parent)).toEqual([base, r.lines[0].commit, r.lines[1].commit]);
    expect(git(dir, 'log', '--format=%H', '-3').trim().split('\n')).toEqual([r.lines[2].commit, r.lines[1].commit, r.lines[0].commit]);
    expect(git(dir, 'log', '--format=%s', '-3').trim().split('\n')).toEqual([
      'Apply patch: update src/math.js',
      'Apply patch: add b.txt',
      'Apply patch: update README.md',
    ]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('replaying a log: the patches `show` returns re-apply on another branch with the same Patch-Ids', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(pa), patchFile(pb), patchFile(pc));
    const log = await patchtxJson('log', '--repo', dir);
    const texts = [];
    for (const e of [...log.json].reverse()) texts.push(patchFile((await patchtx('show', '--repo', dir, e.commit)).out));
    const replay = await patchtxJson('apply', '--repo', dir, '--ref', 'replay', '--base', base, ...texts);
    expect(replay.code).toBe(0);
    expect(replay.lines.map((l) => l.patchId)).toEqual(r.lines.map((l) => l.patchId));
    expect(git(dir, 'rev-parse', 'replay^{tree}').trim()).toBe(git(dir, 'rev-parse', 'main^{tree}').trim());
    expect(commitCount(dir, 'replay')).toBe(commitCount(dir, 'main'));
  });

  it('--expect-head applies to the first patch; the rest chain on', async () => {
    const dir = makeRepo('basic');
    const head = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--expect-head', head, patchFile(pa), patchFile(pb));
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[1].parent).toBe(r.lines[0].commit);
  });

  it('a failing patch stops the run: earlier ones stay committed, later ones are not applied', async () => {
    const dir = makeRepo('basic');
    const bad = v4a('*** Update File: README.md', '@@', '-no such line', '+x');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(pa), patchFile(bad), patchFile(pc));
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[0].ok).toBe(true);
    expect(r.lines[1]).toMatchObject({ ok: false, error: { kind: 'context_not_found', path: 'README.md' } });
    expect(rev(dir)).toBe(r.lines[0].commit);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectNoLeftovers(dir);
  });

  it('an unreadable patch file is reported before anything is applied', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(pa), path.join(tempDir(), 'missing.patch'));
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.json.error.kind).toBe('usage');
    expectUntouched(dir, before);
  });
});

describe('output', () => {
  it('--diff prints a unified diff of every change after the summary', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx(
      'apply',
      '--repo',
      dir,
      '--diff',
      patchFile(
        v4a('*** Update File: src/math.js', '@@', '-  return a + b;', '+  return a - b;', '*** Add File: n.txt', '+n', '*** Delete File: docs/notes.txt'),
      ),
    );
    expect(r.code).toBe(0);
    const head = rev(dir).slice(0, 7);
    expect(r.out).toBe(
      'Success. Updated the following files:\nA n.txt\nM src/math.js\nD docs/notes.txt\n' +
        '--- a/src/math.js\n+++ b/src/math.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a + b;\n+  return a - b;\n }\n' +
        '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+n\n' +
        '--- a/docs/notes.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-notes\n' +
        `[main ${head}] committed\n`,
    );
  });

  it('colour only when asked for, and never with NO_COLOR', async () => {
    const dir = makeRepo('basic');
    const patch = patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Sample A'));
    const bad = patchFile(v4a('*** Update File: README.md', '@@', '-nope', '+x'));
    // not a terminal, no FORCE_COLOR: plain
    const plain = await patchtx('check', '--repo', dir, '--diff', patch);
    expect(plain.out).not.toContain('\x1b[');
    const coloured = await withEnv({ FORCE_COLOR: '1' }, () => patchtx('check', '--repo', dir, '--diff', patch));
    expect(coloured.out).toContain('\x1b[32m+# Sample A');
    expect(coloured.out).toContain('\x1b[31m-# Sample');
    const colouredErr = await withEnv({ FORCE_COLOR: '1' }, () => patchtx('check', '--repo', dir, bad));
    // eslint-disable-next-line no-control-regex -- the colour's escape sequence is what is checked
    expect(colouredErr.err).toMatch(/^\x1b\[31merror:/);
    for (const value of ['1', 'true']) {
      const r = await withEnv({ FORCE_COLOR: '1', NO_COLOR: value }, () => patchtx('check', '--repo', dir, '--diff', patch));
      expect(r.code).toBe(0);
      expect(r.out).not.toContain('\x1b[');
      expect(r.out).toContain('+# Sample A\n');
      const e = await withEnv({ FORCE_COLOR: '1', NO_COLOR: value }, () => patchtx('check', '--repo', dir, bad));
      expect(e.err).toMatch(/^error: /);
    }
  });

  it('warnings go to stderr, the summary to stdout', async () => {
    const dir = makeRepo('basic');
    const r = await patchtx('apply', '--repo', dir, patchFile(v4a('*** Add File: README.md', '+replaced')));
    expect(r.code).toBe(0);
    expect(r.err).toBe('warning: Add File README.md overwrites the existing file\n');
    // Codex reports an Add as A even when it replaced a file
    expect(r.out).toMatch(/^Success\. Updated the following files:\nA README\.md\n\[main [0-9a-f]{7}\] committed\n$/);
    expect(r.out.slice(r.out.indexOf('['))).toBe(`[main ${rev(dir).slice(0, 7)}] committed\n`);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('Apply patch: update README.md');
  });

  it('subdirectory of a checkout as --repo: paths stay relative to the repository root', async () => {
    const dir = makeRepo('basic');
    mkdirSync(path.join(dir, 'src/util'), { recursive: true });
    const r = await patchtx('apply', '--repo', path.join(dir, 'src/util'), patchFile(BASIC_PATCH));
    expect(r.code).toBe(0);
    expect(worktreeFiles(dir)['src/new.js']).toBeDefined();
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('unusual HEADs', () => {
  it('an unborn branch: the first commit has no parent', async () => {
    const dir = path.join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    git(dir, 'config', 'user.name', 'U');
    git(dir, 'config', 'user.email', 'u@example.invalid');
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: first.txt', '+first')));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ parent: null, ref: 'refs/heads/main' });
    expect(git(dir, 'log', '--format=%H %P').trim()).toBe(`${r.json.commit} `.trim());
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(dir, 'first.txt'), 'utf8')).toBe('first\n');
    expectFsckClean(dir);
  });

  it('--ref HEAD means the checked-out branch; a branch named HEAD is refused', async () => {
    const dir = makeRepo('basic');
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'HEAD', patchFile(v4a('*** Add File: b.txt', '+b')));
    expect(r.code).toBe(0);
    expect(r.json.ref).toBe('refs/heads/main');
    expect(readFileSync(path.join(dir, 'b.txt'), 'utf8')).toBe('b\n');
    const before = snapshot(dir);
    for (const bad of ['refs/heads/HEAD', 'a b', 'x.lock', '-x', 'refs/heads/a/../b']) {
      const e = await patchtxJson('apply', '--repo', dir, `--ref=${bad}`, patchFile(v4a('*** Add File: c.txt', '+c')));
      expect(e.code, bad).toBe(2);
      expect(e.json.error.kind).toBe('usage');
    }
    expectUntouched(dir, before);
  });

  it('a detached HEAD moves itself; no branch changes', async () => {
    const dir = makeRepo('basic');
    const main = rev(dir, 'main');
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    const base = rev(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: b.txt', '+b')));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ref: 'HEAD', parent: base });
    expect(rev(dir)).toBe(r.json.commit);
    expect(rev(dir, 'main')).toBe(main);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'reflog', '-1', '--format=%gs', 'HEAD').trim()).toBe('patchtx: Apply patch: add b.txt');
    const undo = await patchtxJson('undo', '--repo', dir);
    expect(undo.code).toBe(0);
    expect(rev(dir)).toBe(base);
    expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
  });

  it('--ref naming a branch checked out in another worktree is refused: that checkout would be left behind', async () => {
    const main = makeRepo('worktree');
    const wt = `${main}-wt`;
    const beforeMain = snapshot(main);
    const beforeWt = snapshot(wt);
    const r = await patchtxJson('apply', '--repo', main, '--ref', 'feature', patchFile(BASIC_PATCH));
    expect(r.code).toBe(2);
    expect(r.json.error).toMatchObject({ kind: 'usage', ref: 'refs/heads/feature', worktree: wt });
    expect(r.json.error.message).toContain(`checked out in the worktree at ${wt}`);
    // and the other way round: the linked worktree cannot move main behind the main checkout's back
    const r2 = await patchtxJson('apply', '--repo', wt, '--ref', 'refs/heads/main', patchFile(BASIC_PATCH));
    expect(r2.code).toBe(2);
    expect(r2.json.error.worktree).toBe(main);
    const undo = await patchtxJson('undo', '--repo', main, '--ref', 'feature');
    expect(undo.code).toBe(2);
    expectUntouched(main, beforeMain);
    expectUntouched(wt, beforeWt);
    // reading is fine
    const log = await patchtxJson('log', '--repo', main, '--ref', 'feature');
    expect(log.code).toBe(0);
    // and a branch checked out nowhere can be moved from either checkout
    const side = await patchtxJson('apply', '--repo', wt, '--ref', 'side', '--base', 'main', patchFile(BASIC_PATCH));
    expect(side.code).toBe(0);
    expect(git(wt, 'status', '--porcelain')).toBe('');
  });
});

describe('cd wrappers', () => {
  it('`cd DIR && apply_patch <<EOF`: paths are relative to DIR; the Patch-Id is that of the re-rooted patch', async () => {
    const dir = makeRepo('basic');
    const inner = v4a('*** Update File: name.js', '@@', '-export const name = "util";', '+export const name = "x";');
    const rooted = v4a('*** Update File: src/util/name.js', '@@', '-export const name = "util";', '+export const name = "x";');
    const wrapped = `cd src/util && apply_patch <<'EOF'\n${inner}EOF\n`;
    const check = await patchtxJson('check', '--repo', dir, patchFile(rooted));
    const r = await patchtxJson('apply', '--repo', dir, patchFile(wrapped));
    expect(r.code).toBe(0);
    expect(r.json.files).toEqual([{ path: 'src/util/name.js', op: 'M', from: null }]);
    expect(r.json.patchId).toBe(check.json.patchId);
    expect(git(dir, 'show', 'HEAD:src/util/name.js')).toBe('export const name = "x";\n');
    // show gives the patch re-rooted at the repository (no `cd`), so it replays from the root
    const shown = (await patchtx('show', '--repo', dir, 'HEAD')).out;
    expect(shown).not.toContain('cd src/util');
    expect(shown).toContain('*** Update File: src/util/name.js');
    const escape = await patchtxJson('check', '--repo', dir, patchFile(`cd ../.. && apply_patch <<'EOF'\n${inner}EOF\n`));
    expect(escape.code).toBe(4);
    expect(escape.json.error.kind).toBe('path_rejected');
    // an absolute directory inside the checkout works too (checked against the commit before)
    const abs = await patchtxJson(
      'check',
      '--repo',
      dir,
      '--base',
      'HEAD',
      patchFile(
        `cd ${path.join(dir, 'src/util')} && apply_patch <<'EOF'\n${v4a('*** Update File: name.js', '@@', '-export const name = "x";', '+export const name = "y";')}EOF\n`,
      ),
    );
    expect(abs.code).toBe(0);
    expect(abs.json.files).toEqual([{ path: 'src/util/name.js', op: 'M', from: null }]);
    const outside = await patchtxJson('check', '--repo', dir, patchFile(`cd ${tempDir()} && apply_patch <<'EOF'\n${inner}EOF\n`));
    expect(outside.code).toBe(4);
  });
});

describe('paths that change kind', () => {
  it('a file becomes a directory in one patch (Delete a + Add a/b); undo turns it back', async () => {
    const dir = makeRepo('basic');
    const files = worktreeFiles(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Delete File: docs/notes.txt', '*** Add File: docs/notes.txt/inner.txt', '+inner')));
    expect(r.code, r.out).toBe(0);
    expect(treeOf(dir)['docs/notes.txt/inner.txt']).toBeDefined();
    expect(treeOf(dir)['docs/notes.txt']).toBeUndefined();
    expect(readFileSync(path.join(dir, 'docs/notes.txt/inner.txt'), 'utf8')).toBe('inner\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    expect(worktreeFiles(dir)).toEqual(files);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('Add a/b without deleting the file a: refused, nothing written', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: docs/notes.txt/inner.txt', '+inner')));
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ kind: 'path_rejected', path: 'docs/notes.txt/inner.txt' });
    expectUntouched(dir, before);
  });

  it('an untracked file where the patch needs a directory: refused even if the patch deletes nothing there', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'blocker'), 'untracked\n');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: blocker/x.txt', '+x')));
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ kind: 'path_rejected', reason: 'worktree_prefix', by: 'blocker' });
    expectUntouched(dir, before);
  });

  it('a tracked file that is dirty blocks its own replacement by a directory (exit 6)', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'local edit\n');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Delete File: docs/notes.txt', '*** Add File: docs/notes.txt/inner.txt', '+inner')));
    expect(r.code).toBe(6);
    expect(r.json.error.paths).toEqual(['docs/notes.txt']);
    expectUntouched(dir, before);
  });

  it('a move into a new directory and its undo leave no empty directories behind', async () => {
    const dir = makeRepo('basic');
    const files = worktreeFiles(dir);
    const r = await patchtx(
      'apply',
      '--repo',
      dir,
      patchFile(v4a('*** Add File: new/deep/file.txt', '+x', '*** Update File: src/util/name.js', '*** Move to: lib/x/name.js')),
    );
    expect(r.code).toBe(0);
    expect(existsSync(path.join(dir, 'src/util'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect((await patchtx('undo', '--repo', dir)).code).toBe(0);
    expect(worktreeFiles(dir)).toEqual(files);
  });
});

describe('large patches', () => {
  // 64 or more working-tree files are written several at a time (src/tx/sync.ts): the result must
  // be the same as one at a time, new directories included
  it('adds, then updates and deletes, 90 files: checkout and index exactly as committed', async () => {
    const dir = makeRepo('basic');
    const names = Array.from({ length: 90 }, (_, i) => `gen/d${i % 4}/sub${i % 3}/f${i}.txt`);
    const add = v4a(...names.flatMap((n, i) => [`*** Add File: ${n}`, `+file ${i}`, '+second line']));
    const added = await patchtx('apply', '--repo', dir, patchFile(add));
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    const update = v4a(
      ...names.flatMap((n, i) => (i % 10 === 0 ? [`*** Delete File: ${n}`] : [`*** Update File: ${n}`, '@@', ` file ${i}`, '-second line', `+changed ${i}`])),
    );
    const updated = await patchtx('apply', '--repo', dir, patchFile(update));
    expect(updated.err).toBe('');
    expect(updated.code).toBe(0);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    // stat data recorded for every written file: git's plumbing, which refreshes nothing, sees them
    // clean (untouched entries may be smudged for racy git, so only the written ones are asked)
    expect(gitTry(dir, 'diff-files', '--quiet', '--', 'gen').status).toBe(0);
    const tree = treeOf(dir);
    for (const [i, n] of names.entries()) {
      if (i % 10 === 0) {
        expect(existsSync(path.join(dir, n))).toBe(false);
        expect(tree[n]).toBeUndefined();
      } else {
        expect(readFileSync(path.join(dir, n), 'utf8')).toBe(`file ${i}\nchanged ${i}\n`);
        expect(git(dir, 'show', `HEAD:${n}`)).toBe(`file ${i}\nchanged ${i}\n`);
      }
    }
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });
});

describe('--ref: branches only, a new one from --base', () => {
  it('refuses tags, notes and remote-tracking refs (usage), moving nothing', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    git(dir, 'tag', 'v1', 'main');
    git(dir, 'tag', '-a', '-m', 'annotated', 'v2', 'main');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: first.txt', '+1')));
    const refsBefore = git(dir, 'for-each-ref');
    for (const ref of ['refs/tags/v1', 'refs/tags/v2', 'refs/notes/patchtx', 'refs/remotes/origin/main']) {
      const r = await patchtxJson('apply', '--repo', dir, '--ref', ref, patchFile(v4a('*** Add File: two.txt', '+2')));
      expect(r.code, ref).toBe(2);
      expect(r.json.error).toMatchObject({ kind: 'usage', ref });
      expect(r.json.error.message).toBe(`--ref: ${ref} is not a branch: patchtx commits onto branches (refs/heads/NAME) only`);
    }
    expect(git(dir, 'for-each-ref')).toBe(refsBefore);
    expectNoLeftovers(dir);
    expectFsckClean(dir);
  });

  it('a branch that does not exist needs --base when the repository has commits; without any, it is a first commit', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'refs/heads/feature', patchFile(v4a('*** Add File: n.txt', '+n')));
    expect(r.code).toBe(2);
    expect(r.json.error.message).toBe('refs/heads/feature does not exist yet; start it from a base revision, HEAD for the current commit (--base HEAD)');
    expectUntouched(dir, before);
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/feature').status).not.toBe(0);
    // with --base HEAD it starts there: the update of a file HEAD has applies
    const ok = await patchtxJson(
      'apply',
      '--repo',
      dir,
      '--ref',
      'feature',
      '--base',
      'HEAD',
      patchFile(v4a('*** Update File: README.md', '@@', '-# Sample', '+# Feature')),
    );
    expect(ok.code, ok.out).toBe(0);
    expect(ok.json.parent).toBe(rev(dir));
    expect(git(dir, 'log', '-1', '--format=%P', 'feature').trim()).toBe(rev(dir));
    // an empty repository: nothing to start from, so the branch gets a first commit
    const empty = tempDir();
    git(empty, 'init', '-q', '--bare', '-b', 'main');
    git(empty, 'config', 'user.name', 'E');
    git(empty, 'config', 'user.email', 'e@example.invalid');
    const first = await patchtxJson('apply', '--repo', empty, '--ref', 'refs/heads/bot', patchFile(v4a('*** Add File: a.txt', '+a')));
    expect(first.code, first.out).toBe(0);
    expect(first.json.parent).toBeNull();
    // once it has a branch, the next new one needs --base too
    const second = await patchtxJson('apply', '--repo', empty, '--ref', 'refs/heads/bot2', patchFile(v4a('*** Add File: b.txt', '+b')));
    expect(second.code).toBe(2);
    expect(second.json.error.message).toBe('refs/heads/bot2 does not exist yet; start it from a base revision (--base REV)');
    expectFsckClean(empty);
  });

  it('a server whose HEAD names an unborn branch still has branches: a new one (or that one) needs --base', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/unborn');
    const refsBefore = git(dir, 'for-each-ref');
    const viaRef = await patchtxJson('apply', '--repo', dir, '--ref', 'feature', patchFile(v4a('*** Add File: n.txt', '+n')));
    expect(viaRef.code).toBe(2);
    expect(viaRef.json.error.message).toBe('refs/heads/feature does not exist yet; start it from a base revision (--base REV)');
    const viaHead = await patchtxJson('apply', '--repo', dir, patchFile(v4a('*** Add File: n.txt', '+n')));
    expect(viaHead.code).toBe(2);
    expect(viaHead.json.error.message).toBe('refs/heads/unborn does not exist yet; start it from a base revision (--base REV)');
    expect(git(dir, 'for-each-ref')).toBe(refsBefore);
  });

  it('a branch that is a symbolic ref to another is refused (usage, exit 2) naming its target, moving nothing', async () => {
    const dir = makeRepo('bare');
    git(dir, 'config', 'user.name', 'Bare User');
    git(dir, 'config', 'user.email', 'bare@example.invalid');
    git(dir, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    const refsBefore = git(dir, 'for-each-ref');
    const r = await patchtxJson('apply', '--repo', dir, '--ref', 'alias', patchFile(v4a('*** Add File: n.txt', '+n')));
    expect(r.code, r.out).toBe(2);
    expect(r.json.error).toMatchObject({ kind: 'usage', ref: 'refs/heads/alias', target: 'refs/heads/main' });
    expect(r.json.error.message).toContain('refs/heads/alias is a symbolic ref to refs/heads/main');
    expect(git(dir, 'for-each-ref')).toBe(refsBefore);
    expect(git(dir, 'symbolic-ref', 'refs/heads/alias').trim()).toBe('refs/heads/main');
    expectNoLeftovers(dir);
  });

  it('a short name that git reads as a tag or a remote-tracking ref is refused, not made into a shadowing branch', async () => {
    const dir = makeRepo('bare');
    git(dir, 'tag', 'v1', 'main');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    for (const [name, ref] of [
      ['v1', 'refs/tags/v1'],
      ['origin/main', 'refs/remotes/origin/main'],
    ] as const) {
      const r = await patchtxJson('apply', '--repo', dir, '--ref', name, '--base', 'main', patchFile(v4a('*** Add File: n.txt', '+n')));
      expect(r.code, name).toBe(2);
      expect(r.json.error.message).toBe(`--ref: ${name} names ${ref}, which is not a branch: patchtx commits onto branches (refs/heads/NAME) only`);
    }
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/heads/v1').status).not.toBe(0);
  });
});

describe('a series of patches that stops', () => {
  it('names the patch that failed and the ones not applied; the ones before it are committed', async () => {
    const dir = makeRepo('basic');
    const base = rev(dir);
    const good = patchFile(v4a('*** Add File: one.txt', '+1'));
    const bad = patchFile(v4a('*** Update File: missing.txt', '@@', '-x', '+y'));
    const later = patchFile(v4a('*** Add File: three.txt', '+3'));
    const r = await patchtxJson('apply', '--repo', dir, good, bad, later);
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[0]).toMatchObject({ ok: true, parent: base });
    expect(r.json.error).toMatchObject({ kind: 'file_not_found', patch: bad, skipped: [later] });
    const [head, ...rest] = r.json.error.message.split('\n');
    expect(head).toBe(`${bad} (patch 2 of 3) failed:`);
    expect(rest[rest.length - 1]).toBe(`not applied: ${later}`);
    expect(rest.slice(0, -1).join('\n')).toContain('missing.txt');
    expect(rev(dir)).toBe(r.lines[0].commit);
    const human = await patchtx('apply', '--repo', dir, bad);
    // a single patch: its error as it is
    expect(human.err).not.toContain('patch 1 of 1');
  });
});

describe('--dirty=include', () => {
  it('warns for each path whose uncommitted changes went into the commit', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), readFileSync(path.join(dir, 'docs/notes.txt'), 'utf8') + 'wip\n');
    const r = await patchtxJson(
      'apply',
      '--repo',
      dir,
      '--dirty=include',
      patchFile(v4a('*** Update File: docs/notes.txt', '*** Move to: docs/moved.txt', '*** Update File: README.md', '@@', '-# Sample', '+# Sample 2')),
    );
    expect(r.code, r.out).toBe(0);
    expect(r.json.warnings).toEqual([
      {
        kind: 'dirty_included',
        path: 'docs/notes.txt',
        message: `docs/notes.txt: the commit includes its uncommitted changes (modified in the working tree) besides the patch; the patch stored with the commit does not hold them; they are saved as they were: git show refs/notes/patchtx:patchtx-saved/${r.json.commit.slice(0, 2)}/${r.json.commit.slice(2)}/worktree/docs/notes.txt`,
      },
    ]);
    expect(git(dir, 'show', 'HEAD:docs/moved.txt')).toContain('wip\n');
  });

  it('says when the patch replaces the uncommitted changes (a delete, an add over the file) and where they are saved, and says "would" under check', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'docs/notes.txt'), 'wip\n');
    writeFileSync(path.join(dir, 'loose.txt'), 'untracked\n');
    const patch = patchFile(v4a('*** Delete File: docs/notes.txt', '*** Add File: loose.txt', '+added'));
    const checked = await patchtxJson('check', '--repo', dir, '--dirty=include', patch);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.json.warnings.filter((w: { kind: string }) => w.kind === 'dirty_included').map((w: { message: string }) => w.message)).toEqual([
      "docs/notes.txt: its uncommitted changes (modified in the working tree) would be replaced: the patch deletes the file; they would be saved beside the transaction's note",
      "loose.txt: its uncommitted changes (untracked file in the way) would be replaced: the patch adds the file; they would be saved beside the transaction's note",
    ]);
    const r = await patchtxJson('apply', '--repo', dir, '--dirty=include', patch);
    expect(r.code, r.out).toBe(0);
    expect(r.json.warnings.filter((w: { kind: string }) => w.kind === 'dirty_included').map((w: { message: string }) => w.message)[0]).toBe(
      `docs/notes.txt: its uncommitted changes (modified in the working tree) were replaced: the patch deletes the file; they are saved: git show refs/notes/patchtx:patchtx-saved/${r.json.commit.slice(0, 2)}/${r.json.commit.slice(2)}/worktree/docs/notes.txt`,
    );
    expect(git(dir, 'show', `refs/notes/patchtx:patchtx-saved/${r.json.commit.slice(0, 2)}/${r.json.commit.slice(2)}/worktree/docs/notes.txt`)).toBe('wip\n');
  });
});
