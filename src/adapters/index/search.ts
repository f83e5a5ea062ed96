/**
 * Contract: full-text search of spec/cli.md, "search": the ranking and the query. MiniSearch's search options
 * live here and only here; what is indexed and how the index is stored and proved current is search-store.ts.
 */
import type { SearchResult } from 'minisearch';
import type { Catalog, EntryMeta } from './catalog.js';
import { BODY_REL, FIELD_REPEAT, readBody, type SearchMeta } from './search-docs.js';
import type { SearchStore } from './search-store.js';
import { SEARCH_TERMS, terms } from '../../core/text/terms.js';
import { foldLatin } from '../../core/text/fold.js';
import { isoAtLeast } from '../../core/format/since.js';
import { decayFactor, freshestDecay, halfLifeOf, relativeDecay, type DecaySettings } from '../../core/decay.js';

/** The ranking knobs of search (spec/search.md, "Ranking"); one set for a repo of any size. */
export const RANKING = {
  /** How many times each field is repeated in the one indexed text (search-store.ts, FIELD_REPEAT). */
  repeat: FIELD_REPEAT,
  /** MiniSearch's BM25+ parameters (d 0: plain BM25; the coverage factor below rewards matching more terms). */
  bm25: { k: 1.2, b: 1, d: 0 },
  /** Weight of a prefix and of a fuzzy expansion against an exact match (1). */
  prefixWeight: 0.05,
  fuzzyWeight: 0.05,
  /** Queries of more than this many terms get no fuzzy expansion. */
  fuzzyMaxTerms: 5,
  /** Least length of a term expanded as a prefix (the last term of a query always is). */
  prefixMinLength: 4,
  /**
   * The coverage factor is (query terms matched)^coveragePower, a term matched through an expansion counting like
   * an exact one. MiniSearch's own factor is the plain count (1), on top of a BM25 sum that already grows with
   * each term matched: a note matching four common words of a long query ("list", "service", "server",
   * "without") then doubled the note matching two specific ones. The power 0.3 keeps a reward for matching more
   * of the query, below the square root's: with a raw prompt as the query (a dozen words or more), a long page
   * that lists many topics matched most of them and outranked the short page that answers (spec/search.md).
   */
  coveragePower: 0.3,
};

/** A MiniSearch result's score with its coverage factor (the count of query terms matched) raised to RANKING.coveragePower. */
export function rescore(r: SearchResult): number {
  const matched = Math.max(1, r.queryTerms.length);
  return (r.score / matched) * Math.pow(matched, RANKING.coveragePower);
}

/** MiniSearch search options for a query of `count` terms. */
export function queryOptions(count: number) {
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

/** Search filters and limits. */
export interface SearchOptions {
  queries: string[];
  /** Host keys whose facts are never surfaced (forbidden hosts). */
  hideHosts?: { has(host: string): boolean; readonly size: number };
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
  /** The type git-kb serves it as (and --type filters on). */
  type: string;
  /** The type as written, when it is not one git-kb knows (`type` is then factual_reference; spec/cli.md, `list`). */
  type_written?: string;
  tags: string[];
  path: string;
  score: number;
  snippet: string;
  /** Set on a result reached through a link from a strong hit rather than by its own text. */
  via?: { from: string; rel: string };
  /** Set on a session summary whose turn log matched too: the turn and the piece (app/search.ts). */
  turn?: { n: number; anchor: string; kind: string; tool?: string };
}

/** The query's terms after the same processing the index uses (for snippets and highlighting). */
export function queryTerms(query: string): string[] {
  return terms(query, SEARCH_TERMS);
}

/**
 * `text` folded and lower-cased as the term pipeline reads it (core/text/fold.ts), and for each of its characters
 * the offset in `text` it comes from (undefined for ASCII text, where the two are one).
 */
function foldedLower(text: string): { lower: string; at?: number[] } {
  if (/^[\x00-\x7f]*$/.test(text)) return { lower: text.toLowerCase() };
  let lower = '';
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    const f = foldLatin(ch).toLowerCase();
    lower += f;
    for (let k = 0; k < f.length; k++) at.push(i);
    i += ch.length;
  }
  return { lower, at };
}

