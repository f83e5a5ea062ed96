/**
 * `git-kb mcp` driven as a process by the MCP SDK's own client over stdio: initialize, list tools, resources and
 * prompts, call every tool (bad input included), read a resource, see a plain-git commit at once, and write from
 * three places at once. The data repo is checked with the real git CLI afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, expectCleanRepo, git, hook, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { SECRET_BATTERY } from '../fixtures/secrets.js';
import { MCP_READ_TOOLS } from '../../src/core/gate/own-reads.js';

let sb: Sandbox;
let client: Client;

type CallResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> };

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

/** The CLI's error JSON carried by a tool error. */
function errorOf(r: CallResult): { code: string; message: string } {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return JSON.parse(r.content[0]!.text).error;
}

async function commits(): Promise<number> {
  return Number((await git(sb.data, ['rev-list', '--count', 'HEAD'], sb.env)).trim());
}

beforeAll(async () => {
  sb = makeSandbox('gkb-mcp-');
  const r = await kb(sb, ['--data', sb.data, 'init']);
  expect(r.code, r.stderr).toBe(0);
  const env = Object.fromEntries(Object.entries(sb.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  client = new Client({ name: 'git-kb-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data', sb.data], env, stderr: 'pipe' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
  sb?.cleanup();
});

describe('git-kb mcp', () => {
  it('status says where the data repo choice came from: GIT_KB_DATA, not a flag, when the server was started without --data', async () => {
    const env = Object.fromEntries(Object.entries({ ...sb.env, GIT_KB_DATA: sb.data }).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const other = new Client({ name: 'git-kb-test-env', version: '1.0.0' });
    await other.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, stderr: 'pipe' }));
    try {
      const status = (await other.callTool({ name: 'status', arguments: {} })) as CallResult;
      expect(status.structuredContent).toMatchObject({ data_dir: sb.data, source: 'env' });
    } finally {
      await other.close();
    }
    expect((await call('status')).structuredContent).toMatchObject({ source: 'flag' });
  });

  it('lists the tools named as the verbs, each with a description, a schema and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(['add', 'compact_check', 'delete', 'edit', 'get', 'host_load', 'list', 'promote', 'prune', 'search', 'session_list', 'session_show', 'status', 'tags']);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
    }
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(search.outputSchema?.type).toBe('object');
    expect(tools.find((t) => t.name === 'add')!.annotations).toMatchObject({ readOnlyHint: false });
    // The tools the plugin's PreToolUse hook allows without asking are exactly the read-only ones.
    expect(tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name).sort()).toEqual([...MCP_READ_TOOLS].sort());
    // Two identical appends append twice: edit is not idempotent.
    expect(tools.find((t) => t.name === 'edit')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('kb://entry/{id}');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('search-first');
  });

  it('adds, searches, gets, lists, edits and reports status, each write one commit', async () => {
    const before = await commits();
    const added = await call('add', { type: 'decision', title: 'Postgres for the job queue', body: 'We use SKIP LOCKED instead of Redis: one less service.', tags: ['db', 'queue'] });
    expect(added.isError, JSON.stringify(added)).toBeFalsy();
    const id = added.structuredContent!.id as string;
    expect(id).toMatch(/^kb-[0-9a-z]+$/);
    expect(await commits()).toBe(before + 1);

    const linked = await call('add', { type: 'lesson_learned', title: 'Workers must take jobs with SKIP LOCKED', body: 'Two workers took one job.', links: [{ rel: 'depends_on', to: id }] });
    const id2 = linked.structuredContent!.id as string;

    const found = await call('search', { query: ['job queue', 'background jobs'] });
    expect(found.structuredContent!.results.map((h: { id: string }) => h.id)).toContain(id);
    expect(found.structuredContent!.results[0].snippet).toBeTruthy();

    const got = await call('get', { ids: [id2], links: true });
    const entry = got.structuredContent!.entries[0];
    expect(entry.text).toContain('Two workers took one job.');
    expect(entry.links.map((l: { id: string }) => l.id)).toContain(id);
    // An entry's file name (as `list` and `search` print its path) works where an id is asked, as in the CLI.
    const byPath = await call('get', { ids: [entry.path, entry.path.replace(/^entries\//, '').replace(/\.md$/, '')] });
    expect(byPath.structuredContent!.entries.map((e: { id: string }) => e.id)).toEqual([id2, id2]);

    const listed = await call('list', { type: 'decision' });
    expect(listed.structuredContent!.entries.map((e: { id: string }) => e.id)).toEqual([id]);

    const edited = await call('edit', { id, append: 'Measured: 4k jobs/s on one node.', add_tags: ['ops'] });
    expect(edited.structuredContent).toMatchObject({ id, changed: true });
    expect(edited.structuredContent!.diff).toContain('+Measured: 4k jobs/s on one node.');

    const status = await call('status');
    expect(status.structuredContent).toMatchObject({ entries: 2, data_dir: sb.data });

    const resource = await client.readResource({ uri: `kb://entry/${id}` });
    expect((resource.contents[0] as { text: string }).text).toContain('Measured: 4k jobs/s');

    expect(await call('host_load', { key: 'db1' })).toMatchObject({ structuredContent: { key: 'db1', status: 'unknown' } });
    expect((await call('session_list')).structuredContent).toEqual({ sessions: [] });
    expect(errorOf(await call('session_show', { id: 'kb-zzzzzzzzzz' })).code).toBe('NOT_FOUND');
    await expectCleanRepo(sb.data);
  });

  it('bad input is a tool error with the CLI\'s code, and nothing is written', async () => {
    const before = await commits();
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    expect(errorOf(await call('get', { ids: ['kb-0000000000'] })).code).toBe('NOT_FOUND');
    expect(errorOf(await call('add', { type: 'nonsense', title: 'x', body: 'y' })).code).toBe('INVALID_ENTRY');
    expect(errorOf(await call('add', { type: 'decision', title: 'linked', body: 'y', links: [{ rel: 'relates_to', to: 'kb-0000000000' }] })).code).toBe('INVALID_ENTRY');
    const secret = SECRET_BATTERY.find((s) => s.kind === 'GitHub token')!;
    const refused = errorOf(await call('add', { type: 'decision', title: 'deploy notes', body: `the token is ${secret.secret}` }));
    expect(refused.code).toBe('SECRET_DETECTED');
    expect(refused.message).not.toContain(secret.secret);
    expect(errorOf(await call('edit', { id: 'kb-0000000000', append: 'x' })).code).toBe('NOT_FOUND');
    // Bounded search: before, 10,000 phrasings took 42 s of the one-request-at-a-time server, and a 1.4 MB query
    // was echoed back whole.
    const many = errorOf(await call('search', { query: Array.from({ length: 10_000 }, (_, i) => `q${i}`) }));
    expect([many.code, many.message]).toEqual(['USAGE', 'search takes at most 32 queries (got 10000); a few phrasings of one question are what it merges well']);
    const huge = errorOf(await call('search', { query: 'deploy '.repeat(200_000) }));
    expect(huge.code).toBe('USAGE');
    expect(huge.message).toMatch(/^a search query is at most 4000 characters \(one has \d+\)/);
    expect((await call('search', { query: Array.from({ length: 32 }, (_, i) => `phrasing ${i}`) })).isError).toBeFalsy();
    expect(await commits()).toBe(before);
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
    await expectCleanRepo(sb.data);
    const objects = await git(sb.data, ['cat-file', '--batch-all-objects', '--batch'], sb.env);
    expect(objects).not.toContain(secret.secret);
  });

  it('sees an entry committed by plain git while it runs, at the next call', async () => {
    const rel = 'entries/kb-0handmade1-zebra-crossing.md';
    fs.writeFileSync(path.join(sb.data, rel), '---\nid: kb-0handmade1\ntitle: Zebra crossing timings\ntype: factual_reference\ntags: []\nlinks: []\ncreated: 2026-11-30\nupdated: 2026-11-30\n---\n\nPedestrian phases run 7 seconds.\n');
    await git(sb.data, ['add', rel], sb.env);
    await git(sb.data, ['commit', '-qm', 'by hand'], sb.env);
    const found = await call('search', { query: 'zebra crossing' });
    expect(found.structuredContent!.results[0]?.id).toBe('kb-0handmade1');
  });

  it('sees a hand edit made in place, with no commit, at the next call', async () => {
    const rel = 'entries/kb-0handmade1-zebra-crossing.md';
    const abs = path.join(sb.data, rel);
    const before = await call('search', { query: 'quokka habitat' });
    expect(before.structuredContent!.results).toEqual([]);
    for (let i = 0; i < 5; i++) {
      fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace(/Pedestrian phases run \d+ seconds\.|Quokka habitat \d+\./, `Quokka habitat ${i}.`));
      const found = await call('search', { query: 'quokka habitat' });
      expect(found.structuredContent!.results[0]?.id, `round ${i}`).toBe('kb-0handmade1');
      expect(found.structuredContent!.results[0]?.snippet).toContain(`Quokka habitat ${i}`);
    }
    await git(sb.data, ['commit', '-qam', 'hand edit'], sb.env);
  });

  it('three writers at once (this server, the CLI, a Stop hook) all land, fsck clean', async () => {
    const transcript = path.join(sb.root, 'transcript.jsonl');
    const line = (o: object): string => JSON.stringify(o);
    fs.writeFileSync(
      transcript,
      [
        line({ type: 'user', uuid: 'u1', timestamp: '2026-11-30T10:00:00Z', sessionId: 'sess-mcp-1', cwd: '/home/u/proj', message: { role: 'user', content: 'Make the importer skip hidden folders please' } }),
        line({ type: 'assistant', uuid: 'a1', timestamp: '2026-11-30T10:00:05Z', sessionId: 'sess-mcp-1', message: { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'Done: hidden folders are skipped.' }] } }),
      ].join('\n') + '\n',
    );
    const before = await commits();
    const [m, c, h] = await Promise.all([
      call('add', { type: 'pattern_convention', title: 'Name branches after the ticket', body: 'feat/ABC-123-short-name' }),
      kb(sb, ['--data', sb.data, 'add', '--type', 'lesson_learned', '--title', 'Retry flaky uploads twice', 'Twice, then fail loudly.']),
      hook(sb, 'stop', { session_id: 'sess-mcp-1', transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop', stop_hook_active: false }, { env: { ...sb.env, GIT_KB_DATA: sb.data } }),
    ]);
    expect(m.isError, JSON.stringify(m)).toBeFalsy();
    expect(c.code, c.stderr).toBe(0);
    expect(h.code).toBe(0);
    expect(await commits()).toBe(before + 3);
    const tree = await git(sb.data, ['ls-tree', '-r', '--name-only', 'HEAD'], sb.env);
    expect(tree).toContain(m.structuredContent!.path);
    expect(tree).toMatch(/sessions\/\d{4}\/\d{2}\//);
    expect(tree).toContain('retry-flaky-uploads-twice');
    await expectCleanRepo(sb.data);
  });

  it('search finds a session by its turns, and session_show reads its turns, one turn and a grep', async () => {
    const fixture = path.join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'coding-session.jsonl');
    const rec = await kb(sb, ['--data', sb.data, 'session', 'record', '--transcript', fixture, '--json']);
    expect(rec.code, rec.stderr).toBe(0);
    const found = (await call('search', { query: ['JPY zero decimal'] })).structuredContent!;
    const turn = found.results.find((h: { turn?: unknown }) => h.turn)?.turn ?? found.sessions[0];
    expect(turn, JSON.stringify(found)).toBeDefined();
    const id = JSON.parse(rec.stdout).id as string;
    const turns = (await call('session_show', { id, turns: true })).structuredContent!;
    expect(turns).toMatchObject({ view: 'turns', id });
    expect(turns.turns.map((t: { n: number }) => t.n)).toEqual([1, 2, 3]);
    const byAnchor = (await call('session_show', { id, turn: turns.turns[1].anchor })).structuredContent!;
    expect((await call('session_show', { id, turn: 2 })).structuredContent).toEqual(byAnchor);
    expect(byAnchor.turn.prompt).toMatch(/JPY/);
    const grep = (await call('session_show', { id, grep: 'jpy' })).structuredContent!;
    expect(grep.lines[0]).toMatchObject({ n: 2, kind: 'prompt' });
    expect(errorOf(await call('session_show', { id, turn: 99 })).code).toBe('NOT_FOUND');
  });

  it('edit with the same append twice appends twice, as its annotation (not idempotent) says', async () => {
    const id = (await call('add', { type: 'decision', title: 'Appended twice', body: 'First line.' })).structuredContent!.id as string;
    for (let i = 0; i < 2; i++) expect((await call('edit', { id, append: 'Same paragraph.' })).structuredContent).toMatchObject({ changed: true });
    const text = (await call('get', { ids: [id] })).structuredContent!.entries[0].text as string;
    expect(text.split('Same paragraph.')).toHaveLength(3);
  });

  it('add refuses an empty or blank body (INVALID_ENTRY), except a bookmark\'s, and writes nothing', async () => {
    const before = await commits();
    for (const body of ['', '  \n\t\n']) {
      const e = errorOf(await call('add', { type: 'decision', title: 'Nothing said', body }));
      expect(e.code).toBe('INVALID_ENTRY');
      expect(e.message).toMatch(/body is empty/);
    }
    expect(errorOf(await call('add', { type: 'lesson_learned', title: 'Nothing again', body: '', pattern_key: 'nothing-again' })).code).toBe('INVALID_ENTRY');
    expect(await commits()).toBe(before);
    const bookmark = await call('add', { type: 'bookmark', title: 'MDN on fetch', body: '', url: 'https://developer.mozilla.org/en-US/docs/Web/API/fetch' });
    expect(bookmark.isError, JSON.stringify(bookmark)).toBeFalsy();
    expect(await commits()).toBe(before + 1);
  });

  it('resources/read: a missing entry is not-found (-32002), a bad id or another scheme invalid params (-32602), each prefixed once', async () => {
    const failure = async (uri: string): Promise<{ code: number; message: string; data?: any }> => {
      try {
        await client.readResource({ uri });
      } catch (err) {
        return err as { code: number; message: string; data?: any };
      }
      throw new Error(`${uri} was read`);
    };
    const missing = await failure('kb://entry/kb-0000000000');
    expect(missing.code).toBe(-32002);
    expect(missing.message).toMatch(/^MCP error -32002: no entry with id kb-0000000000/);
    expect(missing.data).toEqual({ uri: 'kb://entry/kb-0000000000', code: 'NOT_FOUND' });
    const bad = await failure('kb://entry/not-an-id');
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/^MCP error -32602: "not-an-id" is not an entry id/);
    const other = await failure('file:///etc/passwd');
    expect(other.code).toBe(-32602);
    expect(other.message).toBe('MCP error -32602: Resource file:///etc/passwd not found');
    // The SDK's own protocol errors too (an unknown prompt).
    const prompt = await client.getPrompt({ name: 'no-such-prompt' }).catch((err: Error) => err);
    expect((prompt as Error).message).toBe('MCP error -32602: Prompt no-such-prompt not found');
    // The server still serves.
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
  });

  it('with no data repo: resources/list is empty, a read is not-found naming git-kb init, tools say the same; the first add creates it and says where', async () => {
    const env = Object.fromEntries(Object.entries(sb.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const none = path.join(sb.root, 'no-repo-here');
    const bare = new Client({ name: 'git-kb-test', version: '1.0.0' });
    await bare.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data', none], env, stderr: 'pipe' }));
    try {
      expect(await bare.listResources()).toEqual({ resources: [] });
      const e = (await bare.readResource({ uri: 'kb://entry/kb-0000000000' }).catch((err: unknown) => err)) as { code: number; message: string; data: unknown };
      expect(e.code).toBe(-32002);
      expect(e.message).toMatch(/^MCP error -32002: no knowledge base yet \(no data repo at .*git-kb init/);
      expect(e.data).toEqual({ uri: 'kb://entry/kb-0000000000', code: 'NO_DATA_REPO' });
      const listed = (await bare.callTool({ name: 'list', arguments: {} })) as CallResult;
      expect(JSON.parse(listed.content[0]!.text).error.code).toBe('NO_DATA_REPO');
      expect(fs.existsSync(none)).toBe(false);
      // The first add creates the data repo and says where; the next one does not say it again.
      const first = (await bare.callTool({ name: 'add', arguments: { type: 'decision', title: 'First entry', body: 'Why we chose it.' } })) as CallResult;
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      expect(first.structuredContent).toMatchObject({ created: none });
      expect(fs.existsSync(path.join(none, '.git'))).toBe(true);
      const second = (await bare.callTool({ name: 'add', arguments: { type: 'decision', title: 'Second entry', body: 'And this one.' } })) as CallResult;
      expect(second.structuredContent?.created).toBeUndefined();
      await expectCleanRepo(none);
    } finally {
      await bare.close();
    }
  });

  it('add refuses a lone UTF-16 surrogate (it is no text) and writes nothing', async () => {
    const before = await commits();
    const e = errorOf(await call('add', { type: 'decision', title: 'Surrogate', body: 'broken \ud800 here' }));
    expect(e.code).toBe('INVALID_ENTRY');
    expect(e.message).toMatch(/lone UTF-16 surrogate/);
    expect(await commits()).toBe(before);
  });
});
