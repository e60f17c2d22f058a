// `patchtx mcp` as an MCP client sees it: the SDK's own client spawns the built program over
// stdio (in the copy requireBuiltCli took) in a directory, with git's test environment. The
// clients a test opens are closed by closeMcpClients (call it from afterEach).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { binPath } from './cli.js';
import { gitEnv } from './repos.js';

const clients: Client[] = [];

/** A client connected to `patchtx mcp OPTIONS` started in `cwd`, with `env` over git's test environment. */
export async function connectMcp(cwd: string, env: NodeJS.ProcessEnv = {}, options: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath(), 'mcp', ...options],
    cwd,
    env: { ...(gitEnv as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'patchtx-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Closes every client connectMcp opened since the last call (each stops its server). */
export async function closeMcpClients(): Promise<void> {
  for (const c of clients.splice(0)) await c.close();
}

export type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };

/** Calls the tool `name` with `args`. */
export const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** The text of a result's content. */
export const textOf = (r: ToolResult): string => r.content.map((c) => c.text ?? '').join('');
