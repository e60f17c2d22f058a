// `patchtx mcp` as an MCP client sees it: the SDK's own client spawns the built program over
// stdio in a real repository, lists the tools, applies, fails, undoes, and sees commits made with
// git between calls; the repository is checked with git itself after each step.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli } from '../helpers/cli.js';
import { callTool, closeMcpClients, connectMcp, textOf } from '../helpers/mcp.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';
import { v4a } from '../helpers/scratch.js';

/** A checkout with notes.txt committed by git. */
function repoWithNotes(): string {
  const dir = makeRepo('basic');
  writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
  git(dir, 'add', 'notes.txt');
  git(dir, 'commit', '-q', '-m', 'Add notes');
  return dir;
}

beforeAll(() => requireBuiltCli());
afterEach(closeMcpClients);
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
});

describe('patchtx mcp', () => {
  it('lists the seven tools with their schemas, and annotates the read-only ones', async () => {
    const client = await connectMcp(repoWithNotes());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['apply_patch', 'check', 'edit', 'log', 'redo', 'show', 'undo']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.apply_patch.inputSchema.required).toEqual(['patch']);
    for (const t of tools) {
      expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['repository', 'ref']));
      expect(t.outputSchema?.properties).toHaveProperty('ok');
      expect(t.outputSchema?.properties).toHaveProperty('error');
    }
    for (const name of ['check', 'log', 'show']) expect(byName[name].annotations?.readOnlyHint).toBe(true);
    for (const name of ['apply_patch', 'edit', 'undo', 'redo']) expect(byName[name].annotations?.readOnlyHint).toBe(false);
  });

  it('apply_patch lands one commit, with or without the envelope lines', async () => {
    const dir = repoWithNotes();
    const before = rev(dir);
    const client = await connectMcp(dir);
    const r = await callTool(client, 'apply_patch', { patch: '*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.ok).toBe(true);
    expect(r.structuredContent.commit).toBe(rev(dir));
    expect(r.structuredContent.files).toEqual([{ path: 'notes.txt', op: 'M', from: null }]);
    expect(r.structuredContent.warnings).toEqual([]);
    expect(textOf(r)).toContain('M notes.txt');
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(git(dir, 'show', 'HEAD:notes.txt')).toBe('one\nTWO\nthree\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);

    const full = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: more.txt', '+more') });
    expect(full.structuredContent.files).toEqual([{ path: 'more.txt', op: 'A', from: null }]);
    expect(commitCount(dir)).toBe(commitCount(dir, before) + 2);
  });

  it('a patch whose context is not there is an error result of kind context_not_found, and nothing is written', async () => {
    const dir = repoWithNotes();
    const before = snapshot(dir);
    const client = await connectMcp(dir);
    const r = await callTool(client, 'apply_patch', { patch: v4a('*** Update File: notes.txt', '@@', ' one', '-zwei', '+TWO') });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.ok).toBe(false);
    expect(r.structuredContent.error).toMatchObject({ kind: 'context_not_found', path: 'notes.txt' });
    expect(textOf(r)).toBe(`error: ${r.structuredContent.error.message}`);
    expect(textOf(r)).toContain('notes.txt');
    expect(textOf(r)).not.toMatch(/--\w/);
    expectUntouched(dir, before);
    // check says the same, and writes nothing either
    const checked = await callTool(client, 'check', { patch: v4a('*** Update File: notes.txt', '@@', ' one', '-zwei', '+TWO') });
    expect(checked.structuredContent.error.kind).toBe('context_not_found');
    expectUntouched(dir, before);
  });

  it('undo walks the transactions back one by one, and redo brings the last one again', async () => {
    const dir = repoWithNotes();
    const start = rev(dir);
    const client = await connectMcp(dir);
    const first = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: a.txt', '+a') });
    const second = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: b.txt', '+b') });
    const log = await callTool(client, 'log');
    expect(log.structuredContent.entries.map((e: any) => e.commit)).toEqual([second.structuredContent.commit, first.structuredContent.commit]);
    const shown = await callTool(client, 'show', { commit: first.structuredContent.commit });
    expect(shown.structuredContent.patch).toContain('*** Add File: a.txt');

    const u1 = await callTool(client, 'undo');
    expect(u1.structuredContent).toMatchObject({ ok: true, action: 'reset', target: second.structuredContent.commit, commit: first.structuredContent.commit });
    expect(rev(dir)).toBe(first.structuredContent.commit);
    const u2 = await callTool(client, 'undo');
    expect(u2.structuredContent.target).toBe(first.structuredContent.commit);
    expect(rev(dir)).toBe(start);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const nothing = await callTool(client, 'undo');
    expect(nothing.isError).toBe(true);
    expect(nothing.structuredContent.error.kind).toBeTypeOf('string');
    const redone = await callTool(client, 'redo');
    expect(redone.structuredContent.commit).toBe(first.structuredContent.commit);
    expect(rev(dir)).toBe(first.structuredContent.commit);
    expectFsckClean(dir);
  });

  it('sees a commit made with git between two calls: the next apply builds on it', async () => {
    const dir = repoWithNotes();
    const client = await connectMcp(dir);
    await callTool(client, 'apply_patch', { patch: v4a('*** Update File: notes.txt', '@@', '-one', '+ONE') });
    writeFileSync(path.join(dir, 'notes.txt'), 'ONE\ntwo\nthree\nfour\n');
    git(dir, 'commit', '-q', '-am', 'Add four by hand');
    const byHand = rev(dir);
    const r = await callTool(client, 'apply_patch', { patch: v4a('*** Update File: notes.txt', '@@', ' three', '-four', '+FOUR') });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.parent).toBe(byHand);
    expect(rev(dir, 'HEAD~1')).toBe(byHand);
    expect(git(dir, 'show', 'HEAD:notes.txt')).toBe('ONE\ntwo\nthree\nFOUR\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a patch over the patch-bytes limit is a limit_exceeded result naming the limit, and the server goes on', async () => {
    const dir = repoWithNotes();
    const before = snapshot(dir);
    const client = await connectMcp(dir, { PATCHTX_LIMITS: 'patch-bytes=1K' });
    const big = v4a('*** Add File: big.txt', ...Array.from({ length: 200 }, (_, i) => `+line ${i}`));
    const r = await callTool(client, 'apply_patch', { patch: big });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ kind: 'limit_exceeded', limit: 'patch-bytes' });
    expect(textOf(r)).toMatch(/larger than 1 KiB/);
    expect(textOf(r)).toContain('PATCHTX_LIMITS');
    expect(textOf(r)).not.toMatch(/--\w/);
    expectUntouched(dir, before);
    const small = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: small.txt', '+small') });
    expect(small.isError).toBeFalsy();
  });

  it('two applies sent at once to one repository both land, one after the other', async () => {
    const dir = repoWithNotes();
    const start = rev(dir);
    const client = await connectMcp(dir);
    const [a, b] = await Promise.all([
      callTool(client, 'apply_patch', { patch: v4a('*** Add File: a.txt', '+a') }),
      callTool(client, 'apply_patch', { patch: v4a('*** Add File: b.txt', '+b') }),
    ]);
    expect([a.isError, b.isError]).toEqual([undefined, undefined]);
    expect(commitCount(dir)).toBe(commitCount(dir, start) + 2);
    expect(git(dir, 'ls-files', 'a.txt', 'b.txt').split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'b.txt']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });

  it('a refusal names the tool argument that gets past it', async () => {
    const dir = repoWithNotes();
    writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\nedited\n');
    const client = await connectMcp(dir);
    const patch = v4a('*** Update File: notes.txt', '@@', '-one', '+ONE');
    const r = await callTool(client, 'apply_patch', { patch });
    expect(r.structuredContent.error).toMatchObject({ kind: 'dirty', paths: ['notes.txt'] });
    expect(textOf(r)).toContain('dirty: "include"');
    const taken = await callTool(client, 'apply_patch', { patch, dirty: 'include' });
    expect(taken.isError).toBeFalsy();
    expect(git(dir, 'show', 'HEAD:notes.txt')).toBe('ONE\ntwo\nthree\nedited\n');
  });

  it('works in the repository of --repo, or of the call', async () => {
    const first = repoWithNotes();
    const second = repoWithNotes();
    const [firstStart, secondStart] = [rev(first), rev(second)];
    const client = await connectMcp(path.dirname(first), {}, ['--repo', first]);
    const r1 = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: one.txt', '+1') });
    const r2 = await callTool(client, 'apply_patch', { patch: v4a('*** Add File: two.txt', '+2'), repository: second });
    expect(rev(first)).toBe(r1.structuredContent.commit);
    expect(rev(second)).toBe(r2.structuredContent.commit);
    expect([rev(first, 'HEAD~1'), rev(second, 'HEAD~1')]).toEqual([firstStart, secondStart]);
    expect(git(first, 'ls-files', 'one.txt', 'two.txt')).toBe('one.txt\n');
    expect(git(second, 'ls-files', 'one.txt', 'two.txt')).toBe('two.txt\n');
  });

  it('a call with wrong arguments or outside a repository is an error result, and the server goes on', async () => {
    const dir = repoWithNotes();
    const client = await connectMcp(dir);
    const noPatch = await callTool(client, 'apply_patch', {});
    expect(noPatch.isError).toBe(true);
    expect(textOf(noPatch)).toMatch(/patch/);
    const elsewhere = await callTool(client, 'log', { repository: path.dirname(dir) });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.structuredContent.error.kind).toBe('not_a_repository');
    const log = await callTool(client, 'log');
    expect(log.isError).toBeFalsy();
    expect(log.structuredContent.entries).toEqual([]);
  });
});
