/**
 * Contract: full-text search of spec/cli.md, "search". MiniSearch options live here and only here. The index is
 * derived from the catalog and cached in `.git/git-kb/search.v8`; it is brought up to date (only the changed
 * entries re-indexed) whenever the catalog's fingerprint differs, so a stale index is never served.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Catalog, CatalogItem, EntryMeta } from './catalog.js';
import { rememberWarm, warmValue } from './warm.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { readEntryText, stateDir } from '../store/layout.js';
import { bodyOf } from '../../core/format/fence.js';
import { readableLinks } from '../../core/format/links.js';
import { SEARCH_TERMS, termOf, terms, tokenize } from '../../core/text/terms.js';
import { isoAtLeast } from '../../core/format/since.js';
import { decayFactor, type DecaySettings } from '../../core/decay.js';

/** MiniSearch's term processing, for indexing and querying alike: terms.ts under SEARCH_TERMS, token by token. */
export function processTerm(term: string): string | null {
  return termOf(term.toLowerCase(), SEARCH_TERMS) ?? null;
}

function tokenizeText(text: string): string[] {
  return tokenize(text, SEARCH_TERMS.numbers);
}

/** The ranking knobs of search (spec/search.md, "Ranking"); one set for a repo of any size. */
export const RANKING = {
  /**
   * How many times each field is repeated in the one indexed text (the body once): BM25F's weighted term
   * frequencies, with one length normalisation over the weighted length. NOTE: measured against MiniSearch's
   * per-field scoring with boosts (each field saturated and normalised alone, with its own IDF), which let a
   * word rare in titles outweigh a note that matches the query throughout; one field won on both corpora.
   */
  repeat: { title: 3, aliases: 3, tags: 2, host: 2, url: 1 },
  /** MiniSearch's BM25+ parameters (d 0: plain BM25; the coverage factor below rewards matching more terms). */
  bm25: { k: 1.2, b: 0.9, d: 0 },
  /** Weight of a prefix and of a fuzzy expansion against an exact match (1). */
  prefixWeight: 0.05,
  fuzzyWeight: 0.05,
  /** Queries of more than this many terms get no fuzzy expansion. */
  fuzzyMaxTerms: 5,
  /** Least length of a term expanded as a prefix (the last term of a query always is). */
  prefixMinLength: 4,
  /** What a query term matched only through an expansion counts for in the coverage factor (exact: 1). */
  expansionCoverage: 0.5,
  /** The coverage factor is (query terms matched)^coveragePower (MiniSearch's own factor is the plain count). */
  coveragePower: 1,
};

/**
 * A MiniSearch result's score with its coverage factor recomputed: MiniSearch multiplies by the number of query
 * terms matched, an exact match and a prefix or fuzzy one alike; here a term matched only through an expansion
 * counts for RANKING.expansionCoverage, so a long note that matches many terms loosely does not crowd out the
 * note that matches them exactly.
 */
function rescore(r: SearchResult, exact: ReadonlySet<string>): number {
  const matched = Object.keys(r.match);
  let exactCount = 0;
  for (const t of r.queryTerms) if (exact.has(t) && matched.includes(t)) exactCount++;
  const coverage = exactCount + RANKING.expansionCoverage * (r.queryTerms.length - exactCount);
  return (r.score / Math.max(1, r.queryTerms.length)) * Math.pow(coverage, RANKING.coveragePower);
}

/** MiniSearch search options for a query of `count` terms. */
function queryOptions(count: number) {
  const r = RANKING;
  return {
    bm25: r.bm25,
    weights: { prefix: r.prefixWeight, fuzzy: r.fuzzyWeight },
    // The last term may be unfinished; longer terms also match as prefixes ("migrat" finds "migrations").
    prefix: (term: string, i: number, all: string[]) => i === all.length - 1 || term.length >= r.prefixMinLength,
    fuzzy: (term: string) => (count <= r.fuzzyMaxTerms && term.length >= 5 ? 0.2 : false),
    maxFuzzy: 2,
  };
}

function indexOptions() {
  return { idField: 'path', fields: ['text'], storeFields: [] as string[], tokenize: tokenizeText, processTerm, autoVacuum: false as const };
}

interface IndexDoc {
  path: string;
  /** Title, aliases, tags, host, url and body in one, each repeated RANKING.repeat times (the body once). */
  text: string;
}

