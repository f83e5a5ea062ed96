/**
 * Contract: `search` runs one or more queries (the model passes the user's words plus synonyms as several) over
 * a fresh index and returns merged, ranked hits with snippets and 1-hop link neighbours.
 */
import { MAX_PROMPT_CHARS } from '../core/text/prompt-text.js';
import { KbError } from '../core/errors.js';
import { TYPES } from '../core/format/schema.js';
import { writtenTag } from '../core/format/tags.js';
import { parseSince } from '../core/format/since.js';
import { searchCounted, type SearchHit } from '../adapters/index/search.js';
import { openSearchStore, type BuildProgress } from '../adapters/index/search-store.js';
import { searchTurns, type TurnHit } from '../adapters/index/turns.js';
import { forbiddenHostKeys, hostKeyFor, unreadableShown } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { readDecaySettings } from '../adapters/store/repo-settings.js';
import { unknownChoice } from '../core/text/suggest.js';

/** The most queries one search merges, and the longest query (the prompt hook reads at most as much of a prompt). */
export const MAX_QUERIES = 32;
export const MAX_QUERY_CHARS = MAX_PROMPT_CHARS;

export interface SearchCommandOptions extends RepoOptions {
  queries: string[];
  type?: string;
  tag?: string;
  host?: string;
  since?: string;
  limit?: number;
  /** The time entry ages are counted at (tests; default now). */
  now?: Date;
  /** Told how a rebuild of the index goes (the CLI draws it on a terminal). */
  onProgress?: BuildProgress;
  /** Show tool output in the snippets of session turns (it is searched either way). */
  toolOutput?: boolean;
  /** Look in the session turn logs too (default true). */
  turns?: boolean;
}

export interface SearchResultSet {
  query: string;
  queries: string[];
  results: SearchHit[];
  /** How many entries matched (after the filters): `results` holds the best `limit` of them, and linked ones (`via`). */
  total: number;
  /** The files not searched because they do not read as entries, by path (lint says why). */
  unreadable: string[];
  /** hosts.yaml's problems when it does not load (every host's facts are then left out). */
  hostsInvalid?: string;
  /** Sessions found by their turns (spec/sessions.md, "Turns") whose summary is not among `results`. */
  sessions: TurnHit[];
}

/** Sessions shown from their turns, at most. */
const TURN_HITS = 5;

/** Searches the data repo. */
export async function searchEntries(options: SearchCommandOptions): Promise<SearchResultSet> {
  const queries = options.queries.map((q) => q.trim()).filter(Boolean);
  if (queries.length === 0) throw new KbError('USAGE', 'search needs a query, e.g. git-kb search "rebase onto main"');
  // NOTE: bounds, as the prompt hook has: a caller (an MCP client, a script) could pass thousands of phrasings or a
  // megabyte of text, and the MCP server answers one request at a time.
  if (queries.length > MAX_QUERIES) throw new KbError('USAGE', `search takes at most ${MAX_QUERIES} queries (got ${queries.length}); a few phrasings of one question are what it merges well`);
  const long = queries.find((q) => q.length > MAX_QUERY_CHARS);
  if (long) throw new KbError('USAGE', `a search query is at most ${MAX_QUERY_CHARS} characters (one has ${long.length}); search for its key words`);
  if (options.type && !(TYPES as readonly string[]).includes(options.type)) throw unknownChoice('type', options.type, TYPES);
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1)) throw new KbError('USAGE', '--limit must be a positive integer');
  const since = options.since ? parseSince(options.since) : undefined;
  const tag = options.tag === undefined ? undefined : writtenTag(options.tag);
  const { dir } = repoForRead(options);
  const progress = options.onProgress ? { onProgress: options.onProgress } : {};
  const decay = readDecaySettings(dir);
  const hideHosts = await forbiddenHostKeys(dir);
  const host = options.host === undefined ? undefined : await hostKeyFor(dir, options.host);
  const o = { ...options, host, tag, since, queries, hideHosts, decay, now: (options.now ?? new Date()).getTime() };
  let store = await openSearchStore(dir, { queries, ...progress });
  let found: { hits: SearchHit[]; total: number };
  try {
    found = searchCounted(store, o);
  } catch (err) {
    // A stored shard that does not read back (damaged on disk) shows only when a query loads it: rebuild, once.
    if (store.how === 'built') throw err;
    store = await openSearchStore(dir, { queries, ...progress, rebuild: true });
    found = searchCounted(store, o);
  }
  const results = found.hits;
  const unreadable = unreadableShown(store.unreadable(), hideHosts);
  // Session turns: a turn is searchable from its Stop on, before its summary is committed. A summary among the
  // results says which turn matched; other sessions follow the entries.
  let sessions: TurnHit[] = [];
  if (options.turns !== false && !options.host && (!options.type || options.type === 'session_summary')) {
    const found = searchTurns(dir, { queries, limit: TURN_HITS + results.length, toolOutput: options.toolOutput, since, tag });
    const byId = new Map(results.map((r) => [r.id, r]));
    for (const t of found) {
      const hit = byId.get(t.id);
      if (hit) hit.turn = { n: t.turn, anchor: t.anchor, kind: t.kind, ...(t.tool ? { tool: t.tool } : {}) };
      else if (sessions.length < TURN_HITS) sessions.push(t);
    }
  }
  return { query: queries.join(' | '), queries, results, total: found.total, unreadable, sessions, ...(hideHosts.invalid ? { hostsInvalid: hideHosts.invalid } : {}) };
}
