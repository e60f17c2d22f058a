// The editor of patchtx/openai under the real OpenAI Agents SDK, with no network: a Runner drives
// an agent whose model is scripted (a Model that returns prepared responses of apply_patch_call
// items, turn after turn) and whose apply-patch tool is the SDK's own, backed by createEditor in a
// real repository. Each turn becomes one commit naming its calls; the built CLI's undo walks back
// turn by turn to the tree the run started from.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, applyPatchTool, Runner, Usage, type AgentInputItem, type Editor, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { createEditor } from '../../src/openai/index.js';
import { cleanupBuiltCli, requireBuiltCli, runBin } from '../helpers/cli.js';
import { cleanupRepos, commitCount, git, makeRepo, rev } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';
import { expectFsckClean, expectNoLeftovers } from '../helpers/snapshot.js';

beforeAll(() => {
  isolateGitEnv();
  requireBuiltCli();
});
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
  cleanupBuiltCli();
});

type Operation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string; moveTo?: string }
  | { type: 'delete_file'; path: string };

const call = (callId: string, operation: Operation) => ({ type: 'apply_patch_call' as const, callId, status: 'completed' as const, operation });
const say = (text: string) => ({
  type: 'message' as const,
  role: 'assistant' as const,
  status: 'completed' as const,
  content: [{ type: 'output_text' as const, text }],
});

/** A Model that answers each request with the next prepared response, and keeps what it was asked. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly turns: ModelResponse['output'][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.turns[this.requests.length - 1];
    if (output === undefined) throw new Error(`the script has no turn ${this.requests.length}`);
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

/** The apply_patch_call_output items a request carried, by call id. */
function outputsIn(request: ModelRequest): Record<string, { status: string; output?: string }> {
  const items = (typeof request.input === 'string' ? [] : request.input) as AgentInputItem[];
  const out: Record<string, { status: string; output?: string }> = {};
  for (const item of items) {
    if (item.type === 'apply_patch_call_output') out[item.callId] = { status: item.status, output: item.output };
  }
  return out;
}

const trailersOf = (dir: string, commit: string, key: string): string[] =>
  git(dir, 'log', '-1', `--format=%(trailers:key=${key},valueonly)`, commit)
    .split('\n')
    .filter((l) => l !== '');

