/** `mcp`: the knowledge base as an MCP server over stdio (spec/mcp.md), for any MCP client. */
import type { Command } from 'commander';
import { type Cli, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx
    .verb('mcp', 'serve the knowledge base over the Model Context Protocol (stdio), for Codex, Cursor, Claude Desktop and other MCP clients')
    .action(async (_o: Record<string, unknown>, cmd: Command) => {
      const g = globals(cmd);
      const { resolveDataDir } = await import('../../adapters/config/config.js');
      const { serveStdio } = await import('../../mcp/server.js');
      await serveStdio({ data: resolveDataDir({ data: g.data }).dir, version: cmd.parent?.version() ?? '0' });
    });
}