/** Bump when the index shape or the term processing (core/text/terms.ts) changes. */
export const SEARCH_INDEX_VERSION = 5;
/**
 * The MiniSearch this code is built with (checked against node_modules by test/search-cache.test.ts). It is part
 * of the cache key, because the cache holds MiniSearch's private fields (see saveState).
 */
export const MINISEARCH_VERSION = '7.2.0';

interface IndexCache {
  v: number;
  minisearch: string;
  fingerprint: string;
  sigs: Map<string, string>;
  state: Record<string, unknown>;
}

function sig(item: CatalogItem): string {
  return `${item.mtimeMs}:${item.ctimeMs}:${item.size}:${item.ino}`;
}

function readBody(dir: string, p: string): string {
  try {
    return readableLinks(bodyOf(readEntryText(dir, p)));
  } catch {
    return '';
  }
}

function toDoc(dir: string, e: EntryMeta, p: string): IndexDoc {
  const r = RANKING.repeat;
  const rep = (text: string, n: number): string[] => (text ? Array.from({ length: n }, () => text) : []);
  const parts = [...rep(e.title, r.title), ...rep(e.aliases.join(' '), r.aliases), ...rep(e.tags.join(' '), r.tags), ...rep(e.host ?? '', r.host), ...rep(e.url ?? '', r.url), readBody(dir, p)];
  return { path: p, text: parts.join('\n') };
}

// The term tree of MiniSearch is a radix tree of Maps whose leaf data sits under the key '' as
// Map<fieldId, Map<docShortId, termFrequency>>. At 10,000 notes that is 600,000 tiny Map entries, and rebuilding
// them is most of the cost of loading an index. So the cache stores the tree with each leaf replaced by an offset
// into one Uint32Array of postings, and a loaded leaf becomes a LazyLeaf: a real Map that fills itself from the
// postings the first time anything touches it. A search touches a few dozen leaves, not 14,000.
const LEAF = '';
type Tree = Map<string, unknown>;

/** A leaf of the term tree that decodes its postings on first use; after that it is an ordinary Map. */
class LazyLeaf extends Map<number, Map<number, number>> {
  private pending: { postings: Uint32Array; offset: number } | undefined;

  constructor(postings: Uint32Array, offset: number) {
    super();
    this.pending = { postings, offset };
  }

  /** The undecoded postings, while the leaf is untouched (saved back without decoding). */
  get raw(): { postings: Uint32Array; offset: number } | undefined {
    return this.pending;
  }

  private fill(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const { postings } = p;
    let i = p.offset;
    const fields = postings[i++]!;
    for (let f = 0; f < fields; f++) {
      const fieldId = postings[i++]!;
      const n = postings[i++]!;
      const docs = new Map<number, number>();
      for (let d = 0; d < n; d++, i += 2) docs.set(postings[i]!, postings[i + 1]!);
      super.set(fieldId, docs);
    }
  }

  override get size(): number {
    this.fill();
    return super.size;
  }
  override get(k: number) {
    this.fill();
    return super.get(k);
  }
  override set(k: number, v: Map<number, number>) {
    this.fill();
    return super.set(k, v);
  }
  override has(k: number) {
    this.fill();
    return super.has(k);
  }
  override delete(k: number) {
    this.fill();
    return super.delete(k);
  }
  override clear() {
    this.pending = undefined;
    super.clear();
  }
  override forEach(cb: (v: Map<number, number>, k: number, m: Map<number, Map<number, number>>) => void, thisArg?: unknown) {
    this.fill();
    super.forEach(cb, thisArg);
  }
  override entries() {
    this.fill();
    return super.entries();
  }
  override keys() {
    this.fill();
    return super.keys();
  }
  override values() {
    this.fill();
    return super.values();
  }
  override [Symbol.iterator]() {
    this.fill();
    return super[Symbol.iterator]();
  }
}

/** Replaces each leaf of the term tree by an offset into one postings array (see LazyLeaf). */
function packTree(tree: Tree): { tree: Tree; postings: Uint32Array } {
  const out: number[] = [];
  const walk = (node: Tree): Tree => {
    const copy: Tree = new Map();
    for (const [key, value] of node) {
      if (key !== LEAF) {
        copy.set(key, walk(value as Tree));
        continue;
      }
      copy.set(LEAF, out.length);
      const raw = value instanceof LazyLeaf ? value.raw : undefined;
      if (raw) {
        // Untouched since loading: copy its postings as they are.
        let i = raw.offset;
        const fields = raw.postings[i++]!;
        let end = i;
        for (let f = 0; f < fields; f++) end += 2 + 2 * raw.postings[end + 1]!;
        for (let j = raw.offset; j < end; j++) out.push(raw.postings[j]!);
        continue;
      }
      const leaf = value as Map<number, Map<number, number>>;
      out.push(leaf.size);
      for (const [fieldId, docs] of leaf) {
        out.push(fieldId, docs.size);
        for (const [doc, freq] of docs) out.push(doc, freq);
      }
    }
    return copy;
  };
  const packed = walk(tree);
  return { tree: packed, postings: Uint32Array.from(out) };
}

