// Transactions that touch no working tree (a bare repository, --ref of a branch not checked out)
// journal per ref: runs on different refs go ahead side by side, two on one ref still exclude each
// other, and a run killed on one ref is recovered while another ref is being worked on. Runs are
// held mid-transaction with PATCHTX_TEST_PAUSE_AT (after their journal is published, before the
// commit point) and killed with PATCHTX_TEST_CRASH_AT; every state is checked with git itself.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, type CliResult, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';
import { cleanupScratch, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean, leftoverFiles } from '../helpers/snapshot.js';

beforeAll(() => {
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

const MAIN = 'refs/heads/main';
const OTHER = 'refs/heads/other';
const HOLD_AT = 'after-publish-journal';

const addFile = (name: string): string => patchFile(v4a(`*** Add File: ${name}`, `+${name}`));
const rev = (dir: string, what: string): string => git(dir, 'rev-parse', '--verify', '-q', what).trim();
const parentOf = (dir: string, commit: string): string => rev(dir, `${commit}^`);
const noteOn = (dir: string, commit: string): string => git(dir, 'notes', '--ref=patchtx', 'show', commit);

/** A bare repository with a second branch, `other`, at main. */
function bareWithTwoBranches(): string {
  const dir = makeRepo('bare');
  git(dir, 'branch', 'other', 'main');
  return dir;
}

interface Held {
  run: Promise<CliResult>;
  release: () => void;
}

/** Starts `apply --ref ref` of `patch` and waits until it is held after publishing its journal. */
async function holdApply(dir: string, ref: string, patch: string, extra: string[] = []): Promise<Held> {
  const gate = path.join(tempDir(), 'go');
  const run = runCli(['apply', '--json', '--repo', dir, '--ref', ref, ...extra, patch], {
    env: { PATCHTX_TEST_PAUSE_AT: HOLD_AT, PATCHTX_TEST_PAUSE_UNTIL: gate },
  });
  await waitFor(() => existsSync(`${gate}.held`), `the run on ${ref} is held at ${HOLD_AT}`);
  return { run, release: () => writeFileSync(gate, '') };
}

const applyOn = (dir: string, ref: string, patch: string, extra: string[] = []): Promise<CliResult> =>
  runCli(['apply', '--json', '--repo', dir, '--ref', ref, ...extra, patch]);

function committed(r: CliResult, what: string): string {
  expect(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(0);
  return (JSON.parse(r.stdout) as { commit: string }).commit;
}

/** Nothing left behind and git finds the repository sound. */
function expectSound(dir: string, gitdir = dir): void {
  expectFsckClean(dir);
  expect(leftoverFiles(gitdir)).toEqual([]);
}

describe('journals per ref', () => {
  it('two runs on two refs of a bare repository both go ahead: the second while the first is held', async () => {
    const dir = bareWithTwoBranches();
    const base = rev(dir, MAIN);
    const first = await holdApply(dir, MAIN, addFile('first.txt'));
    // the first run's journal is there and alive, mid-transaction
    expect(readdirSync(path.join(dir, 'patchtx', 'refs')).filter((n) => n.startsWith('journal-'))).toHaveLength(1);
    const second = committed(await applyOn(dir, OTHER, addFile('second.txt')), 'the run on other while main is held');
    expect(rev(dir, OTHER)).toBe(second);
    expect(rev(dir, MAIN)).toBe(base);
    first.release();
    const firstCommit = committed(await first.run, 'the held run on main');
    expect(rev(dir, MAIN)).toBe(firstCommit);
    expect(parentOf(dir, firstCommit)).toBe(base);
    expect(parentOf(dir, second)).toBe(base);
    expect(git(dir, 'show', `${MAIN}:first.txt`)).toBe('first.txt\n');
    expect(git(dir, 'show', `${OTHER}:second.txt`)).toBe('second.txt\n');
    expect(noteOn(dir, firstCommit)).toContain('*** Add File: first.txt');
    expect(noteOn(dir, second)).toContain('*** Add File: second.txt');
    expectSound(dir);
  });

  it('two --ref runs in a checkout, on branches not checked out, both go ahead; the checkout is untouched', async () => {
    const dir = makeRepo('basic');
    git(dir, 'branch', 'one', 'main');
    git(dir, 'branch', 'two', 'main');
    const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
    const first = await holdApply(dir, 'one', addFile('one.txt'));
    const second = committed(await applyOn(dir, 'two', addFile('two.txt')), 'the run on two while one is held');
    first.release();
    const firstCommit = committed(await first.run, 'the held run on one');
    expect(rev(dir, 'refs/heads/one')).toBe(firstCommit);
    expect(rev(dir, 'refs/heads/two')).toBe(second);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(status);
    expectSound(dir, path.join(dir, '.git'));
  });

  it('a --ref run in a checkout goes ahead while a run on the checked-out branch is held', async () => {
    const dir = makeRepo('basic');
    git(dir, 'branch', 'side', 'main');
    const gate = path.join(tempDir(), 'go');
    const held = runCli(['apply', '--json', '--repo', dir, addFile('here.txt')], { env: { PATCHTX_TEST_PAUSE_AT: HOLD_AT, PATCHTX_TEST_PAUSE_UNTIL: gate } });
    await waitFor(() => existsSync(`${gate}.held`), 'the run on the checkout is held');
    const side = committed(await applyOn(dir, 'side', addFile('side.txt')), 'the --ref run while the checkout run is held');
    // one on the checked-out branch itself still meets the held run
    const same = await applyOn(dir, 'main', addFile('same.txt'));
    expect(same.status, same.stdout).toBe(5);
    expect(JSON.parse(same.stdout).error.kind).toBe('stale');
    writeFileSync(gate, '');
    const here = committed(await held, 'the held run on the checkout');
    expect(rev(dir, 'HEAD')).toBe(here);
    expect(rev(dir, 'refs/heads/side')).toBe(side);
    expect(readFileSync(path.join(dir, 'here.txt'), 'utf8')).toBe('here.txt\n');
    expect(existsSync(path.join(dir, 'side.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expectSound(dir, path.join(dir, '.git'));
  });

  it('two runs on one ref still exclude each other: stale without --wait, and with it the second goes after the first', async () => {
    const dir = bareWithTwoBranches();
    const base = rev(dir, MAIN);
    const first = await holdApply(dir, MAIN, addFile('first.txt'));
    const now = await applyOn(dir, MAIN, addFile('second.txt'));
    expect(now.status, now.stdout + now.stderr).toBe(5);
    const error = JSON.parse(now.stdout).error;
    expect(error.kind).toBe('stale');
    expect(error.message).toMatch(/in progress on refs\/heads\/main/);
    const shortWait = await applyOn(dir, MAIN, addFile('second.txt'), ['--wait', '0.5']);
    expect(shortWait.status, shortWait.stdout).toBe(5);
    expect(JSON.parse(shortWait.stdout).error).toMatchObject({ kind: 'stale', waited: 0.5 });
    expect(rev(dir, MAIN)).toBe(base);
    const waiting = applyOn(dir, MAIN, addFile('second.txt'), ['--wait', '60']);
    first.release();
    const firstCommit = committed(await first.run, 'the held run');
    const second = committed(await waiting, 'the waiting run');
    expect(parentOf(dir, second)).toBe(firstCommit);
    expect(parentOf(dir, firstCommit)).toBe(base);
    expect(rev(dir, MAIN)).toBe(second);
    expectSound(dir);
  });

  it('a run killed on one ref is recovered by a run on another, and by recover beside a live run', async () => {
    const dir = bareWithTwoBranches();
    const base = rev(dir, MAIN);
    // killed after its commit point: the journal on main is left, published
    const killed = await runCli(['apply', '--json', '--repo', dir, '--ref', MAIN, addFile('killed.txt')], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const landed = rev(dir, MAIN);
    expect(parentOf(dir, landed)).toBe(base);
    expect(leftoverFiles(dir).some((f) => f.startsWith('patchtx/refs/journal-'))).toBe(true);
    // a run on other finishes it (the note) and goes ahead
    const r = await applyOn(dir, OTHER, addFile('other.txt'));
    const other = committed(r, 'the run on other');
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished', ref: MAIN, commit: landed });
    expect(noteOn(dir, landed)).toContain('*** Add File: killed.txt');
    expect(rev(dir, OTHER)).toBe(other);
    expectSound(dir);

    // while a run on other is held, alive, one on main is killed again; recover finishes that one
    const held = await holdApply(dir, OTHER, addFile('held.txt'));
    const again = await runCli(['apply', '--json', '--repo', dir, '--ref', MAIN, addFile('again.txt')], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(again.signal).toBe('SIGKILL');
    const landedAgain = rev(dir, MAIN);
    const rec = await runCli(['recover', '--json', '--repo', dir]);
    expect(rec.status, rec.stdout + rec.stderr).toBe(0);
    expect(JSON.parse(rec.stdout).recovered).toMatchObject({ outcome: 'finished', ref: MAIN, commit: landedAgain });
    expect(JSON.parse(rec.stdout).recovered.also).toBeUndefined();
    expect(noteOn(dir, landedAgain)).toContain('*** Add File: again.txt');
    held.release();
    const heldCommit = committed(await held.run, 'the held run on other');
    expect(parentOf(dir, heldCommit)).toBe(other);
    const nothing = await runCli(['recover', '--json', '--repo', dir]);
    expect(JSON.parse(nothing.stdout)).toEqual({ ok: true, recovered: null });
    expectSound(dir);
  });

  it('runs killed on two refs are both recovered by one recover', async () => {
    const dir = bareWithTwoBranches();
    const base = rev(dir, MAIN);
    // one held on main before its commit point, one on other killed after it, then the held one killed
    const held = await holdApply(dir, MAIN, addFile('a.txt'));
    const k = await runCli(['apply', '--json', '--repo', dir, '--ref', OTHER, addFile('b.txt')], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(k.signal).toBe('SIGKILL');
    const journals = readdirSync(path.join(dir, 'patchtx', 'refs')).filter((n) => n.startsWith('journal-'));
    expect(journals).toHaveLength(2);
    const mainJournal = JSON.parse(readFileSync(path.join(dir, 'patchtx', 'refs', `journal-${MAIN.replace(/\//g, '%2F')}.json`), 'utf8'));
    process.kill(mainJournal.pid, 'SIGKILL');
    expect((await held.run).signal).toBe('SIGKILL');
    const rec = await runCli(['recover', '--repo', dir]);
    expect(rec.status, rec.stderr).toBe(0);
    expect(rec.stdout).toContain(`interrupted apply on ${MAIN}: it had not landed and was dropped`);
    expect(rec.stdout).toContain(`interrupted apply on ${OTHER}: finished ${rev(dir, OTHER)}`);
    expect(rev(dir, MAIN)).toBe(base);
    expect(parentOf(dir, rev(dir, OTHER))).toBe(base);
    expect(noteOn(dir, rev(dir, OTHER))).toContain('b.txt');
    expectSound(dir);
  });

  it('a journal left where the previous version kept it (one per repository) is still recovered', async () => {
    const dir = bareWithTwoBranches();
    const killed = await runCli(['apply', '--json', '--repo', dir, '--ref', MAIN, addFile('old.txt')], { env: { PATCHTX_TEST_CRASH_AT: 'after-ref' } });
    expect(killed.signal).toBe('SIGKILL');
    const landed = rev(dir, MAIN);
    // what that version left: patchtx/journal.json without perRef, its lock witnesses beside it
    const refsDir = path.join(dir, 'patchtx', 'refs');
    for (const name of readdirSync(refsDir)) {
      if (name.startsWith('journal-')) {
        const journal = JSON.parse(readFileSync(path.join(refsDir, name), 'utf8'));
        expect(journal.perRef).toBe(true);
        delete journal.perRef;
        writeFileSync(path.join(dir, 'patchtx', 'journal.json'), JSON.stringify(journal, null, 2));
        renameSync(path.join(refsDir, name), path.join(tempDir(), name));
      } else renameSync(path.join(refsDir, name), path.join(dir, 'patchtx', name));
    }
    const r = await applyOn(dir, OTHER, addFile('new.txt'));
    committed(r, 'the run on other');
    expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'finished', ref: MAIN, commit: landed });
    expect(noteOn(dir, landed)).toContain('*** Add File: old.txt');
    expectSound(dir);
  });
});
