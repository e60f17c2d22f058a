// The server's standard streams, spoken to by hand: a line that is not JSON does not end the
// server (the requests after it are answered), and standard output carries protocol messages only.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli } from '../helpers/cli.js';
import { cleanupRepos, gitEnv, makeRepo } from '../helpers/repos.js';

beforeAll(() => requireBuiltCli());
afterAll(() => {
  cleanupBuiltCli();
  cleanupRepos();
});

const request = (id: number, method: string, params: Record<string, unknown> = {}): string => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';

/** Sends `input` to `patchtx mcp`, closes its input, and collects what it wrote until it exits. */
function exchange(cwd: string, input: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [binPath(), 'mcp'], { cwd, env: gitEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // the requests are answered in turn; input ends once the last answer is in
  const answered = (id: number) => stdout.split('\n').some((l) => l.includes(`"id":${id}`));
  child.stdout.on('data', () => {
    if (answered(3)) child.stdin.end();
  });
  for (const chunk of input) child.stdin.write(chunk);
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('patchtx mcp on its standard streams', () => {
  it('survives a malformed line, answers the requests after it, and prints only protocol on stdout', async () => {
    const dir = makeRepo('basic');
    const init = request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } });
    const r = await exchange(dir, [
      'this is {not json\n',
      init,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n',
      '{"jsonrpc":"2.0","id":\n',
      request(2, 'tools/list'),
      request(3, 'tools/call', { name: 'log', arguments: {} }),
    ]);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    const messages = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result?: any; error?: unknown });
    for (const m of messages) expect(m.jsonrpc).toBe('2.0');
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(messages[0].result.serverInfo.name).toBe('patchtx');
    expect(messages[1].result.tools.map((t: { name: string }) => t.name)).toContain('apply_patch');
    expect(messages[2].result.isError).toBeFalsy();
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(r.status).toBe(0);
  });
});
