// Reading patch logs: the fixtures are small session files and item lists written here from the
// formats' descriptions (Codex's rollout records and patch events, the Responses API's
// apply_patch_call items), one of each shape a replay meets.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { patchesOfCodeMode } from '../../src/logs/code-mode.js';
import { detectLogFormat, readLog } from '../../src/logs/read-log.js';
import { patchOfOperation } from '../../src/logs/responses-items.js';
import { patchOfArgv, patchOfScript } from '../../src/logs/shell-invocation.js';
import { parsePatch, parsePatchInvocation } from '../../src/patch/parse.js';

const fixture = (name: string): string => readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', name), 'utf8');

describe('Codex session files', () => {
  const entries = readLog(fixture('rollout.jsonl'));

  it('finds every apply_patch call, in order, and nothing else', () => {
    expect(entries.map((e) => [e.callId, e.via])).toEqual([
      ['call-add', 'custom_tool_call apply_patch'],
      ['call-heredoc', 'function_call shell'],
      ['call-failed', 'function_call apply_patch'],
      ['call-exec', 'function_call exec_command'],
      ['call-local', 'local_shell_call'],
      ['call-code', 'exec tools.apply_patch'],
    ]);
    expect(entries.map((e) => e.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(entries.every((e) => e.format === 'codex-rollout' && e.session === 'sess-1')).toBe(true);
  });

  it('takes the outcome from patch_apply_end, and says when none was recorded', () => {
    expect(entries.map((e) => e.outcome)).toEqual(['success', 'success', 'failed', 'success', 'unknown', 'success']);
    expect(entries[2]!.output).toContain('Failed to find expected lines in a.txt');
    expect(entries[0]!.recorded).toEqual(new Map([['/home/dev/proj/a.txt', { type: 'add', content: 'hello\n' }]]));
    expect(entries[5]!.recorded?.get('/home/dev/proj/pkg/a.txt')).toEqual({ type: 'update', unifiedDiff: '', movePath: '/home/dev/proj/pkg/docs/a.txt' });
  });

  it('resolves the directory from the call, else the latest turn, else the session', () => {
    expect(entries.map((e) => e.cwd)).toEqual([
      '/home/dev/proj',
      '/home/dev/proj',
      '/home/dev/proj',
      '/home/dev/proj/pkg',
      '/home/dev/proj',
      '/home/dev/proj/pkg',
    ]);
  });

  it('keeps each patch as the call gave it: a heredoc keeps its cd, and every patch parses', () => {
    const heredoc = parsePatchInvocation(entries[1]!.patch);
    expect(heredoc.cwd).toBe('sub');
    expect(heredoc.patch.hunks.map((h) => [h.kind, h.path])).toEqual([['update', 'b.txt']]);
    // absolute paths are kept as written: mapping them into the repository is the replay's job
    const absolute = entries.filter((e) => /^\*\*\* Add File: \//m.test(e.patch)).map((e) => e.callId);
    expect(absolute).toEqual(['call-exec', 'call-local']);
    for (const e of entries) if (!absolute.includes(e.callId)) expect(() => parsePatchInvocation(e.patch)).not.toThrow();
    const moved = parsePatch(entries[5]!.patch).hunks[0]!;
    expect(moved.kind === 'update' && moved.moveTo).toBe('docs/a.txt');
  });

  it('reads an older session file: metadata on the first line, then bare items', () => {
    const old = readLog(fixture('rollout-legacy.jsonl'));
    expect(detectLogFormat(fixture('rollout-legacy.jsonl'))).toBe('codex-rollout');
    expect(old).toHaveLength(1);
    expect(old[0]).toMatchObject({ callId: 'old-1', session: 'sess-old', outcome: 'unknown', cwd: null });
  });

  it('names the line of a record that is not JSON', () => {
    const text = fixture('rollout.jsonl').split('\n');
    text.splice(3, 0, '{"type": "response_item", "payload": {');
    try {
      readLog(text.join('\n'), 'codex-rollout');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PatchtxError);
      expect((e as PatchtxError).kind).toBe('parse_error');
      expect((e as PatchtxError).data.line).toBe(4);
    }
  });
});

describe('shell commands that are, and are not, apply_patch', () => {
  const patch = '*** Begin Patch\n*** Add File: x\n+x\n*** End Patch';
  it('accepts argv and heredoc scripts, with or without cd', () => {
    expect(patchOfArgv(['apply_patch', patch])).toBe(patch);
    expect(patchOfArgv(['/usr/local/bin/applypatch', patch])).toBe(patch);
    expect(patchOfArgv(['bash', '-lc', `apply_patch <<'EOF'\n${patch}\nEOF`])).not.toBeNull();
    expect(patchOfScript(`cd "my dir" && apply_patch <<"PATCH"\n${patch}\nPATCH\n`)).not.toBeNull();
  });
  it('refuses commands that only contain an apply_patch', () => {
    expect(patchOfScript(`echo x; apply_patch <<'EOF'\n${patch}\nEOF`)).toBeNull();
    expect(patchOfScript(`cat p | apply_patch`)).toBeNull();
    expect(patchOfScript(`apply_patch <<'EOF'\n${patch}\nEOF\nrm -rf build`)).toBeNull();
    expect(patchOfArgv(['bash', '-lc', 'ls'])).toBeNull();
    expect(patchOfArgv(['apply_patch'])).toBeNull();
    expect(patchOfArgv(['python', '-c', patch])).toBeNull();
  });
});

describe('code mode', () => {
  it('reads double-, single-quoted and template literals, and skips what is not a literal', () => {
    const src = [
      'await tools.apply_patch("a\\nb\\u00e9\\x41");',
      "await tools.apply_patch('it\\'s');",
      'await tools.apply_patch(`line1\nline2 \\` tick`);',
      'await tools.apply_patch(`${prefix}x`);',
      'await tools.apply_patch(p);',
    ].join('\n');
    expect(patchesOfCodeMode(src).map((p) => p.patch)).toEqual(['a\nbéA', "it's", 'line1\nline2 ` tick', null, null]);
  });
});

describe('Responses API item lists', () => {
  const entries = readLog(fixture('responses.json'));

  it('turns each operation into a one-section patch, keeping the move, grouped by response', () => {
    expect(detectLogFormat(fixture('responses.json'))).toBe('responses-items');
    expect(entries.map((e) => [e.callId, e.turn, e.outcome])).toEqual([
      ['c-create', 'resp-1', 'success'],
      ['c-move', 'resp-1', 'success'],
      ['c-fail', 'resp-2', 'failed'],
      ['c-delete', 'resp-2', 'success'],
    ]);
    expect(entries.map((e) => parsePatch(e.patch).hunks.map((h) => [h.kind, h.path, h.kind === 'update' ? h.moveTo : null]))).toEqual([
      [['add', 'src/new.ts', null]],
      [['update', 'src/old.ts', 'src/renamed.ts']],
      [['update', 'src/gone.ts', null]],
      [['delete', 'src/unused.ts', null]],
    ]);
    expect(entries[2]!.output).toBe('Error: file not found: src/gone.ts');
  });

  it('reads JSON Lines of items too', () => {
    const lines = (JSON.parse(fixture('responses.json')) as unknown[]).map((v) => JSON.stringify(v)).join('\n');
    expect(readLog(lines).map((e) => e.callId)).toEqual(['c-create', 'c-move', 'c-fail', 'c-delete']);
  });

  it('refuses a diff that carries a header of its own: one operation changes one file', () => {
    for (const smuggled of ['*** Delete File: other.txt', '*** Begin Patch', '*** Add File: b', '  *** Move to: elsewhere', '*** End Patch']) {
      expect(() => patchOfOperation({ type: 'update_file', path: 'a.txt', diff: `@@\n-a\n+b\n${smuggled}\n` })).toThrow(PatchtxError);
    }
    // `*** End of File` belongs to a chunk, not to the envelope
    expect(() => parsePatch(patchOfOperation({ type: 'update_file', path: 'a.txt', diff: '@@\n-a\n+b\n*** End of File\n' }))).not.toThrow();
  });

  it('says what it cannot read', () => {
    expect(() => readLog('hello\n')).toThrow(/not a patch log/);
    expect(() => readLog('[{"type": "apply_patch_call", "call_id": "x", "operation": {"type": "rename_file", "path": "a"}}]')).toThrow(/needs operation/);
  });
});