function unpackTree(tree: Tree, postings: Uint32Array): Tree {
  const walk = (node: Tree): void => {
    for (const [key, value] of node) {
      if (key === LEAF) node.set(LEAF, new LazyLeaf(postings, value as number));
      else walk(value as Tree);
    }
  };
  walk(tree);
  return tree;
}

// ---------------------------------------------------------------------------------------------------------
// NOTE: the only code that touches MiniSearch's private fields. MiniSearch.loadJSON rebuilds every Map of the term
// tree on each load (see LazyLeaf): measured on the 1,871 notes of bench/search-quality.mjs, a load and one search
// took 56 ms that way against 20 ms here. These two functions save and restore the fields as they are, the tree
// packed. A MiniSearch release may rename them: the cache key holds MINISEARCH_VERSION, and a state that does not
// fit is rebuilt, never used.
const MINISEARCH_STATE_KEYS = ['_index', '_documentCount', '_documentIds', '_idToShortId', '_fieldIds', '_fieldLength', '_avgFieldLength', '_nextId', '_storedFields', '_dirtCount'] as const;

/** The state of an index to cache: MiniSearch's fields, the term tree packed. */
function saveState(index: MiniSearch<IndexDoc>): Record<string, unknown> {
  const raw = index as unknown as Record<string, unknown>;
  const state: Record<string, unknown> = {};
  for (const k of MINISEARCH_STATE_KEYS) state[k] = raw[k];
  state._index = packTree((raw._index as { _tree: Tree })._tree);
  return state;
}

/** An index from a cached state; throws when the state does not fit this MiniSearch. */
function restoreState(state: Record<string, unknown>): MiniSearch<IndexDoc> {
  const ms = new MiniSearch<IndexDoc>(indexOptions());
  const target = ms as unknown as Record<string, unknown>;
  const SearchableMap = (target._index as object).constructor as new (tree: unknown, prefix: string) => unknown;
  for (const k of MINISEARCH_STATE_KEYS) {
    if (!(k in target)) throw new Error(`search cache: MiniSearch has no field ${k}`);
    target[k] = state[k];
  }
  const { tree, postings } = state._index as { tree: Tree; postings: Uint32Array };
  if (!(tree instanceof Map) || !(postings instanceof Uint32Array)) throw new Error('search cache: unexpected index shape');
  target._index = new SearchableMap(unpackTree(tree, postings), '');
  return ms;
}
// ---------------------------------------------------------------------------------------------------------

/** A search index in memory, with how it was obtained (for benchmarks and debugging). */
export interface LoadedIndex {
  index: MiniSearch<IndexDoc>;
  how: 'cached' | 'updated' | 'built';
}

/** The search index of a catalog: the one a long-lived process keeps (warm.ts) while nothing changed, else loadIndexState's. */
export function loadSearchIndex(catalog: Catalog): LoadedIndex {
  const name = `search:${catalog.fingerprint}`;
  const kept = warmValue<MiniSearch<IndexDoc>>(catalog.dir, name);
  if (kept) return { index: kept, how: 'cached' };
  const loaded = loadIndexState(catalog);
  rememberWarm(catalog.dir, name, loaded.index);
  return loaded;
}

