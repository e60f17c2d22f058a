// The parts of the MCP SDK (and the zod it validates with) that the server uses, in one module.
// The build bundles this module into a file of its own, loaded only when `patchtx mcp` starts, so
// the other commands do not parse the SDK at every start.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { z } from 'zod';
