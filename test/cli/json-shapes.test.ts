/**
 * The --json shapes every verb prints (the contract spec/cli.md documents), checked key by key and type by type
 * on real output. Optional keys are shown as `key?`. Errors go to stderr as {"error":{"code","message","data"?}}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { kbd, kbj, type Added } from './support.js';

let sb: Sandbox;
let a: Added;
let b: Added;

beforeAll(async () => {
  sb = makeSandbox();
  a = await kbj<Added>(sb, ['add', '--type', 'decision', '--title', 'Shapes anchor', '--tags', 'x,y', '--', 'Anchor body about shapes.']);
  b = await kbj<Added>(sb, ['add', '--type', 'lesson_learned', '--title', 'Shapes neighbour', '--link', `relates_to:${a.id}`, '--', 'Neighbour body.']);
});
afterAll(() => sb.cleanup());

/** The type outline of a JSON value: objects key by key, arrays by their items, scalars by typeof. */
type Shape = string | Shape[] | { [k: string]: Shape };
function shapeOf(v: unknown): Shape {
  if (Array.isArray(v)) {
    const items = [...new Set(v.map((x) => JSON.stringify(shapeOf(x))))].map((s) => JSON.parse(s) as Shape);
    return items;
  }
  if (v === null) return 'null';
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, x]) => [k, shapeOf(x)]));
  return typeof v;
}

/** Checks `value` against a shape where keys ending in `?` may be missing. */
function expectShape(value: unknown, shape: Shape, at = '$'): void {
  if (typeof shape === 'string') {
    expect(shapeOf(value), at).toBe(shape);
    return;
  }
  if (Array.isArray(shape)) {
    expect(Array.isArray(value), `${at} is an array`).toBe(true);
    (value as unknown[]).forEach((x, i) => expectShape(x, shape[0]!, `${at}[${i}]`));
    return;
  }
  expect(typeof value === 'object' && value !== null && !Array.isArray(value), `${at} is an object`).toBe(true);
  const obj = value as Record<string, unknown>;
  const allowed = new Set(Object.keys(shape).map((k) => k.replace(/\?$/, '')));
  for (const k of Object.keys(obj)) expect(allowed.has(k), `${at}.${k} is not in the documented shape`).toBe(true);
  for (const [k, s] of Object.entries(shape)) {
    const key = k.replace(/\?$/, '');
    if (!(key in obj)) {
      expect(k.endsWith('?'), `${at}.${key} is missing`).toBe(true);
      continue;
    }
    expectShape(obj[key], s, `${at}.${key}`);
  }
}

const HIT = { id: 'string', title: 'string', type: 'string', tags: ['string'], path: 'string', score: 'number', snippet: 'string', 'via?': { from: 'string', rel: 'string' }, 'turn?': { n: 'number', anchor: 'string', kind: 'string', 'tool?': 'string' } };
const TURN_HIT = { id: 'string', session_id: 'string', title: 'string', 'project?': 'string', 'cwd?': 'string', 'ended?': 'string', turn: 'number', anchor: 'string', kind: 'string', 'tool?': 'string', score: 'number', snippet: 'string' };
const PROBLEM = { rule: 'string', message: 'string', file: 'string', line: 'number', 'id?': 'string' };