/** Loads the search index for a catalog: from cache, updated in place, or built from scratch. */
function loadIndexState(catalog: Catalog): LoadedIndex {
  const dir = catalog.dir;
  const file = path.join(stateDir(dir), 'search.v8');
  let cache: IndexCache | undefined;
  try {
    const c = v8.deserialize(fs.readFileSync(file)) as IndexCache;
    if (c?.v === SEARCH_INDEX_VERSION && c.minisearch === MINISEARCH_VERSION && c.sigs instanceof Map) cache = c;
  } catch {
    cache = undefined;
  }
  const servable = catalog.items.filter((i) => i.entry);
  let restored: MiniSearch<IndexDoc> | undefined;
  try {
    restored = cache && restoreState(cache.state);
  } catch {
    restored = undefined; // a state this MiniSearch cannot take: rebuilt below
  }
  if (restored && cache!.fingerprint === catalog.fingerprint) return { index: restored, how: 'cached' };
  let index: MiniSearch<IndexDoc>;
  let how: LoadedIndex['how'];
  const sigs = new Map<string, string>();
  if (restored && cache) {
    index = restored;
    how = 'updated';
    const now = new Map(servable.map((i) => [i.path, i]));
    for (const [p, s] of cache.sigs) {
      const item = now.get(p);
      if (!item || sig(item) !== s) index.discard(p);
    }
    for (const item of servable) {
      const s = sig(item);
      if (cache.sigs.get(item.path) !== s) index.add(toDoc(dir, item.entry!, item.path));
      sigs.set(item.path, s);
    }
    // NOTE: discarded documents leave dead terms behind; past a quarter of the index, rebuild instead.
    if (index.dirtCount > Math.max(200, index.documentCount / 4)) {
      index = new MiniSearch<IndexDoc>(indexOptions());
      index.addAll(servable.map((i) => toDoc(dir, i.entry!, i.path)));
      how = 'built';
    }
  } else {
    index = new MiniSearch<IndexDoc>(indexOptions());
    index.addAll(servable.map((i) => toDoc(dir, i.entry!, i.path)));
    for (const item of servable) sigs.set(item.path, sig(item));
    how = 'built';
  }
  try {
    const cached: IndexCache = { v: SEARCH_INDEX_VERSION, minisearch: MINISEARCH_VERSION, fingerprint: catalog.fingerprint, sigs, state: saveState(index) };
    writeFileAtomic(file, v8.serialize(cached), { fsync: false });
  } catch {
    // a read-only repo still searches; it rebuilds next time
  }
  return { index, how };
}

/** Search filters and limits. */
export interface SearchOptions {
  queries: string[];
  /** Host keys whose facts are never surfaced (forbidden hosts). */
  hideHosts?: Set<string>;
  type?: string;
  tag?: string;
  host?: string;
  since?: string;
  limit?: number;
  /** Follow links one hop from the strongest hits (default true). */
  links?: boolean;
  /** Older entries of decaying types rank lower (spec/memory.md, "Decay"); absent: no decay. */
  decay?: DecaySettings;
  /** The time ages are counted at (epoch ms; default now). */
  now?: number;
}

/** One search result, as `search --json` prints it. */
export interface SearchHit {
  id: string;
  title: string;
  type: string;
  tags: string[];
  path: string;
  score: number;
  snippet: string;
  /** Set on a result reached through a link from a strong hit rather than by its own text. */
  via?: { from: string; rel: string };
}

/** The query's terms after the same processing the index uses (for snippets and highlighting). */
export function queryTerms(query: string): string[] {
  return terms(query, SEARCH_TERMS);
}

/** A one-line snippet of about `width` characters around the densest cluster of query terms. */
export function makeSnippet(body: string, terms: string[], width = 160): string {
  const text = body.replace(/^#+\s.*$/m, '').replace(/```[\s\S]*?```/g, (m) => m.replace(/\s+/g, ' ')).replace(/\s+/g, ' ').trim();
  if (text.length <= width) return text;
  const lower = text.toLowerCase();
  // NOTE: a stem keeps its word's final e ("rebase"); the text may hold "rebasing", so the e is not looked for.
  const needles = terms.map((t) => (t.length > 4 && t.endsWith('e') ? t.slice(0, -1) : t));
  let best = 0;
  let bestScore = -1;
  const positions: number[] = [];
  for (const t of needles) {
    for (let i = lower.indexOf(t); i !== -1 && positions.length < 500; i = lower.indexOf(t, i + 1)) positions.push(i);
  }
  positions.sort((a, b) => a - b);
  for (const p of positions) {
    const start = Math.max(0, p - 40);
    const window = lower.slice(start, start + width);
    const score = needles.filter((t) => window.includes(t)).length;
    if (score > bestScore) {
      bestScore = score;
      best = start;
    }
  }
  let start = best;
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space !== -1 && space - start < 20 ? space + 1 : start;
  }
  const cut = text.slice(start, start + width);
  const end = cut.lastIndexOf(' ') > width - 30 ? cut.slice(0, cut.lastIndexOf(' ')) : cut;
  return `${start > 0 ? '…' : ''}${end}${start + width < text.length ? '…' : ''}`;
}

