// The MCP `edit` tool as a client sees it: the SDK's client spawns the built `patchtx mcp` in a real
// repository; a list of operations lands as one commit, a failing one is an isError result naming
// the operation's index with nothing written, and a unified diff goes through apply_patch.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli } from '../helpers/cli.js';
import { callTool, closeMcpClients, connectMcp, textOf } from '../helpers/mcp.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { expectFsckClean, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => requireBuiltCli());
afterEach(closeMcpClients);
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
});

describe('patchtx mcp: edit', () => {
  it('applies operations as one commit; a failing one is an isError result naming its index, with nothing written', async () => {
    const dir = makeRepo('basic');
    const count = commitCount(dir);
    const client = await connectMcp(dir);
    const { tools } = await client.listTools();
    const edit = tools.find((t) => t.name === 'edit')!;
    expect(edit.inputSchema.required).toEqual(['operations']);

    const ok = await callTool(client, 'edit', {
      operations: [
        { op: 'str_replace', path: 'README.md', old: '# Sample', new: '# Sample, edited' },
        { op: 'create', path: 'docs/b.txt', content: 'b\n' },
        { op: 'move', from: 'docs/b.txt', to: 'docs/c.txt' },
      ],
      message: 'Edit by tool',
    });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent.ok).toBe(true);
    expect(ok.structuredContent.commit).toBe(rev(dir));
    expect(commitCount(dir)).toBe(count + 1);
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('Edit by tool\n');
    expect(git(dir, 'diff', '--name-status', 'HEAD~1', 'HEAD')).toBe('M\tREADME.md\nA\tdocs/c.txt\n');

    const before = snapshot(dir);
    const bad = await callTool(client, 'edit', {
      operations: [
        { op: 'delete', path: 'docs/c.txt' },
        { op: 'insert', path: 'README.md', line: 0, text: 'top' },
        { op: 'str_replace', path: 'src/math.js', old: 'not in the file', new: 'x' },
      ],
    });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({ kind: 'context_not_found', path: 'src/math.js', operation: 2 });
    expect(textOf(bad)).toMatch(/^error: operations\[2\] \(str_replace\): Failed to find the old text in src\/math\.js/);
    // the dry run writes nothing either
    const checked = await callTool(client, 'edit', { operations: [{ op: 'delete', path: 'docs/c.txt' }], check: true });
    expect(checked.structuredContent.wouldCommit).toMatch(/^[0-9a-f]{40}$/);
    expectUntouched(dir, before);
  });

  it('apply_patch takes a unified diff as git diff prints it', async () => {
    const dir = makeRepo('basic');
    writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nA changed repository.\n');
    const diff = git(dir, 'diff');
    git(dir, 'checkout', '--', 'README.md');
    const client = await connectMcp(dir);
    const r = await callTool(client, 'apply_patch', { patch: diff });
    expect(r.isError).toBeFalsy();
    expect(git(dir, 'show', 'HEAD:README.md')).toBe('# Sample\n\nA changed repository.\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
