/**
 * The learning loop over MCP (spec/mcp.md), driven by the SDK's own client against `git-kb mcp` over stdio: a
 * lesson recorded again by its pattern key becomes a recurrence, then a promotion candidate, is promoted; prune
 * lists (a dry run writes nothing) then deletes; delete refuses to leave links dangling; tags; compact_check
 * grades a rewrite round by round; pattern keys and kernel rules through add and edit; bad input is the CLI's
 * error and writes nothing. Annotations say what each tool can do.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, expectCleanRepo, git, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let client: Client;

type CallResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> };

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

/** The structured result of a call that must succeed. */
async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await call(name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r)}`).toBeFalsy();
  return r.structuredContent!;
}

/** The CLI's error code carried by a tool error. */
async function code(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(name, args);
  expect(r.isError, JSON.stringify(r)).toBe(true);
  try {
    return JSON.parse(r.content[0]!.text).error.code;
  } catch {
    return 'SCHEMA'; // the SDK's own refusal of a schema violation
  }
}

const head = async (): Promise<string> => (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
const text = async (id: string): Promise<string> => (await ok('get', { ids: [id] })).entries[0].text;

beforeAll(async () => {
  sb = makeSandbox('gkb-mcp-loop-');
  const r = await kb(sb, ['--data', sb.data, 'init']);
  expect(r.code, r.stderr).toBe(0);
  const env = Object.fromEntries(Object.entries(sb.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  client = new Client({ name: 'git-kb-loop-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data', sb.data], env, stderr: 'pipe' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
  sb?.cleanup();
});

describe('the learning loop over MCP', () => {
  it('annotates each tool as it is: reads read-only, deletions destructive, compact_check not read-only', async () => {
    const { tools } = await client.listTools();
    const by = new Map(tools.map((t) => [t.name, t.annotations]));
    expect(by.get('tags')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(by.get('add')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(by.get('edit')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(by.get('promote')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(by.get('prune')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.get('delete')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.get('compact_check')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    const add = tools.find((t) => t.name === 'add')!;
    expect(Object.keys(add.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['pattern_key', 'rules']));
  });

  it('records a recurrence, lists the promotion candidate, promotes it', async () => {
    const lesson = { type: 'lesson_learned', title: 'CI must install with a frozen lockfile', pattern_key: 'frozen-lockfile' };
    const first = await ok('add', { ...lesson, body: 'CI rewrote the lockfile and the build drifted.' });
    expect(first).toMatchObject({ recurred: false, count: 1 });
    const id = first.id as string;
    const before = await head();
    const again = await ok('add', { ...lesson, body: 'Again: a fresh install pulled a new minor.' });
    expect(again).toMatchObject({ id, recurred: true, count: 2 });
    expect(await head()).not.toBe(before);
    expect(await text(id)).toContain('Again: a fresh install pulled a new minor.');
    expect((await ok('status')).memory.promotion_candidates).toEqual([]);
    expect(await ok('add', { ...lesson, body: 'Third time.' })).toMatchObject({ id, recurred: true, count: 3 });
    expect((await ok('list', { type: 'lesson_learned' })).entries).toHaveLength(1);
    const candidates = (await ok('status')).memory.promotion_candidates;
    expect(candidates).toEqual([expect.objectContaining({ id, count: 3 })]);
    const promoted = await ok('promote', { id });
    expect(promoted).toMatchObject({ id, changed: true });
    expect(promoted.kernel_chars).toBeGreaterThan(0);
    expect(await text(id)).toMatch(/^kernel: true$/m);
    const h = await head();
    expect(await ok('promote', { id })).toMatchObject({ id, changed: false });
    expect(await head()).toBe(h);
    await expectCleanRepo(sb.data);
  });

  it('names a lesson by edit, so that a later add records its recurrence there; carries kernel rules', async () => {
    const plain = (await ok('add', { type: 'lesson_learned', title: 'Flaky test was a teardown race', body: 'The fixture closed the pool too early.' })).id as string;
    const edited = await ok('edit', { id: plain, pattern_key: 'teardown-race' });
    expect(edited.diff).toContain('+pattern_key: teardown-race');
    expect(await ok('add', { type: 'lesson_learned', title: 'Teardown race again', body: 'Seen in the API suite.', pattern_key: 'teardown-race' })).toMatchObject({ id: plain, recurred: true, count: 2 });

    const rules = [{ pattern: '\\bleverage\\b', message: 'Say "use", not "leverage".', flags: 'i' }];
    const style = (await ok('add', { type: 'pattern_convention', title: 'House style', body: 'Plain words.', kernel: true, rules })).id as string;
    expect(await text(style)).toMatch(/rules:\n\s+- pattern: .*leverage/);
    expect((await ok('edit', { id: style, rules: [] })).diff).toMatch(/^-rules:/m);
    expect(await text(style)).not.toContain('rules:');
    await expectCleanRepo(sb.data);
  });

  it('prunes: a dry run lists and writes nothing, delete: true deletes exactly those in one commit', async () => {
    const body = 'Squash merge feature branches.';
    const older = (await ok('add', { type: 'pattern_convention', title: 'Squash merges', body })).id as string;
    const newer = (await ok('add', { type: 'pattern_convention', title: 'Squash merges (again)', body: 'squash merge feature\nbranches.' })).id as string;
    const h = await head();
    const dry = await ok('prune');
    const dup = dry.candidates.filter((c: { reason: string }) => c.reason === 'duplicate').map((c: { id: string }) => c.id);
    expect(dup).toHaveLength(1);
    expect([older, newer]).toContain(dup[0]);
    expect(dry.deleted).toEqual([]);
    expect(await head()).toBe(h);
    const real = await ok('prune', { delete: true });
    expect(real.deleted).toEqual(dry.candidates.map((c: { id: string }) => c.id));
    expect(real.commit).toBe(await head());
    expect((await git(sb.data, ['rev-list', '--count', `${h}..HEAD`], sb.env)).trim()).toBe('1');
    expect((await ok('prune')).candidates).toEqual([]);
    await expectCleanRepo(sb.data);
  });

  it('deletes, refusing while links would dangle; lists tags', async () => {
    const target = (await ok('add', { type: 'decision', title: 'Postgres for the queue', body: 'SKIP LOCKED.', tags: ['db', 'queue'] })).id as string;
    const linker = (await ok('add', { type: 'lesson_learned', title: 'Workers take jobs with SKIP LOCKED', body: 'Two workers took one job.', tags: ['db'], links: [{ rel: 'depends_on', to: target }] })).id as string;
    const tags = (await ok('tags')).tags as { tag: string; count: number }[];
    expect(tags[0]).toEqual({ tag: 'db', count: 2 });
    expect(tags).toContainEqual({ tag: 'queue', count: 1 });
    const h = await head();
    expect(await code('delete', { ids: [target] })).toBe('CONFLICT');
    expect(await head()).toBe(h);
    const gone = await ok('delete', { ids: [linker, target] });
    expect(gone.deleted.map((d: { id: string }) => d.id)).toEqual([linker, target]);
    expect(gone.commit).toBe(await head());
    expect(await code('get', { ids: [target] })).toBe('NOT_FOUND');
    expect(await code('delete', { ids: [target] })).toBe('NOT_FOUND');
    await expectCleanRepo(sb.data);
  });

  it('compact_check grades a rewrite against its baseline, one round a call', async () => {
    const long = ['Deploy notes:', '', '- Run the migrations before the deploy, or the app starts against an old schema and every request fails until someone notices at night.', '- Drain the websocket gateway first, because clients reconnect in a storm and the load balancer sheds them all at once.', '- Tag the release after the deploy succeeds, never before, so that a failed deploy leaves no tag behind that points at broken code.'].join('\n');
    const id = (await ok('add', { type: 'pattern_convention', title: 'Deploy notes', body: long })).id as string;
    const baseline = await head();
    await ok('edit', { id, body: ['Deploy notes:', '', '- Run the migrations before the deploy.', '- Drain the websocket gateway first.', '- Tag the release after the deploy succeeds.'].join('\n') });
    const graded = await ok('compact_check', { target: id, baseline });
    expect(['PASS', 'FLOOR', 'DEFECTS']).toContain(graded.verdict);
    expect(graded).toMatchObject({ target: id, baseline_rev: baseline, round: 1 });
    expect(graded.current_chars).toBeLessThan(graded.baseline_chars);
    expect((await ok('compact_check', { target: id, baseline })).round).toBe(2);
    // The tool describes baseline as "e.g. HEAD~1": it resolves to the commit git rev-parse names.
    const want = (await git(sb.data, ['rev-parse', 'HEAD~1'], sb.env)).trim();
    const relative = await ok('compact_check', { target: id, baseline: 'HEAD~1' });
    expect(relative).toMatchObject({ target: id, baseline_rev: want });
    expect(await code('compact_check', { target: id, baseline: 'HEAD~9999' })).toBe('NOT_FOUND');
  });

  it('bad input is the CLI\'s error, and nothing is written', async () => {
    const h = await head();
    const taken = (await ok('list', { type: 'lesson_learned' })).entries.find((e: { title: string }) => e.title === 'Flaky test was a teardown race')!.id as string;
    const other = (await ok('list', { type: 'lesson_learned' })).entries.find((e: { id: string }) => e.id !== taken)!.id as string;
    const h2 = await head();
    expect(h2).toBe(h);
    expect(await code('add', { type: 'lesson_learned', title: 'x', body: 'y', pattern_key: 'Not A Key!' })).toBe('INVALID_ENTRY');
    expect(await code('add', { type: 'pattern_convention', title: 'x', body: 'y', kernel: true, rules: [{ pattern: '(', message: 'broken' }] })).toBe('INVALID_ENTRY');
    expect(await code('edit', { id: other, pattern_key: 'teardown-race' })).toBe('CONFLICT');
    expect(await code('promote', { id: 'kb-0000000000' })).toBe('NOT_FOUND');
    expect(await code('delete', { ids: ['kb-0000000000'] })).toBe('NOT_FOUND');
    expect(await code('prune', { delete: true, half_lives: 0 })).not.toBe('');
    expect(await code('compact_check', { target: 'kb-0000000000', baseline: 'HEAD' })).toBe('NOT_FOUND');
    expect(await code('compact_check', { target: 'kernel', baseline: 'no-such-revision' })).not.toBe('');
    expect(await head()).toBe(h);
    await expectCleanRepo(sb.data);
  });
});