describe('--json shapes', () => {
  it('add: {id, path, commit}', () => {
    expectShape(a, { id: 'string', path: 'string', commit: 'string' });
    expect(Object.keys(a)).toEqual(['id', 'path', 'commit']);
  });

  it('search: {query, queries, results: [{id, title, type, tags, path, score, snippet, via?, turn?}], total, sessions: [...], unreadable?}', async () => {
    const r = await kbj(sb, ['search', 'shapes anchor', 'body']);
    expectShape(r, { query: 'string', queries: ['string'], results: [HIT], total: 'number', sessions: [TURN_HIT], 'unreadable?': ['string'] });
    expect(r.results.some((h: { via?: unknown }) => h.via)).toBe(false);
    const withVia = await kbj(sb, ['search', 'anchor']);
    expect(withVia.results.find((h: { id: string }) => h.id === b.id)?.via).toEqual({ from: a.id, rel: 'relates_to' });
    expectShape(withVia, { query: 'string', queries: ['string'], results: [HIT], total: 'number', sessions: [TURN_HIT], 'unreadable?': ['string'] });
  });

  it('search over session turns, and session show --turns/--turn/--grep', async () => {
    const own = makeSandbox('gkb-shape-turns-');
    const sb = own; // the shared sandbox's counts stay as the other shapes expect them
    const fixture = path.join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'coding-session.jsonl');
    const rec = await kbj(sb, ['session', 'record', '--transcript', fixture]);
    const r = await kbj(sb, ['search', 'JPY', 'zero decimals']);
    expectShape(r, { query: 'string', queries: ['string'], results: [HIT], total: 'number', sessions: [TURN_HIT], 'unreadable?': ['string'] });
    expect(r.results.some((h: { turn?: unknown }) => h.turn) || r.sessions.length > 0).toBe(true);
    const head = { view: 'string', id: 'string', session_id: 'string', title: 'string' };
    expectShape(await kbj(sb, ['session', 'show', rec.id]), { view: 'string', id: 'string', path: 'string', text: 'string' });
    expectShape(await kbj(sb, ['session', 'show', rec.id, '--turns']), { ...head, turns: [{ n: 'number', anchor: 'string', 'at?': 'string', prompt: 'string', replies: 'number', tools: 'number', recaps: 'number' }] });
    expectShape(await kbj(sb, ['session', 'show', rec.id, '--turn', '1']), { ...head, turn: { n: 'number', anchor: 'string', 'at?': 'string', prompt: 'string', replies: ['string'], recaps: ['string'], tools: [{ name: 'string', call: 'string', 'output?': 'string', 'error?': 'boolean' }] } });
    expectShape(await kbj(sb, ['session', 'show', rec.id, '--grep', 'cent']), { ...head, grep: 'string', lines: [{ n: 'number', anchor: 'string', kind: 'string', 'tool?': 'string', line: 'string' }] });
    own.cleanup();
  });

  it('get: {entries: [{id, path, text, links?: [{id, title, rel, direction}]}]}', async () => {
    expectShape(await kbj(sb, ['get', a.id]), { entries: [{ id: 'string', path: 'string', text: 'string' }] });
    expectShape(await kbj(sb, ['get', a.id, b.id, '--links']), { entries: [{ id: 'string', path: 'string', text: 'string', links: [{ id: 'string', title: 'string', rel: 'string', direction: 'string' }] }] });
  });

  it('list: {entries: [{id, title, type, tags, path, created?, updated?}], unreadable?}', async () => {
    expectShape(await kbj(sb, ['list']), { entries: [{ id: 'string', title: 'string', type: 'string', tags: ['string'], path: 'string', 'created?': 'string', 'updated?': 'string' }], 'unreadable?': ['string'] });
  });

  it('edit: {id, path, commit?, changed, diff}', async () => {
    expectShape(await kbj(sb, ['edit', a.id, '--add-tag', 'z']), { id: 'string', path: 'string', commit: 'string', changed: 'boolean', diff: 'string' });
    expectShape(await kbj(sb, ['edit', a.id, '--add-tag', 'z']), { id: 'string', path: 'string', changed: 'boolean', diff: 'string' });
  });

  it('lint: {ok, files, problems: [{rule, message, file, line, id?}]}', async () => {
    expectShape(await kbj(sb, ['lint']), { ok: 'boolean', files: 'number', problems: [PROBLEM] });
    fs.writeFileSync(path.join(sb.data, 'entries', 'kb-0001-bad.md'), '---\nid: kb-0001\ntitle: Bad\ntype: nope\n---\n');
    const r = await kb(['lint', '--json']);
    expect(r.code).toBe(5);
    const j = JSON.parse(r.stdout);
    expect(j.problems.length).toBeGreaterThan(0);
    expectShape(j, { ok: 'boolean', files: 'number', problems: [PROBLEM] });
    fs.rmSync(path.join(sb.data, 'entries', 'kb-0001-bad.md'));
  });

  it('history: {id, path, commits: [{commit, date, author, message}]}; restore: {id, path, from, commit?, changed}', async () => {
    expectShape(await kbj(sb, ['history', a.id]), { id: 'string', path: 'string', commits: [{ commit: 'string', date: 'string', author: 'string', message: 'string' }] });
    expectShape(await kbj(sb, ['restore', a.id]), { id: 'string', path: 'string', from: 'string', commit: 'string', changed: 'boolean' });
    const h = await kbj(sb, ['history', a.id]);
    expectShape(await kbj(sb, ['restore', a.id, '--to', h.commits[0].commit]), { id: 'string', path: 'string', from: 'string', changed: 'boolean' });
  });

  it('status: {data_dir, source, entries, by_type, kernel: {entries, chars, budget}, problems, head?, remote?, ...}', async () => {
    const s = await kbj(sb, ['status']);
    expect(s).toMatchObject({ data_dir: expect.any(String), source: 'flag', entries: 2, by_type: { decision: 1, lesson_learned: 1 }, kernel: { entries: 0, chars: 0, budget: expect.any(Number) }, problems: 0, head: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('import: {imported, skipped: [{file, reason}], commit?, ids, ...}; init: {data_dir, action, config_file?, remote?, entries, ...}', async () => {
    const dir = path.join(sb.root, 'notes');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'a.md'), '# A note\n');
    const r = await kbj(sb, ['import', dir]);
    expect(r).toMatchObject({ imported: 1, skipped: [], commit: expect.stringMatching(/^[0-9a-f]{40}$/), ids: [expect.stringMatching(/^kb-/)] });
    const i = await kbj(sb, ['init']);
    expect(i).toMatchObject({ data_dir: expect.any(String), action: 'adopted', entries: 3 });
    expect(['created', 'adopted', 'cloned', 'existing']).toContain(i.action);
  });

  it('errors: {"error": {"code", "message", "data"?}} on stderr, nothing on stdout', async () => {
    for (const args of [['get', 'kb-nope'], ['frob'], ['add', '--type', 'x', '--title', 'y'], ['search', 'x', '--bogus']]) {
      const r = await kb([...args, '--json']);
      expect(r.code).toBeGreaterThan(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      const { error } = JSON.parse(r.stderr) as { error: Record<string, unknown> };
      const { data, ...rest } = error;
      expectShape({ error: rest }, { error: { code: 'string', message: 'string' } });
      if (data !== undefined) expect(typeof data === 'object' && data !== null && !Array.isArray(data)).toBe(true);
    }
  });
});

/** Runs git-kb on the sandbox's data repo (human output unless --json is among the args). */
function kb(args: string[]) {
  return kbd(sb, args);
}
