// applyResponseItems (patchtx/openai): the apply_patch_call items of a Responses output list
// applied to a real repository, answered by one apply_patch_call_output per call, in order. By
// default one commit for all, or nothing; with commit: 'call', a commit per call. Checked with git.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository, PatchtxError } from '../../src/index.js';
import { applyResponseItems } from '../../src/openai/index.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { rejection } from '../helpers/rejection.js';
import { cleanupScratch, isolateGitEnv, patchFile } from '../helpers/scratch.js';
import { patchtxJson } from '../helpers/cli.js';
import { expectFsckClean, expectNoLeftovers, expectUntouched, snapshot } from '../helpers/snapshot.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

const call = (call_id: string, operation: Record<string, unknown>) => ({ type: 'apply_patch_call', call_id, status: 'completed', operation });
const RENAME_ADD = {
  type: 'update_file',
  path: 'src/math.js',
  move_to: 'src/arith.js',
  diff: '@@\n export function add(a, b) {\n-  return a + b;\n+  return b + a;\n',
};
const NOTES_DELETE = { type: 'delete_file', path: 'docs/notes.txt' };
const README_EDIT = { type: 'update_file', path: 'README.md', diff: '@@\n-# Sample\n+# Sample, edited\n' };
const NO_SUCH_LINE = { type: 'update_file', path: 'README.md', diff: '@@\n # Sample\n-this line is not there\n+nor this one\n' };
const callIds = (dir: string, commit = 'HEAD'): string[] =>
  git(dir, 'log', '-1', '--format=%(trailers:key=Call-Id,valueonly)', commit)
    .split('\n')
    .filter((l) => l !== '');