/** A one-line snippet of about `width` characters around the densest cluster of query terms. */
export function makeSnippet(body: string, terms: string[], width = 160): string {
  const text = body.replace(/^#+\s.*$/m, '').replace(/```[\s\S]*?```/g, (m) => m.replace(/\s+/g, ' ')).replace(/\s+/g, ' ').trim();
  if (text.length <= width) return text;
  // The text as terms are made (folded, lower case: "Café" holds "cafe"), with where each of its characters is.
  const { lower, at } = foldedLower(text);
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
  let start = at ? at[best]! : best;
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space !== -1 && space - start < 20 ? space + 1 : start;
  }
  const cut = text.slice(start, start + width);
  const end = cut.lastIndexOf(' ') > width - 30 ? cut.slice(0, cut.lastIndexOf(' ')) : cut;
  return `${start > 0 ? '…' : ''}${end}${start + width < text.length ? '…' : ''}`;
}

/** The fields the filters look at. */
type Filterable = Pick<SearchMeta, 'host' | 'type' | 'tags' | 'updated' | 'created'>;

function matchesFilters(e: Filterable, o: SearchOptions): boolean {
  if (e.host && o.hideHosts?.has(e.host)) return false;
  if (o.type && e.type !== o.type) return false;
  if (o.tag && !e.tags.some((t) => t.toLowerCase() === o.tag!.toLowerCase())) return false;
  if (o.host && e.host !== o.host) return false;
  if (o.since && !isoAtLeast(e.updated ?? e.created, o.since)) return false;
  return true;
}

function filtering(o: SearchOptions): boolean {
  return !!(o.hideHosts?.size || o.type || o.tag || o.host || o.since);
}

/**
 * Runs every query, merges them (each query's scores normalised to its best hit, then summed, so entries that
 * several phrasings find rise), multiplies each by its decay multiplier relative to the freshest decaying entry
 * among the best `limit` (core/decay.ts: an older lesson gives way to a newer one), breaks ties by recency, adds 1-hop link neighbours of the strongest hits, and
 * attaches snippets.
 */
export function searchStore(store: SearchStore, options: SearchOptions): SearchHit[] {
  return searchCounted(store, options).hits;
}

/**
 * searchStore's hits, with `total`: how many entries the queries matched (after the filters), of which the hits
 * hold the best `limit` (the link neighbours they also hold are not counted).
 */
