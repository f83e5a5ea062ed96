/**
 * Search at unit level: term processing, snippets, the cached index (built, served, updated in place, rebuilt
 * from damage, never stale), ranking with boosts, filters, merged queries, recency ties, and link neighbours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/adapters/index/catalog.js';
import { linkNeighbours, makeSnippet, queryTerms, searchStore } from '../src/adapters/index/search.js';
import { openSearchStore } from '../src/adapters/index/search-store.js';
import { processTerm } from '../src/adapters/index/term-count.js';
import { stem } from '../src/core/text/terms.js';

let dir: string;
const put = (rel: string, fields: Record<string, string>, body: string, raw = ''): void => {
  const fm = Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('\n');
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), `---\n${fm}\n${raw}---\n\n${body}\n`);
};

async function search(queries: string[], options: Record<string, unknown> = {}) {
  const store = await openSearchStore(dir, { queries });
  return { hits: searchStore(store, { queries, ...options }), how: store.how };
}
const ids = (hits: { id: string }[]): string[] => hits.map((h) => h.id);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-search-'));
  fs.mkdirSync(path.join(dir, '.git'));
  put('entries/kb-0001-a.md', { id: 'kb-0001', title: 'Postgres vacuum tuning', type: 'lesson_learned', tags: '[postgres, ops]', updated: '2024-05-01' }, 'Autovacuum fell behind on the events table.');
  put('entries/kb-0002-b.md', { id: 'kb-0002', title: 'Event sourcing decision', type: 'decision', tags: '[architecture]', updated: '2024-04-01' }, 'We keep an append-only log. Postgres stores it.', 'links:\n  - rel: depends_on\n    to: kb-0001\n');
  put('entries/kb-0003-c.md', { id: 'kb-0003', title: 'Indexing strategy', type: 'factual_reference', tags: '[postgres]', aliases: '[btree-notes]', updated: '2023-01-01' }, 'B-tree indexes suit equality and range scans.');
  put('hosts/db-1/kb-0004-d.md', { id: 'kb-0004', title: 'Data directory', type: 'host_fact', host: 'db-1', updated: '2024-06-01' }, 'PGDATA is /srv/pg.');
  put('entries/kb-0005-e.md', { id: 'kb-0005', title: 'Unrelated gardening', type: 'factual_reference', updated: '2024-01-01' }, 'Tomatoes need sun.');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('terms', () => {
  it('lowercases, drops stop words and short terms, and stems plurals and verb forms', () => {
    expect(processTerm('The')).toBeNull();
    expect(processTerm('a')).toBeNull();
    expect(processTerm('Indexes')).toBe('index');
    expect(stem('indexing')).toBe('index');
    expect(stem('queries')).toBe('query');
    expect(stem('running')).toBe('run');
    expect(stem('stopped')).toBe('stop');
    expect(stem('status')).toBe('status');
    expect(stem('v2s')).toBe('v2s');
    expect(queryTerms('How do I rebase the branches?')).toEqual(['rebase', 'branch']);
  });

  it('cuts a one-line snippet around the densest cluster of terms', () => {
    expect(makeSnippet('# Heading\n\nShort body.', ['body'])).toBe('Short body.');
    const long = `${'Filler words go here. '.repeat(20)}The needle sits beside the haystack near the end. ${'More filler. '.repeat(10)}`;
    const snip = makeSnippet(long, ['needle', 'haystack']);
    expect(snip).toContain('needle sits beside the haystack');
    expect(snip.startsWith('…')).toBe(true);
    expect(snip.endsWith('…')).toBe(true);
    expect(snip.length).toBeLessThanOrEqual(165);
    expect(makeSnippet(long, ['absent']).startsWith('Filler words')).toBe(true);
    // A match the fold makes ("cafe" in "Café") is found as the search found it, in the text as written.
    const accented = `${'Über die Brücke gehen wir. '.repeat(10)}Das Café am Straßenrand öffnet früh. ${'Noch mehr Text. '.repeat(10)}`;
    expect(makeSnippet(accented, queryTerms('cafe strassenrand'))).toMatch(/^…[^…]*Das Café am Straßenrand öffnet früh/);
  });
});

describe('the cached index', () => {
  it('is built once, then served from cache, updated in place after a change, and rebuilt from damage', async () => {
    expect((await search(['vacuum'])).how).toBe('built');
    expect((await search(['vacuum'])).how).toBe('cached');
    put('entries/kb-0006-f.md', { id: 'kb-0006', title: 'Vacuum full locks the table', type: 'lesson_learned' }, 'Avoid it in production.');
    const after = await search(['vacuum']);
    expect(after.how).toBe('updated');
    expect(ids(after.hits)).toEqual(expect.arrayContaining(['kb-0001', 'kb-0006']));
    fs.rmSync(path.join(dir, 'entries/kb-0006-f.md'));
    const removed = await search(['vacuum']);
    expect(removed.how).toBe('updated');
    expect(ids(removed.hits)).not.toContain('kb-0006');
    fs.writeFileSync(path.join(dir, '.git', 'git-kb', 'search.v9'), 'garbage');
    const rebuilt = await search(['vacuum']);
    expect(rebuilt.how).toBe('built');
    expect(ids(rebuilt.hits)[0]).toBe('kb-0001');
  });

  it('never serves a stale body: an edit is reflected in results and snippets', async () => {
    await search(['vacuum']);
    put('entries/kb-0005-e.md', { id: 'kb-0005', title: 'Unrelated gardening', type: 'factual_reference', updated: '2024-01-01' }, 'Tomatoes need sun and a marmot-proof fence.');
    const r = await search(['marmot']);
    expect(ids(r.hits)).toEqual(['kb-0005']);
    expect(r.hits[0]!.snippet).toContain('marmot-proof');
  });
});

describe('searchStore', () => {
  it('ranks title and tag matches above body matches, and searches aliases, host and url', async () => {
    const r = await search(['postgres'], { links: false });
    expect(ids(r.hits).slice(0, 2).sort()).toEqual(['kb-0001', 'kb-0003']);
    expect(ids(r.hits).indexOf('kb-0002')).toBeGreaterThan(1);
    expect(ids((await search(['btree-notes'])).hits)[0]).toBe('kb-0003');
    expect(ids((await search(['db-1'])).hits)[0]).toBe('kb-0004');
  });

  it('filters by type, tag, host and since, and applies the limit before adding neighbours', async () => {
    expect(ids((await search(['postgres'], { type: 'decision' })).hits)).toEqual(['kb-0002']);
    expect(ids((await search(['postgres'], { tag: 'OPS' })).hits)).toEqual(['kb-0001']);
    expect(ids((await search(['pgdata'], { host: 'db-1' })).hits)).toEqual(['kb-0004']);
    expect(ids((await search(['pgdata'], { host: 'db-2' })).hits)).toEqual([]);
    expect(ids((await search(['postgres'], { since: '2024-01-01', links: false })).hits).sort()).toEqual(['kb-0001', 'kb-0002']);
    const limited = (await search(['postgres'], { limit: 1 })).hits;
    expect(limited.filter((h) => !h.via)).toHaveLength(1);
  });

  it('merges several queries, summing each query’s normalised scores', async () => {
    const single = (await search(['autovacuum'], { links: false })).hits;
    expect(ids(single)).toEqual(['kb-0001']);
    const merged = (await search(['autovacuum', 'append-only log', 'nothingmatches'], { links: false })).hits;
    expect(ids(merged).sort()).toEqual(['kb-0001', 'kb-0002']);
    const both = (await search(['vacuum', 'postgres'], { links: false })).hits;
    expect(both[0]!.id).toBe('kb-0001');
    expect(both[0]!.score).toBeGreaterThan(1);
  });

  it('lists an exact tie of the same age by title, then path, whatever order the files were indexed in', async () => {
    // The ids run against the titles, so neither id nor file order gives the title order.
    put('entries/kb-0009-b.md', { id: 'kb-0009', title: 'Wombat beta', type: 'factual_reference', updated: '2025-01-01' }, 'Numbat.');
    put('entries/kb-000a-a.md', { id: 'kb-000a', title: 'Wombat alpha', type: 'factual_reference', updated: '2025-01-01' }, 'Numbat.');
    put('entries/kb-000b-c.md', { id: 'kb-000b', title: 'Wombat alpha', type: 'factual_reference', updated: '2025-01-01' }, 'Numbat.');
    const r = (await search(['numbat'])).hits;
    expect(new Set(r.map((h) => h.score)).size).toBe(1);
    expect(ids(r)).toEqual(['kb-000a', 'kb-000b', 'kb-0009']);
  });

  it('breaks ties by recency', async () => {
    put('entries/kb-0007-g.md', { id: 'kb-0007', title: 'Quokka facts', type: 'factual_reference', updated: '2025-01-01' }, 'Quokka.');
    put('entries/kb-0008-h.md', { id: 'kb-0008', title: 'Quokka facts', type: 'factual_reference', updated: '2020-01-01' }, 'Quokka.');
    const r = (await search(['quokka'])).hits;
    expect(r[0]!.score).toBe(r[1]!.score);
    expect(ids(r)).toEqual(['kb-0007', 'kb-0008']);
  });

  it('adds 1-hop neighbours of strong hits in both directions, marked with via, honouring filters', async () => {
    const out = (await search(['sourcing'])).hits;
    expect(out[0]!.id).toBe('kb-0002');
    expect(out.find((h) => h.id === 'kb-0001')).toMatchObject({ via: { from: 'kb-0002', rel: 'depends_on' } });
    const back = (await search(['autovacuum'])).hits;
    expect(back.find((h) => h.id === 'kb-0002')).toMatchObject({ via: { from: 'kb-0001', rel: 'depends_on' } });
    expect((await search(['autovacuum'], { type: 'lesson_learned' })).hits.find((h) => h.id === 'kb-0002')).toBeUndefined();
    expect((await search(['autovacuum'], { links: false })).hits.find((h) => h.via)).toBeUndefined();
    // The same through a delta: the linking entry edited since the index was stored.
    put('entries/kb-0002-b.md', { id: 'kb-0002', title: 'Event sourcing decision', type: 'decision', tags: '[architecture]', updated: '2024-04-02' }, 'We keep an append-only log.', 'links:\n  - rel: depends_on\n    to: kb-0001\n');
    const edited = await search(['sourcing']);
    expect(edited.how).toBe('updated');
    expect(edited.hits.find((h) => h.id === 'kb-0001')).toMatchObject({ via: { from: 'kb-0002', rel: 'depends_on' } });
    expect((await search(['autovacuum'])).hits.find((h) => h.id === 'kb-0002')).toMatchObject({ via: { from: 'kb-0001', rel: 'depends_on' } });
  });

  it('linkNeighbours lists outgoing and incoming links', async () => {
    const c = await loadCatalog(dir);
    expect(linkNeighbours(c, 'kb-0001').map((n) => [n.entry.id, n.rel, n.direction])).toEqual([['kb-0002', 'depends_on', 'in']]);
    expect(linkNeighbours(c, 'kb-0002').map((n) => [n.entry.id, n.rel, n.direction])).toEqual([['kb-0001', 'depends_on', 'out']]);
    expect(linkNeighbours(c, 'kb-0404')).toEqual([]);
  });
});
