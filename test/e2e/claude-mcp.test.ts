/**
 * The plugin's MCP server (.mcp.json: `git-kb mcp`) run by the real Claude Code CLI: the model's request lists
 * the server's tools, a scripted call of its search tool runs with no permission prompt and no --allowedTools (the
 * plugin's PreToolUse hook allows its read-only tools), the tool result the server returned reaches the model in
 * the next request, and a scripted add is not allowed (print mode denies it; nothing is written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/cli.js';
import { lastToolResults } from '../helpers/model-api.js';
import { converse, installedRig, prompt, type Rig } from './claude-support.js';

let rig: Rig;
// NOTE: `claude -p` connects MCP servers in the background by default and sends its first request without the tools
// of a server still starting (anthropics/claude-code#65094); on a loaded machine `git-kb mcp` lost that race. An
// interactive session has connected long before the user types: the connection is made blocking here, as there.
const BLOCKING = { env: { MCP_CONNECTION_NONBLOCKING: 'false' } };
beforeAll(async () => {
  rig = await installedRig('gkb-cc-mcp-');
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

describe('the plugin MCP server', () => {
  it('offers its tools to the model, and a search call returns pointers from the data repo', async () => {
    const { api, sb, seeded } = rig;
    // First turn: find the server's search tool name in the tools the CLI sends.
    converse(api, ['Looking.']);
    api.reset();
    await prompt(sb, 'What tools do you have for the knowledge base?', [], BLOCKING);
    // Claude Code 2.1.328 defers MCP tools: their names are listed in the request's text (ToolSearch loads
    // their schemas on demand), not in `tools`.
    const sent = JSON.stringify(api.mainRequests()[0]!.body);
    const names = [...new Set(sent.match(/mcp__[A-Za-z0-9_-]*git-kb[A-Za-z0-9_-]*__[a-z_]+/g) ?? [])];
    const search = names.find((n) => n.endsWith('__search'));
    expect(search, sent.slice(0, 2000)).toBeDefined();
    for (const verb of ['get', 'add', 'list', 'status']) expect(names).toContain(search!.replace(/search$/, verb));

    // No --allowedTools: the plugin's PreToolUse hook allows its own read-only tools; a write asks, which print
    // mode denies.
    const add = search!.replace(/search$/, 'add');
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    converse(api, [
      { tool: search!, input: { query: ['redis eviction', 'cache keys'] } },
      { tool: add, input: { type: 'decision', title: 'Use allkeys-lru for caches', body: 'Every key is a cache entry.' } },
      'Use allkeys-lru.',
    ]);
    api.reset();
    const r = await prompt(sb, 'Which redis eviction policy suits a cache?', [], BLOCKING);
    expect((r.json.permission_denials as Array<{ tool_name: string }>).map((d) => d.tool_name)).toEqual([add]);
    const main = api.mainRequests();
    expect(main).toHaveLength(3);
    const [result] = lastToolResults(main[1]!);
    expect(result!.is_error).toBeFalsy();
    expect(result!.text).toContain(seeded.notes.redis!);
    expect(result!.text).toContain('Redis eviction policy for caches');
    const [denied] = lastToolResults(main[2]!);
    expect(denied!.is_error).toBe(true);
    // The session's own hooks may commit (a session summary); no entry was added.
    const subjects = (await git(sb.data, ['log', '--format=%s', `${head}..HEAD`], sb.env)).trim();
    expect(subjects).not.toMatch(/^add /m);
  }, 90_000);
});