function matchesFilters(e: EntryMeta, o: SearchOptions): boolean {
  if (e.host && o.hideHosts?.has(e.host)) return false;
  if (o.type && e.type !== o.type) return false;
  if (o.tag && !e.tags.some((t) => t.toLowerCase() === o.tag!.toLowerCase())) return false;
  if (o.host && e.host !== o.host) return false;
  if (o.since && !isoAtLeast(e.updated ?? e.created, o.since)) return false;
  return true;
}

/**
 * Runs every query, merges them (each query's scores normalised to its best hit, then summed, so entries that
 * several phrasings find rise), multiplies each by its decay factor (older entries of decaying types lower, never
 * below the floor), breaks ties by recency, adds 1-hop link neighbours of the strongest hits, and
 * attaches snippets.
 */
export function searchCatalog(catalog: Catalog, index: MiniSearch<IndexDoc>, options: SearchOptions): SearchHit[] {
  const byPath = new Map(catalog.items.filter((i) => i.entry).map((i) => [i.path, i.entry!]));
  const limit = options.limit ?? 10;
  const merged = new Map<string, number>();
  const allTerms = new Set<string>();
  for (const q of options.queries) {
    const terms = queryTerms(q);
    terms.forEach((t) => allTerms.add(t));
    if (terms.length === 0) continue;
    const results: SearchResult[] = index.search(q, {
      ...queryOptions(terms.length),
      filter: (r) => {
        const e = byPath.get(r.id as string);
        return !!e && matchesFilters(e, options);
      },
    });
    const exact = new Set(terms);
    const scored = results.map((r) => ({ id: r.id as string, score: rescore(r, exact) }));
    const top = Math.max(...scored.map((r) => r.score), 0) || 1;
    for (const r of scored) merged.set(r.id, (merged.get(r.id) ?? 0) + r.score / top);
  }
  const recency = (e: EntryMeta): string => e.updated ?? e.created ?? '';
  const now = options.now ?? Date.now();
  const decay = options.decay;
  const weight = (e: EntryMeta): number => (decay ? decayFactor({ ...e, evergreen: e.data.evergreen }, decay, now) : 1);
  const ranked = [...merged]
    .map(([p, score]) => ({ p, score: score * weight(byPath.get(p)!), e: byPath.get(p)! }))
    .sort((a, b) => b.score - a.score || (recency(a.e) < recency(b.e) ? 1 : recency(a.e) > recency(b.e) ? -1 : 0));
  const hits: SearchHit[] = ranked.slice(0, limit).map(({ p, score, e }) => ({ id: e.id, title: e.title, type: e.type, tags: e.tags, path: p, score: round(score), snippet: '' }));
  if (options.links !== false && hits.length > 0) {
    const seen = new Set(hits.map((h) => h.id));
    const strong = hits.filter((h) => h.score >= hits[0]!.score * 0.5).slice(0, 3);
    const neighbours: SearchHit[] = [];
    for (const h of strong) {
      for (const n of linkNeighbours(catalog, h.id)) {
        if (seen.has(n.entry.id) || !matchesFilters(n.entry, options)) continue;
        seen.add(n.entry.id);
        neighbours.push({ id: n.entry.id, title: n.entry.title, type: n.entry.type, tags: n.entry.tags, path: n.entry.path, score: round(h.score * 0.3), snippet: '', via: { from: h.id, rel: n.rel } });
      }
    }
    hits.push(...neighbours.slice(0, Math.max(3, Math.floor(limit / 2))));
  }
  const terms = [...allTerms];
  for (const h of hits) h.snippet = makeSnippet(readBody(catalog.dir, h.path), terms);
  return hits;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** One neighbour of an entry across a link, in either direction (`rel` is as stored, `direction` says which). */
export interface Neighbour {
  entry: EntryMeta;
  rel: string;
  direction: 'out' | 'in';
}

/** The 1-hop neighbours of an entry: its links (front matter and `[[id]]` in the body is not tracked here) and the entries linking to it. */
export function linkNeighbours(catalog: Catalog, id: string): Neighbour[] {
  const out: Neighbour[] = [];
  const self = catalog.byId.get(id);
  if (!self) return out;
  for (const l of self.links) {
    const target = catalog.byId.get(l.to);
    if (target) out.push({ entry: target, rel: l.rel, direction: 'out' });
  }
  for (const e of catalog.byId.values()) {
    if (e.id === id) continue;
    for (const l of e.links) if (l.to === id) out.push({ entry: e, rel: l.rel, direction: 'in' });
  }
  return out;
}