describe('applyResponseItems: one commit for the calls of a response', () => {
  it('a move, a delete and an edit, between other items, are one commit whose trailers name the calls; undo knows it', async () => {
    const dir = makeRepo('basic');
    const before = rev(dir);
    const count = commitCount(dir);
    const repo = await openRepository({ dir });
    const items = [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      call('call_move', RENAME_ADD),
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'and now' }] },
      call('call_delete', NOTES_DELETE),
      call('call_edit', README_EDIT),
    ];
    const outputs = await applyResponseItems(repo, items);
    const commit = rev(dir);
    expect(outputs).toEqual([
      {
        type: 'apply_patch_call_output',
        call_id: 'call_move',
        status: 'completed',
        output: `Updated src/math.js and moved it to src/arith.js (commit ${commit.slice(0, 12)})`,
      },
      { type: 'apply_patch_call_output', call_id: 'call_delete', status: 'completed', output: `Deleted docs/notes.txt (commit ${commit.slice(0, 12)})` },
      { type: 'apply_patch_call_output', call_id: 'call_edit', status: 'completed', output: `Updated README.md (commit ${commit.slice(0, 12)})` },
    ]);
    expect(commitCount(dir)).toBe(count + 1);
    expect(rev(dir, 'HEAD~1')).toBe(before);
    expect(callIds(dir)).toEqual(['call_move', 'call_delete', 'call_edit']);
    expect(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'diff', '--name-status', '-M', 'HEAD~1', 'HEAD')).toMatch(/^M\tREADME\.md\nD\tdocs\/notes\.txt\nR\d+\tsrc\/math\.js\tsrc\/arith\.js\n$/);
    expect(readFileSync(path.join(dir, 'src/arith.js'), 'utf8')).toBe('export function add(a, b) {\n  return b + a;\n}\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
    expectNoLeftovers(dir);
    // a patchtx commit like any other: undo takes it back whole
    const undone = await repo.undo();
    expect(undone).toMatchObject({ action: 'reset', target: commit });
    expect(rev(dir)).toBe(before);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a failed call in the middle: nothing is written; it gets its error, the others say why they were not applied', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const outputs = await applyResponseItems(repo, [call('call_1', RENAME_ADD), call('call_2', NO_SUCH_LINE), call('call_3', NOTES_DELETE)]);
    expect(outputs.map((o) => [o.call_id, o.status])).toEqual([
      ['call_1', 'failed'],
      ['call_2', 'failed'],
      ['call_3', 'failed'],
    ]);
    expect(outputs[0]!.output).toBe('Not applied: call call_2 of the same response failed, and its calls are applied together or not at all.');
    expect(outputs[2]!.output).toBe(
      'Not applied: call call_2 of the same response failed, and its calls are applied together or not at all (this call was not tried).',
    );
    // the precise error, in the lines of the call's own diff
    expect(outputs[1]!.output).toMatch(/^Failed to find expected lines in README\.md:\n# Sample\nthis line is not there\n/);
    expect(outputs[1]!.output).toContain('line 1 of the diff');
    expect(outputs[1]!.output).not.toContain('patch line');
    expectUntouched(dir, before);
  });

  it("an update_file diff with a '*** Delete File:' line is refused, and the other file stays", async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const sneaky = { type: 'update_file', path: 'README.md', diff: '@@\n-# Sample\n+# Sample!\n*** Delete File: src/math.js\n' };
    const outputs = await applyResponseItems(repo, [call('call_sneaky', sneaky)]);
    expect(outputs).toEqual([
      {
        type: 'apply_patch_call_output',
        call_id: 'call_sneaky',
        status: 'failed',
        output:
          "apply_patch_call call_sneaky: line 4 of its diff is '*** Delete File: src/math.js'; an update_file diff is the body of one file's section, without patch or file headers",
      },
    ]);
    // and the other envelope lines, and a path that would end its header line
    for (const [op, expected] of [
      [
        { type: 'create_file', path: 'x.txt', diff: '+x\n*** End Patch\n*** Begin Patch\n*** Delete File: README.md\n' },
        /line 2 of its diff is '\*\*\* End Patch'/,
      ],
      [
        { type: 'update_file', path: 'README.md', diff: '*** Move to: elsewhere.md\n@@\n-# Sample\n+# S\n' },
        /line 1 of its diff is '\*\*\* Move to: elsewhere\.md'/,
      ],
      [{ type: 'update_file', path: 'README.md', diff: '@@\n-# Sample\n+# S\n  *** Add File: evil.sh\n' }, /line 4 of its diff is '\*\*\* Add File: evil\.sh'/],
      [{ type: 'create_file', path: 'a.txt\n*** Delete File: README.md', diff: '+x\n' }, /has a line break in it/],
      [{ type: 'create_file', path: '../outside.txt', diff: '+x\n' }, /^Invalid operation: path '\.\.\/outside\.txt' is rejected/],
      [{ type: 'create_file', path: 'x.txt', diff: '+x\nnot an added line\n' }, /^Invalid diff, line 2: /],
    ] as const) {
      const [out] = await applyResponseItems(repo, [call('call_x', op)]);
      expect(out!.status).toBe('failed');
      expect(out!.output).toMatch(expected);
    }
    expectUntouched(dir, before);
  });

  it("a CRLF file keeps its CRLF endings, the new lines' too", async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const edit = { type: 'update_file', path: 'docs/crlf.txt', diff: '@@\n line one\n-line two\n+line 2\n+line 2b\n' };
    const [out] = await applyResponseItems(repo, [call('call_crlf', edit)]);
    expect(out!.status).toBe('completed');
    expect(git(dir, 'cat-file', 'blob', 'HEAD:docs/crlf.txt')).toBe('line one\r\nline 2\r\nline 2b\r\nline three\r\n');
    expect(readFileSync(path.join(dir, 'docs/crlf.txt'), 'utf8')).toBe('line one\r\nline 2\r\nline 2b\r\nline three\r\n');
  });

  it("a call's warnings come with its output, in the lines of its diff", async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const outputs = await applyResponseItems(repo, [
      call('call_add', { type: 'create_file', path: 'twice.txt', diff: '+same\n+other\n+same\n' }),
      call('call_edit', { type: 'update_file', path: 'twice.txt', move_to: 'once.txt', diff: '@@\n-same\n+changed\n' }),
    ]);
    const commit = rev(dir).slice(0, 12);
    expect(outputs[0]!.output).toBe(`Created twice.txt (commit ${commit})`);
    expect(outputs[1]!.output).toBe(
      `Updated twice.txt and moved it to once.txt (commit ${commit})\n` +
        'Warning: twice.txt: chunk 1 (line 1 of the diff) is ambiguous: its lines match at line 1 and also at line 3; the first match was used',
    );
    expect(git(dir, 'show', 'HEAD:once.txt')).toBe('changed\nother\nsame');
  });

  it('patchtx replay of the log (the items and their outputs) passes over the calls: their Call-Id trailers are on the branch', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const items = [call('call_move', RENAME_ADD), call('call_edit', README_EDIT)];
    const outputs = await applyResponseItems(repo, items);
    const tip = rev(dir);
    const log = patchFile([...items, ...outputs].map((i) => JSON.stringify(i)).join('\n') + '\n');
    const r = await patchtxJson('replay', '--repo', dir, log);
    expect(r.code, r.err).toBe(0);
    expect(r.lines.filter((l) => l.reason !== undefined).map((l) => [l.callId, l.status, l.reason])).toEqual([
      ['call_move', 'skipped', 'already_replayed'],
      ['call_edit', 'skipped', 'already_replayed'],
    ]);
    expect(rev(dir)).toBe(tip);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('the same response sent again writes nothing and says it was applied', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const items = [call('call_1', README_EDIT)];
    expect((await applyResponseItems(repo, items))[0]!.status).toBe('completed');
    const first = rev(dir);
    const [again] = await applyResponseItems(repo, items);
    expect(again).toEqual({
      type: 'apply_patch_call_output',
      call_id: 'call_1',
      status: 'completed',
      output: `Updated README.md (already applied: commit ${first.slice(0, 12)})`,
    });
    expect(rev(dir)).toBe(first);
  });

  it('a response of several calls on one file (a move, then an edit of the moved file) sent again writes nothing', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const items = [
      call('call_move', RENAME_ADD),
      call('call_edit', { type: 'update_file', path: 'src/arith.js', diff: '@@\n-  return b + a;\n+  return (b + a);\n' }),
    ];
    const outputs = await applyResponseItems(repo, items);
    expect(outputs.map((o) => o.status)).toEqual(['completed', 'completed']);
    const first = rev(dir);
    const count = commitCount(dir);
    const before = snapshot(dir);
    const again = await applyResponseItems(repo, items);
    expect(again).toEqual([
      {
        type: 'apply_patch_call_output',
        call_id: 'call_move',
        status: 'completed',
        output: `Updated src/math.js and moved it to src/arith.js (already applied: commit ${first.slice(0, 12)})`,
      },
      {
        type: 'apply_patch_call_output',
        call_id: 'call_edit',
        status: 'completed',
        output: `Updated src/arith.js (already applied: commit ${first.slice(0, 12)})`,
      },
    ]);
    expect(commitCount(dir)).toBe(count);
    expectUntouched(dir, before);
  });

  it('a response that creates a file and edits it, sent again, says it was applied without warnings about its own result', async () => {
    const dir = makeRepo('basic');
    const repo = await openRepository({ dir });
    const items = [
      call('call_create', { type: 'create_file', path: 'docs/new.txt', diff: '+one\n' }),
      call('call_edit', { type: 'update_file', path: 'docs/new.txt', diff: '@@\n-one\n+two\n' }),
    ];
    expect((await applyResponseItems(repo, items)).map((o) => o.output.split('\n').length)).toEqual([1, 1]);
    const first = rev(dir);
    const again = await applyResponseItems(repo, items);
    expect(again.map((o) => o.output)).toEqual([
      `Created docs/new.txt (already applied: commit ${first.slice(0, 12)})`,
      `Updated docs/new.txt (already applied: commit ${first.slice(0, 12)})`,
    ]);
    expect(rev(dir)).toBe(first);
  });

  it('a malformed operation is a failed call; a wrong option or argument is thrown as usage', async () => {
    const dir = makeRepo('basic');
    const before = snapshot(dir);
    const repo = await openRepository({ dir });
    const [out] = await applyResponseItems(repo, [call('call_bad', { type: 'rename_file', path: 'a' })]);
    expect(out).toMatchObject({ call_id: 'call_bad', status: 'failed' });
    expect(out!.output).toContain('the operation must be {type: create_file|update_file|delete_file, path, diff}');
    const e = await rejection(applyResponseItems(repo, [call('call_1', README_EDIT)], { comit: 'call' } as never));
    expect([e.kind, e.message]).toEqual(['usage', expect.stringContaining('options.comit is not an option')]);
    const e2 = await rejection(applyResponseItems(repo, [{ type: 'apply_patch_call', operation: README_EDIT }]));
    expect([e2.kind, e2.message]).toEqual(['usage', 'applyResponseItems: item 1 is an apply_patch_call without a call_id']);
    expect(e2).toBeInstanceOf(PatchtxError);
    expect(await applyResponseItems(repo, [{ type: 'message', role: 'assistant', content: [] }])).toEqual([]);
    expectUntouched(dir, before);
  });
});

