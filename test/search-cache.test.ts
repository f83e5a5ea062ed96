// The stored search index (src/adapters/index/search-store.ts: a sharded base and a delta) must give exactly the
// results of a freshly built index: after a cold build, after a reload, after incremental updates (add, edit,
// delete) served from the delta, and after the delta is folded into the base; a search that loads only its
// shards must equal one over the whole index; a store of another MiniSearch is never used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { searchStore } from '../src/adapters/index/search.js';
import { addDoc, bulkIndexer, emptyIndex, openSearchStore } from '../src/adapters/index/search-store.js';
import { MINISEARCH_VERSION } from '../src/adapters/index/search-docs.js';
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

/** Each query's hits with their scores, sorted (equal scores may come in either order after updates). */
async function results(queries: string[][], whole = false): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of queries) {
    // Like the CLI: the store opened for the query (only its shards), or whole, like a long-lived process.
    const store = await openSearchStore(dir, whole ? {} : { queries: q });
    out.push(searchStore(store, { queries: q, limit: 1000, links: false }).map((h) => `${h.id}:${h.score}`).sort());
  }
  return out;
}

async function fresh(queries: string[][]): Promise<string[][]> {
  fs.rmSync(path.join(stateDir(dir), 'search.v9'), { force: true });
  fs.rmSync(path.join(stateDir(dir), 'search-delta.v9'), { force: true });
  return results(queries);
}

const base = () => path.join(stateDir(dir), 'search.v9');
const delta = () => path.join(stateDir(dir), 'search-delta.v9');

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
    fs.writeFileSync(base(), Buffer.from('garbage'));
    expect(await results(queries)).toEqual(expected);
  });

  it('a search that reads only its shards equals one over the whole index, from the base and from a delta', async () => {
    const q = [...queries, ['rebase postgres vacuum docker'], ['uniqueword edited']];
    await fresh(q);
    expect(await results(q)).toEqual(await results(q, true));
    write(42, 'edited uniqueword rebase');
    write(400, 'uniqueword');
    expect(fs.existsSync(delta())).toBe(false);
    const scoped = await results(q);
    expect(fs.existsSync(delta())).toBe(true);
    expect(scoped).toEqual(await results(q, true));
  });

  it('folds a large delta into the base, and still equals a fresh build', async () => {
    await fresh(queries);
    for (let i = 500; i < 800; i++) write(i, 'foldword');
    const q = [...queries, ['foldword']];
    const folded = await results(q);
    // Folded: the base holds them (a delta may be left that records only the folders' settled names key).
    expect(fs.existsSync(delta()) ? (v8.deserialize(fs.readFileSync(delta())) as { files: unknown[] }).files : []).toEqual([]);
    const ids = (r: string[][]) => r.map((l) => l.map((x) => x.split(':')[0]));
    const rebuilt = await fresh(q);
    expect(ids(folded)).toEqual(ids(rebuilt));
    expect(folded.at(-1)!.length).toBe(300);
  });

  it('ignores a corrupt delta and a delta of another base', async () => {
    await fresh(queries);
    write(900, 'deltaword');
    const q = [['deltaword'], ...queries];
    const good = await results(q);
    fs.writeFileSync(delta(), Buffer.from('garbage'));
    expect(await results(q)).toEqual(good);
    expect(good[0]!.length).toBe(1);
  });

  it('indexes a document exactly as MiniSearch.add does (addDoc, one tree walk per distinct term)', async () => {
    const docs = [
      { path: 'entries/a.md', text: 'Rebase rebase REBASE onto main\nrebase onto main\nThe branches are rebased; indexes, indexing and index.' },
      { path: 'entries/b.md', text: 'Postgres vacuum\nvacuum full locks the table; autovacuum tuning for postgres 16' },
      { path: 'entries/c.md', text: '' },
    ];
    const theirs = emptyIndex();
    const ours = emptyIndex();
    for (const d of docs) {
      theirs.add(d);
      addDoc(ours, d);
    }
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
    expect(() => addDoc(ours, docs[0]!)).toThrow(/duplicate/);
    // in bulk (a rebuild): the same index, and it takes documents one by one afterwards like any other
    const bulkOurs = emptyIndex();
    const bulk = bulkIndexer(bulkOurs);
    for (const d of docs) bulk.add(d);
    await bulk.finish();
    expect(JSON.stringify(bulkOurs)).toBe(JSON.stringify(theirs));
    const more = { path: 'entries/d.md', text: 'rebase the postgres branch' };
    theirs.add(more);
    addDoc(bulkOurs, more);
    expect(JSON.stringify(bulkOurs)).toBe(JSON.stringify(theirs));
    expect(bulkOurs.search('rebase postgres')).toEqual(theirs.search('rebase postgres'));
    expect(() => bulkIndexer(bulkOurs)).toThrow(/has terms already/);
  });

  it('indexes a document given in parts (each with its repeat count) as the lines of its docText joined', async () => {
    const docs: { path: string; parts: [string, number][] }[] = [
      { path: 'entries/a.md', parts: [['Rebase onto main', 3], ['git rebase', 2], ['The branches are rebased; rebase again. Ελληνικά ΟΔΟΣ', 1]] },
      { path: 'entries/b.md', parts: [['Postgres vacuum', 3], ["it's autovacuum tuning for postgres 16 and a-word-far-longer-than-forty-characters-in-one-token", 1]] },
      { path: 'entries/c.md', parts: [['Only a title', 3], ['', 1]] },
    ];
    const joined = emptyIndex();
    const parted = emptyIndex();
    const a = bulkIndexer(joined);
    const b = bulkIndexer(parted);
    for (const d of docs) {
      a.add({ path: d.path, text: d.parts.flatMap(([t, n]) => Array.from({ length: n }, () => t)).join('\n') });
      b.add(d);
    }
    await a.finish();
    await b.finish();
    expect(JSON.stringify(parted)).toBe(JSON.stringify(joined));
    expect(parted.search('rebase postgres')).toEqual(joined.search('rebase postgres'));
  });

  it('keys the store by the MiniSearch it was written with, which is the one installed', async () => {
    const installed = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', 'minisearch', 'package.json'), 'utf8')) as { version: string };
    expect(MINISEARCH_VERSION).toBe(installed.version);
    await fresh(queries);
    const text = fs.readFileSync(base(), 'latin1');
    expect(text).toContain(`"minisearch":"${MINISEARCH_VERSION}"`);
    // A store written by another MiniSearch (its private fields may differ) is rebuilt, not read.
    fs.writeFileSync(base(), text.replace(`"minisearch":"${MINISEARCH_VERSION}"`, '"minisearch":"0.0.0"'), 'latin1');
    expect((await openSearchStore(dir, { queries: ['rebase'] })).how).toBe('built');
    expect((await openSearchStore(dir, { queries: ['rebase'] })).how).toBe('cached');
  });
});