export function searchCounted(store: SearchStore, options: SearchOptions): { hits: SearchHit[]; total: number } {
  const limit = options.limit ?? 10;
  const merged = new Map<string, number>();
  const allTerms = new Set<string>();
  const filter = filtering(options) ? (r: SearchResult) => {
    const e = store.meta(r.id as string);
    return !!e && matchesFilters(e, options);
  } : undefined;
  store.scoped(options.queries, () => {
    for (const q of options.queries) {
      const terms = queryTerms(q);
      terms.forEach((t) => allTerms.add(t));
      if (terms.length === 0) continue;
      const results: SearchResult[] = store.index.search(q, { ...queryOptions(terms.length), ...(filter ? { filter } : {}) });
      const scored = results.map((r) => ({ id: r.id as string, score: rescore(r) }));
      const top = Math.max(...scored.map((r) => r.score), 0) || 1;
      for (const r of scored) merged.set(r.id, (merged.get(r.id) ?? 0) + r.score / top);
    }
  });
  const recency = (e: SearchMeta): string => e.updated ?? e.created ?? '';
  const now = options.now ?? Date.now();
  const decay = options.decay;
  const decaying = !!decay?.enabled && decay.floor < 1;
  // NOTE: a relative decay multiplier is at most 1, so once the raw scores (best first) fall below the limit-th
  // decayed score, no later entry can enter the top: only those before are read and decayed.
  const raw = [...merged].sort((a, b) => b[1] - a[1]);
  // Decay is relative to the freshest decaying entry among the top `limit` by score (core/decay.ts relativeDecay).
  const factorOf = (e: SearchMeta): number | undefined => (halfLifeOf(e, decay!) > 0 ? decayFactor(e, decay!, now) : undefined);
  const freshest = decaying ? freshestDecay(raw.slice(0, limit).map(([p]) => store.meta(p)).flatMap((e) => (e ? [factorOf(e)] : []))) : 1;
  const ranked: { p: string; score: number; e: SearchMeta }[] = [];
  let rowless = 0;
  const best: number[] = []; // the `limit` best decayed scores so far, best first
  for (const [p, score] of raw) {
    if (best.length >= limit && score < best[limit - 1]!) break;
    const e = store.meta(p);
    if (!e) {
      rowless++;
      continue;
    }
    const s = score * (decaying ? relativeDecay(factorOf(e), freshest) : 1);
    ranked.push({ p, score: s, e });
    let at = best.length;
    while (at > 0 && best[at - 1]! < s) at--;
    best.splice(at, 0, s);
    if (best.length > limit) best.pop();
  }
  // Equal scores: the newer first, then by title and path, so that an exact tie (two pages alike in length and in
  // the words matched) reads the same on every clone and after every rebuild, whatever order the index holds them in.
  const order = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  ranked.sort((a, b) => b.score - a.score || order(recency(b.e), recency(a.e)) || order(a.e.title, b.e.title) || order(a.p, b.p));
  const hits: SearchHit[] = ranked.slice(0, limit).map(({ p, score, e }) => ({ id: e.id, title: e.title, type: e.type, ...(e.type_written !== undefined ? { type_written: e.type_written } : {}), tags: e.tags, path: p, score: round(score), snippet: '' }));
  if (options.links !== false && hits.length > 0) {
    const seen = new Set(hits.map((h) => h.id));
    const strong = hits.filter((h) => h.score >= hits[0]!.score * 0.5).slice(0, 3);
    const neighbours: SearchHit[] = [];
    const linkers = store.linkers();
    for (const h of strong) {
      for (const n of neighboursOf(store.meta(h.path), (id) => store.byId(id), linkers)) {
        if (seen.has(n.entry.id) || !matchesFilters(n.entry, options)) continue;
        seen.add(n.entry.id);
        neighbours.push({ id: n.entry.id, title: n.entry.title, type: n.entry.type, ...(n.entry.type_written !== undefined ? { type_written: n.entry.type_written } : {}), tags: n.entry.tags, path: n.entry.path, score: round(h.score * 0.3), snippet: '', via: { from: h.id, rel: n.rel } });
      }
    }
    hits.push(...neighbours.slice(0, Math.max(3, Math.floor(limit / 2))));
  }
  const terms = [...allTerms];
  for (const h of hits) h.snippet = makeSnippet(readBody(store.dir, h.path), terms);
  // NOTE: every document of the index is a servable entry with a row and the filters ran inside the search, so
  // each merged path is one match (one the ranking met without a row is taken off; no more rows are read for it).
  const total = merged.size - rowless;
  return { hits, total };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** What neighbours are found among: an entry's id, its typed links, and the entries its body links to. */
interface Linked {
  id: string;
  links: { rel: string; to: string }[];
  bodyLinks?: string[];
}

/** An entry's edges: typed links, then body links (rel BODY_REL). Search rows carry both in `links` already. */
function edgesOf(e: Linked): { rel: string; to: string }[] {
  return e.bodyLinks?.length ? [...e.links, ...e.bodyLinks.map((to) => ({ rel: BODY_REL, to }))] : e.links;
}

/** One neighbour of an entry across a link, in either direction (`rel` is as stored, `direction` says which). */
export interface Neighbour<E extends Linked = EntryMeta> {
  entry: E;
  rel: string;
  direction: 'out' | 'in';
}

/** The 1-hop neighbours of entry `self`: its links, and the entries among `linkers` that link to it. */
function neighboursOf<E extends Linked>(self: E | undefined, byId: (id: string) => E | undefined, linkers: Iterable<E>): Neighbour<E>[] {
  const out: Neighbour<E>[] = [];
  if (!self) return out;
  const id = self.id;
  // Body links leave out the ids typed links name (core/format/meta.ts), so no neighbour is counted twice.
  for (const l of edgesOf(self)) {
    const target = byId(l.to);
    if (target) out.push({ entry: target, rel: l.rel, direction: 'out' });
  }
  for (const e of linkers) {
    if (e.id === id) continue;
    for (const l of edgesOf(e)) if (l.to === id) out.push({ entry: e, rel: l.rel, direction: 'in' });
  }
  return out;
}

/** The 1-hop neighbours of an entry in a catalog: typed links and body links (rel `body`), both directions. */
export function linkNeighbours(catalog: Catalog, id: string): Neighbour[] {
  return neighboursOf(catalog.byId.get(id), (i) => catalog.byId.get(i), catalog.byId.values());
}
