/**
 * `git-kb mcp` driven by the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`, the `--cli` mode of
 * `npx @modelcontextprotocol/inspector`), a client other than the SDK's: the tools' annotations, a missing entry
 * resource (not-found, the message prefixed once), a URI of another scheme (invalid params), resources/list with no
 * data repo (empty), and an `add` with a blank body (a tool error, nothing committed). The Inspector is a
 * devDependency (0.15.0, the newest that runs on Node 20); GIT_KB_INSPECTOR_CLI (its build/index.js) runs another.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, kb, makeSandbox, ROOT, run, type RunResult, type Sandbox } from '../helpers/cli.js';

const INSPECTOR = process.env.GIT_KB_INSPECTOR_CLI || path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');

let sb: Sandbox;

/** `mcp-inspector --cli node bin/git-kb mcp --data DATA --method ...ARGS`. */
function inspect(args: string[], data = sb.data): Promise<RunResult> {
  return run(process.execPath, [INSPECTOR, process.execPath, CLI, 'mcp', '--data', data, '--method', ...args], { env: sb.env, cwd: sb.root, timeoutMs: 60_000 });
}

describe('git-kb mcp through the MCP Inspector CLI', () => {
  beforeAll(async () => {
    expect(fs.existsSync(INSPECTOR), `${INSPECTOR}: run npm ci`).toBe(true);
    sb = makeSandbox('gkb-mcpinsp-');
    expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
  });
  afterAll(() => sb?.cleanup());

  it('lists the tools with their annotations: edit is destructive and not idempotent', async () => {
    const r = await inspect(['tools/list']);
    expect(r.code, r.stderr).toBe(0);
    const tools = (JSON.parse(r.stdout) as { tools: Array<{ name: string; annotations: Record<string, boolean> }> }).tools;
    expect(tools.find((t) => t.name === 'edit')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tools.find((t) => t.name === 'search')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('a missing entry is not-found (-32002), another scheme invalid params (-32602), each prefixed once', async () => {
    const missing = await inspect(['resources/read', '--uri', 'kb://entry/kb-0000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('MCP error -32002: no entry with id kb-0000000000');
    expect(missing.stderr).not.toMatch(/MCP error -?\d+: MCP error/);
    const other = await inspect(['resources/read', '--uri', 'file:///etc/passwd']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('MCP error -32602: Resource file:///etc/passwd not found');
    expect(other.stderr).not.toMatch(/MCP error -?\d+: MCP error/);
  });

  it('resources/list with no data repo is an empty list', async () => {
    const r = await inspect(['resources/list'], path.join(sb.root, 'nothing-here'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ resources: [] });
  });

  it('add with a blank body is a tool error (INVALID_ENTRY) and commits nothing', async () => {
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    // NOTE: the Inspector CLI takes no empty `key=` value; a space is as blank.
    const r = await inspect(['tools/call', '--tool-name', 'add', '--tool-arg', 'type=decision', '--tool-arg', 'title=Nothing said', '--tool-arg', 'body= ']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { isError: boolean; content: Array<{ text: string }> };
    expect(out.isError).toBe(true);
    expect(JSON.parse(out.content[0]!.text).error.code).toBe('INVALID_ENTRY');
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  });
});
