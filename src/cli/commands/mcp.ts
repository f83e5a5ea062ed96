/** `mcp`: the knowledge base as an MCP server over stdio (spec/mcp.md), for any MCP client. */
import type { Command } from 'commander';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx
    .verb('mcp', 'serve the knowledge base over the Model Context Protocol (stdio), for Codex, Cursor, Claude Desktop and other MCP clients')
    .action(async (_o: Record<string, unknown>, cmd: Command) => {
      const { resolveDataDir } = await import('../../adapters/config/config.js');
      const { serveStdio } = await import('../../mcp/server.js');
      const { data, settings } = repoOptions(ctx, cmd);
      // NOTE: resolved once, as the CLI resolves it; every tool call then names this directory.
      const { dir, source } = resolveDataDir({ data, settings });
      await serveStdio({ data: dir, source, settings, version: cmd.parent?.version() ?? '0' });
    });
}
