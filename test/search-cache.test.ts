// The search index cache (src/adapters/index/search.ts: packTree/LazyLeaf) must give exactly the results of a
// freshly built index: after a cold build, after a reload from cache, and after incremental updates (add, edit,
// delete); a cache of another MiniSearch or another version of the term processing is never used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/adapters/index/catalog.js';
import v8 from 'node:v8';
import { loadSearchIndex, MINISEARCH_VERSION, SEARCH_INDEX_VERSION, searchCatalog } from '../src/adapters/index/search.js';
import { stateDir } from '../src/adapters/store/layout.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-search-cache-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const words = ['rebase', 'postgres', 'index', 'vacuum', 'branch', 'merge', 'commit', 'docker', 'volume', 'network', 'react', 'hooks', 'state', 'cache', 'query', 'planner'];
function write(i: number, extra = ''): void {
  const id = `kb-${i.toString(36).padStart(6, '0')}aaaa`;
  const title = `${words[i % 16]} ${words[(i * 7) % 16]} note ${i}`;
  const body = `${words[(i * 3) % 16]} and ${words[(i * 5) % 16]} with ${words[(i * 11) % 16]} ${extra}\n`;
  fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'entries', `${id}-n${i}.md`), `---\nid: ${id}\ntitle: ${title}\ntype: factual_reference\ntags: [${words[(i * 13) % 16]}]\n---\n\n${body}`);
}

async function results(queries: string[][]): Promise<string[][]> {
  const catalog = await loadCatalog(dir);
  const { index } = loadSearchIndex(catalog);
  // Entries with equal scores may come in either order (document order differs after updates): compare every
  // hit with its score, sorted.
  return queries.map((q) =>
    searchCatalog(catalog, index, { queries: q, limit: 1000, links: false })
      .map((h) => `${h.id}:${h.score}`)
      .sort(),
  );
}

async function fresh(queries: string[][]): Promise<string[][]> {
  fs.rmSync(path.join(stateDir(dir), 'search.v8'), { force: true });
  return results(queries);
}

describe('search index cache', () => {
  const queries = [['rebase'], ['postgres vacuum'], ['dock'], ['reac hoks'], ['merge', 'branch'], ['planner query cache']];
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  for (let i = 0; i < 300; i++) write(i);

  it('gives the same results from a cold build and from the cache', async () => {
    const cold = await fresh(queries);
    const cached = await results(queries);
    expect(cached).toEqual(cold);
    expect(cold.every((r) => r.length > 0)).toBe(true);
  });

  it('stays equal to a fresh build through adds, edits and deletes', async () => {
    await results(queries); // make sure a cache exists
    for (let i = 300; i < 310; i++) write(i, 'uniqueword');
    write(5, 'edited uniqueword');
    fs.rmSync(path.join(dir, 'entries', `kb-${(7).toString(36).padStart(6, '0')}aaaa-n7.md`));
    const q = [...queries, ['uniqueword']];
    const updated = await results(q);
    const rebuilt = await fresh(q);
    // The same hits; scores may differ slightly, since an edited or deleted entry's old terms still count in
    // the term statistics until the index is rebuilt (spec/search.md, "Freshness").
    const ids = (r: string[][]) => r.map((l) => l.map((x) => x.split(':')[0]));
    expect(ids(updated)).toEqual(ids(rebuilt));
    for (let i = 0; i < q.length; i++) {
      for (let j = 0; j < updated[i]!.length; j++) {
        expect(Number(updated[i]![j]!.split(':')[1])).toBeCloseTo(Number(rebuilt[i]![j]!.split(':')[1]), 1);
      }
    }
    expect(updated.at(-1)!.length).toBe(11);
    // and once more from the cache the rebuild wrote
    expect(await results(q)).toEqual(rebuilt);
  });

  it('ignores a corrupt cache file and rebuilds', async () => {
    const expected = await fresh(queries);
    fs.writeFileSync(path.join(stateDir(dir), 'search.v8'), Buffer.from('garbage'));
    expect(await results(queries)).toEqual(expected);
  });

  it('keys the cache by the MiniSearch it was written with, which is the one installed', async () => {
    const installed = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', 'minisearch', 'package.json'), 'utf8')) as { version: string };
    expect(MINISEARCH_VERSION).toBe(installed.version);
    await fresh(queries);
    const file = path.join(stateDir(dir), 'search.v8');
    const cache = v8.deserialize(fs.readFileSync(file)) as { v: number; minisearch: string };
    expect([cache.v, cache.minisearch]).toEqual([SEARCH_INDEX_VERSION, MINISEARCH_VERSION]);
    // A cache written by another MiniSearch (its private fields may differ) is rebuilt, not read.
    fs.writeFileSync(file, v8.serialize({ ...cache, minisearch: '0.0.1' }));
    const catalog = await loadCatalog(dir);
    expect(loadSearchIndex(catalog).how).toBe('built');
    expect(loadSearchIndex(catalog).how).toBe('cached');
  });
});