describe("applyResponseItems with commit: 'call'", () => {
  it('each call is its own commit naming it; a failed call is in none and does not stop the next', async () => {
    const dir = makeRepo('basic');
    const count = commitCount(dir);
    const repo = await openRepository({ dir });
    const outputs = await applyResponseItems(repo, [call('call_1', RENAME_ADD), call('call_2', NO_SUCH_LINE), call('call_3', NOTES_DELETE)], {
      commit: 'call',
      trailers: ['Agent-Run=7'],
    });
    expect(outputs.map((o) => [o.call_id, o.status])).toEqual([
      ['call_1', 'completed'],
      ['call_2', 'failed'],
      ['call_3', 'completed'],
    ]);
    expect(commitCount(dir)).toBe(count + 2);
    expect(callIds(dir, 'HEAD')).toEqual(['call_3']);
    expect(callIds(dir, 'HEAD~1')).toEqual(['call_1']);
    expect(outputs[0]!.output).toBe(`Updated src/math.js and moved it to src/arith.js (commit ${rev(dir, 'HEAD~1').slice(0, 12)})`);
    expect(outputs[2]!.output).toBe(`Deleted docs/notes.txt (commit ${rev(dir).slice(0, 12)})`);
    expect(git(dir, 'log', '-2', '--format=%(trailers:key=Agent-Run,valueonly)').split('\n').filter(Boolean)).toEqual(['7', '7']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