describe('createEditor under an Agents SDK Runner', () => {
  it('a scripted run of three editing turns is three commits naming their calls; undo walks back turn by turn', async () => {
    const dir = makeRepo('basic');
    const start = rev(dir);
    const startTree = rev(dir, 'HEAD^{tree}');
    const count = commitCount(dir);
    const model = new ScriptedModel([
      [
        call('call_plan', { type: 'create_file', path: 'notes/plan.md', diff: '+# Plan\n+step one\n' }),
        call('call_math', { type: 'update_file', path: 'src/math.js', diff: '@@\n export function add(a, b) {\n-  return a + b;\n+  return b + a;\n' }),
      ],
      [
        call('call_plan2', { type: 'update_file', path: 'notes/plan.md', diff: '@@\n # Plan\n step one\n+step two\n' }),
        call('call_move', {
          type: 'update_file',
          path: 'src/util/name.js',
          moveTo: 'src/util/label.js',
          diff: '@@\n-export const name = "util";\n+export const label = "util";\n',
        }),
        call('call_delete', { type: 'delete_file', path: 'docs/notes.txt' }),
      ],
      [
        call('call_wrong', { type: 'update_file', path: 'README.md', diff: '@@\n-# No such heading\n+# Renamed\n' }),
        call('call_readme', { type: 'update_file', path: 'README.md', diff: '@@\n-# Sample\n+# Sample, edited by the agent\n' }),
        call('call_sneaky', { type: 'update_file', path: 'README.md', diff: '@@\n-# Sample\n*** Delete File: src/math.js\n' }),
      ],
      [say('Done: the plan is written.')],
    ]);
    const repo = await openRepository({ dir });
    const editor = createEditor(repo);
    // the SDK's own type: the editor is what its applyPatchTool takes
    const sdkEditor: Editor = editor;
    const agent = new Agent({ name: 'coder', instructions: 'Edit the repository.', model, tools: [applyPatchTool({ editor: sdkEditor })] });
    const runner = new Runner({ tracingDisabled: true, callModelInputFilter: editor.callModelInputFilter });
    const stop = editor.watch(runner);
    const result = await runner.run(agent, 'Write the plan.');
    stop();
    expect(await editor.flush()).toBeNull(); // the last turn with calls was flushed before the final model call

    expect(result.finalOutput).toBe('Done: the plan is written.');
    expect(model.requests).toHaveLength(4);
    // what the model was told about each call
    expect(outputsIn(model.requests[1]!)).toEqual({
      call_plan: { status: 'completed', output: 'Created notes/plan.md' },
      call_math: { status: 'completed', output: 'Updated src/math.js' },
    });
    expect(outputsIn(model.requests[2]!)).toMatchObject({
      call_plan2: { status: 'completed', output: 'Updated notes/plan.md' },
      call_move: { status: 'completed', output: 'Updated src/util/name.js and moved it to src/util/label.js' },
      call_delete: { status: 'completed', output: 'Deleted docs/notes.txt' },
    });
    const third = outputsIn(model.requests[3]!);
    expect(third.call_readme).toEqual({ status: 'completed', output: 'Updated README.md' });
    expect(third.call_wrong!.status).toBe('failed');
    expect(third.call_wrong!.output).toMatch(/^Failed to find expected lines in README\.md:\n# No such heading\n/);
    expect(third.call_wrong!.output).toContain('line 1 of the diff');
    expect(third.call_sneaky).toEqual({
      status: 'failed',
      output:
        "apply_patch_call call_sneaky: line 3 of its diff is '*** Delete File: src/math.js'; an update_file diff is the body of one file's section, without patch or file headers",
    });

    // one commit per turn, each naming the calls it holds (a failed call is in none)
    expect(commitCount(dir)).toBe(count + 3);
    const [turn3, turn2, turn1] = [rev(dir), rev(dir, 'HEAD~1'), rev(dir, 'HEAD~2')];
    expect(rev(dir, 'HEAD~3')).toBe(start);
    expect(trailersOf(dir, turn1, 'Call-Id')).toEqual(['call_plan', 'call_math']);
    expect(trailersOf(dir, turn2, 'Call-Id')).toEqual(['call_plan2', 'call_move', 'call_delete']);
    expect(trailersOf(dir, turn3, 'Call-Id')).toEqual(['call_readme']);
    for (const c of [turn1, turn2, turn3]) expect(trailersOf(dir, c, 'Patch-Id')).toHaveLength(1);
    expect(git(dir, 'diff', '--name-status', '-M', start, turn1)).toBe('A\tnotes/plan.md\nM\tsrc/math.js\n');
    // (a one-line file whose line changed: git sees no rename in it)
    expect(git(dir, 'diff', '--name-status', '--no-renames', turn1, turn2)).toBe(
      'D\tdocs/notes.txt\nM\tnotes/plan.md\nA\tsrc/util/label.js\nD\tsrc/util/name.js\n',
    );
    expect(git(dir, 'show', `${turn2}:src/util/label.js`)).toBe('export const label = "util";\n');
    expect(git(dir, 'diff', '--name-status', turn2, turn3)).toBe('M\tREADME.md\n');
    // the Agents SDK's rules: a created file's last line has no newline, and an update keeps it so
    expect(git(dir, 'show', `${turn1}:notes/plan.md`)).toBe('# Plan\nstep one');
    expect(readFileSync(path.join(dir, 'notes/plan.md'), 'utf8')).toBe('# Plan\nstep one\nstep two');
    expect(git(dir, 'show', 'HEAD:src/math.js')).toBe('export function add(a, b) {\n  return b + a;\n}\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
    expectNoLeftovers(dir);

    // patchtx undo (the built CLI) takes the turns back one at a time
    for (const [back, expected] of [
      [turn3, turn2],
      [turn2, turn1],
      [turn1, start],
    ] as const) {
      const undo = runBin('patchtx', ['undo', '--json'], { cwd: dir });
      expect(undo.code, undo.err).toBe(0);
      expect(JSON.parse(undo.out)).toMatchObject({ action: 'reset', target: back });
      expect(rev(dir)).toBe(expected);
      expect(git(dir, 'status', '--porcelain')).toBe('');
    }
    expect(rev(dir, 'HEAD^{tree}')).toBe(startTree);
    expectFsckClean(dir);
  });

  it("commit: 'call' under a Runner, the call ids learnt from the Agent's events: a commit per call, in the order of the calls", async () => {
    const dir = makeRepo('basic');
    const start = rev(dir);
    const count = commitCount(dir);
    const model = new ScriptedModel([
      [call('call_a', { type: 'create_file', path: 'a.txt', diff: '+a\n' }), call('call_b', { type: 'update_file', path: 'a.txt', diff: '@@\n-a\n+b\n' })],
      [call('call_c', { type: 'delete_file', path: 'a.txt' })],
      [say('Done.')],
    ]);
    const editor = createEditor(await openRepository({ dir }), { commit: 'call' });
    const agent = new Agent({ name: 'coder', model, tools: [applyPatchTool({ editor })] });
    const stop = editor.watch(agent);
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'Go.');
    stop();
    expect(result.finalOutput).toBe('Done.');
    expect(commitCount(dir)).toBe(count + 3);
    expect([rev(dir, 'HEAD'), rev(dir, 'HEAD~1'), rev(dir, 'HEAD~2')].map((c) => trailersOf(dir, c, 'Call-Id'))).toEqual([['call_c'], ['call_b'], ['call_a']]);
    expect(git(dir, 'show', 'HEAD~1:a.txt')).toBe('b');
    expect(outputsIn(model.requests[1]!).call_b).toEqual({ status: 'completed', output: `Updated a.txt (commit ${rev(dir, 'HEAD~1').slice(0, 12)})` });
    expect(rev(dir, 'HEAD~3')).toBe(start);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expectFsckClean(dir);
  });
});
